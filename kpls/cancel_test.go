package kpls

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
)

// countingCtx counts the checks of a context (its Err calls) and cancels
// it at check number at (never when 0).
type countingCtx struct {
	context.Context
	cancel context.CancelFunc
	at     int64
	checks atomic.Int64
}

func newCountingCtx(at int64) *countingCtx {
	ctx, cancel := context.WithCancel(context.Background())
	return &countingCtx{Context: ctx, cancel: cancel, at: at}
}

func (c *countingCtx) Err() error {
	if c.checks.Add(1) == c.at {
		c.cancel()
	}
	return c.Context.Err()
}

// TestCancelPredictWithinProduct: on a loaded model with its dense kernel
// matrix (the service's case), a band or interval request cancelled at
// any one of the checks of its context, most of them inside the products
// with the kernel matrix (a block of rows each), returns the context's
// error from Predict (but for the intervals' last check, made once the
// work is done, which may return the answer); never cancelled, it checks the context many times
// per product and gives the answer of a request without a cancellable
// context, bit for bit.
func TestCancelPredictWithinProduct(t *testing.T) {
	const comp = 6
	x, y := raceData(600, 3, 8)
	fitted, err := Fit(context.Background(), x, y, Options{Components: comp})
	if err != nil {
		t.Fatal(err)
	}
	m := raceReload(t, fitted)
	for _, u := range []Uncertainty{ConfidenceBand, PredictionInterval} {
		for _, points := range []int{1, 3, 10} {
			t.Run(fmt.Sprintf("%v/points=%d", u, points), func(t *testing.T) {
				z, _ := raceData(points, 3, 9)
				opt := PredictOptions{Uncertainty: u}
				// The first request builds the kernel matrix and the
				// scores' polynomial, which later ones reuse.
				want, err := m.Predict(context.Background(), z, opt)
				if err != nil {
					t.Fatal(err)
				}
				never := newCountingCtx(0)
				defer never.cancel()
				got, err := m.Predict(never, z, opt)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got.Yhat, want.Yhat) || !slices.Equal(got.SE, want.SE) {
					t.Fatal("the answer with a cancellable context differs from the one without")
				}
				checks := never.checks.Load()
				// comp products at 600 rows, 64 rows a block.
				if checks < 4*comp {
					t.Fatalf("%d checks of the context for %d products, want ≥ %d", checks, comp, 4*comp)
				}
				for at := int64(1); at <= checks; at++ {
					c := newCountingCtx(at)
					p, err := m.Predict(c, z, opt)
					c.cancel()
					if at == checks && err == nil && slices.Equal(p.SE, want.SE) {
						continue // the intervals' last check comes after the work
					}
					if !errors.Is(err, context.Canceled) || p != nil {
						t.Fatalf("cancelled at check %d of %d: prediction %v, err %v; want context.Canceled alone", at, checks, p != nil, err)
					}
				}
			})
		}
	}
}
