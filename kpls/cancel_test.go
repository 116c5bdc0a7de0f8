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
	fitted, err := Fit(context.Background(), Data{X: x, Y: vec(y)}, Options{Components: comp}, nil)
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

// TestPredictAtSharesKernelMatrix: models made by At (the service makes
// one per request that names its components) use their model's kernel
// matrix and per-m caches, built once: before, each built its own n×n
// matrix on its first band request, seconds past any deadline at
// n = 8192 and not cancellable. The bands are those of the model itself
// at that m, bit for bit.
func TestPredictAtSharesKernelMatrix(t *testing.T) {
	x, y := raceData(300, 3, 8)
	fitted, err := Fit(context.Background(), Data{X: x, Y: vec(y)}, Options{Components: 6}, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := raceReload(t, fitted)
	z, _ := raceData(4, 3, 9)
	band := PredictOptions{Uncertainty: ConfidenceBand}
	a, err := m.At(2)
	if err != nil {
		t.Fatal(err)
	}
	pa, err := a.Predict(context.Background(), z, band)
	if err != nil {
		t.Fatal(err)
	}
	if m.op == nil || a.op != nil {
		t.Fatalf("after a band request through At(2): model's matrix built %v, the view's own %v; want the model's only", m.op != nil, a.op != nil)
	}
	if _, ok := m.ritzOK[2]; !ok || a.ritzOK != nil {
		t.Error("the view's per-m caches are not the model's")
	}
	b, err := a.At(3)
	if err != nil {
		t.Fatal(err)
	}
	if b.base != m {
		t.Error("a view of a view does not share the model's matrix")
	}
	// The same bands as a fresh copy of the model with m = 2 chosen.
	fresh := raceReload(t, fitted)
	fresh.chosen = &Choice{M: 2}
	want, err := fresh.Predict(context.Background(), z, band)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(pa.Yhat, want.Yhat) || !slices.Equal(pa.SE, want.SE) {
		t.Errorf("bands through At(2): %v ± %v, want %v ± %v", pa.Yhat, pa.SE, want.Yhat, want.SE)
	}
}
