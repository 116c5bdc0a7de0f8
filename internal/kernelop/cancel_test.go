package kernelop

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/kpls-go/kpls/blas"
	"github.com/kpls-go/kpls/internal/gram"
)

// counting wraps a Blocks: once armed, its first call cancels the
// context, and it counts the calls that begin after cancel has returned.
// Calls that other goroutines begin while the cancelling one is still
// inside cancel (a preempted goroutine under the race detector on a
// loaded machine stays there for many tiles) are not counted: no check
// of the context could have stopped them.
type counting struct {
	Blocks
	armed, first, cancelled atomic.Bool
	calls                   atomic.Int64
	cancel                  context.CancelFunc
}

func (c *counting) count() {
	switch {
	case !c.armed.Load():
	case c.cancelled.Load():
		c.calls.Add(1)
	case c.first.CompareAndSwap(false, true):
		c.cancel()
		c.cancelled.Store(true)
	}
}
func (c *counting) Rows(dst []float64, r0, r1 int) { c.count(); c.Blocks.Rows(dst, r0, r1) }
func (c *counting) Block(dst []float64, r0, r1, c0, c1 int) {
	c.count()
	c.Blocks.Block(dst, r0, r1, c0, c1)
}

// TestCancel checks that a context cancelled at the first tile stops
// construction and Mul within that pass: each goroutine checks the
// context before every tile, so at most one tile per goroutine begins
// after the cancel has returned (calls ≤ GOMAXPROCS), of the hundreds in
// a pass.
func TestCancel(t *testing.T) {
	n := 1500
	x := make([]float64, n*3)
	for i := range x {
		x[i] = float64(i%17) * 0.1
	}
	tiles := len(newTiling(n, true).tiles)
	limit := int64(runtime.GOMAXPROCS(0))
	builders := map[string]func(context.Context, Rows) (Operator, error){
		"float32":     func(ctx context.Context, r Rows) (Operator, error) { return NewFloat32(ctx, r, nil, nil) },
		"matrix-free": func(ctx context.Context, r Rows) (Operator, error) { return NewMatrixFree(ctx, r, nil) },
		"hybrid": func(ctx context.Context, r Rows) (Operator, error) {
			return NewHybrid(ctx, r, DenseBytes(n)/4, nil, nil)
		},
	}
	for name, build := range builders {
		t.Run(name+"/construction", func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			c := &counting{Blocks: gram.NewRBFRows(x, n, 3, 1), cancel: cancel}
			c.armed.Store(true)
			if _, err := build(ctx, c); !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
			if got := c.calls.Load(); got > limit {
				t.Fatalf("%d tiles computed after cancelling (of %d a pass), want ≤ %d", got, tiles, limit)
			}
		})
		if name == "float32" {
			continue // its Mul computes no tiles; checked below
		}
		t.Run(name+"/mul", func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			c := &counting{Blocks: gram.NewRBFRows(x, n, 3, 1), cancel: cancel}
			op, err := build(context.Background(), c)
			if err != nil {
				t.Fatal(err)
			}
			c.armed.Store(true)
			v, dst := make([]float64, n), make([]float64, n)
			if err := op.Mul(ctx, dst, v, 1); !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
			if got := c.calls.Load(); got > limit {
				t.Fatalf("%d tiles computed after cancelling (of %d a pass), want ≤ %d", got, tiles, limit)
			}
		})
	}
	// Operators whose Mul reads stored values stop at a cancelled context.
	t.Run("stored/mul", func(t *testing.T) {
		rows := gram.NewRBFRows(x, n, 3, 1)
		f32, err := NewFloat32(context.Background(), rows, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		kc := make([]float64, n*n)
		rows.Rows(kc, 0, n)
		ops := []Operator{f32, NewDense(kc, n, n, Stats{}, blas.Default())}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		for _, op := range ops {
			if err := op.Mul(ctx, make([]float64, n), make([]float64, n), 1); !errors.Is(err, context.Canceled) {
				t.Fatalf("%s: err = %v, want context.Canceled", op.Kind(), err)
			}
		}
	})
}

// TestChoose checks the policy at the sizes the issue names.
func TestChoose(t *testing.T) {
	const gib = int64(1) << 30
	for _, c := range []struct {
		n     int
		limit int64
		f32   bool
		want  Kind
	}{
		{8192, 6 * gib, true, KindDense},    // 0.5 GiB
		{45730, 6 * gib, true, KindFloat32}, // 16.7 GB dense, 4.2 GB float32
		{45730, 6 * gib, false, KindHybrid}, // float32 not allowed
		{100000, 6 * gib, true, KindHybrid}, // float32 needs 20 GB
		{45730, 4e9, true, KindHybrid},      // 4.18 GB > 4 GB
		{100000, 8 * tileRows * tileCols, true, KindHybrid},
		{100000, 8*tileRows*tileCols - 1, true, KindMatrixFree},
		{100000, 0, true, KindMatrixFree},
	} {
		if got := Choose(c.n, c.limit, c.f32); got != c.want {
			t.Errorf("Choose(%d, %d, %v) = %s, want %s", c.n, c.limit, c.f32, got, c.want)
		}
	}
	if m := physicalMemory(); m > 0 {
		if got := DefaultLimit(); got != int64(m/4) {
			t.Errorf("DefaultLimit = %d, want %d", got, m/4)
		}
	}
}

// TestHybridBudget checks what the budget caches: nothing at 0, every
// tile at 8n², and Bytes within the budget plus the fixed part.
func TestHybridBudget(t *testing.T) {
	n := 700
	x := make([]float64, n*2)
	for i := range x {
		x[i] = float64(i%13) * 0.3
	}
	rows := gram.NewRBFRows(x, n, 2, 1)
	for _, c := range []struct {
		budget int64
		frac   float64 // -1: strictly between 0 and 1
	}{{0, 0}, {DenseBytes(n) / 5, -1}, {DenseBytes(n), 1}} {
		op, err := NewHybrid(context.Background(), rows, c.budget, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		f := op.(*tiled).CachedFraction()
		if c.frac >= 0 && f != c.frac || c.frac < 0 && !(f > 0 && f < 1) {
			t.Errorf("budget %d: cached fraction %v", c.budget, f)
		}
		fixed := int64(8*n) + int64(len(op.(*tiled).tl.tiles))*48
		if op.Bytes() > c.budget+fixed {
			t.Errorf("budget %d: Bytes %d", c.budget, op.Bytes())
		}
	}
}

// checkCtx counts the checks of a context (its Err calls) and cancels it
// at check number at (never when 0). late counts the checks that begin
// after that cancel has returned: each of them sees the error, so a
// goroutine that stops at its first check after the cancel adds one,
// and a goroutine that has begun a block when the cancel comes (or began
// one on a check that raced with it) finishes only that block.
type checkCtx struct {
	context.Context
	cancel         context.CancelFunc
	at             int64
	checks, late   atomic.Int64
	armed, settled atomic.Bool
}

func newCheckCtx(at int64) *checkCtx {
	ctx, cancel := context.WithCancel(context.Background())
	c := &checkCtx{Context: ctx, cancel: cancel, at: at}
	c.armed.Store(true)
	return c
}

func (c *checkCtx) Err() error {
	if c.armed.Load() {
		if c.settled.Load() {
			c.late.Add(1)
		} else if c.checks.Add(1) == c.at {
			c.cancel()
			c.settled.Store(true)
		}
	}
	return c.Context.Err()
}

// TestCancelWithinProduct checks that every storage's Mul stops within
// one block of rows (or tile) per goroutine of a cancel that comes part
// way through a product, and returns the context's error; and that the
// checks inside leave the product as it was, bit for bit. Each product
// is run first with a context that is never cancelled, counting its
// checks (many a pass: the dense storage's were one, before the product,
// on the go backend whose row loops now check); then cancelled at its
// first check (as an already cancelled context), its second (after one
// block at most) and half way through.
func TestCancelWithinProduct(t *testing.T) {
	if _, ok := blas.Default().(stoppable); !ok {
		t.Fatal("the go backend's products cannot stop part way: its DsymvStop, DsymmStop or DgemmStop is missing")
	}
	n := symmMinN // from here the dense blocks go through Dsymm
	x := make([]float64, n*3)
	for i := range x {
		x[i] = float64(i%17) * 0.1
	}
	rows := gram.NewRBFRows(x, n, 3, 1)
	ld := DenseStride(n)
	kc := make([]float64, n*ld)
	for i := range n {
		rows.Rows(kc[i*ld:i*ld+n], i, i+1)
	}
	f32, err := NewFloat32(context.Background(), rows, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	mf, err := NewMatrixFree(context.Background(), rows, nil)
	if err != nil {
		t.Fatal(err)
	}
	hy, err := NewHybrid(context.Background(), rows, DenseBytes(n)/4, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	ops := []Operator{NewDense(kc, ld, n, f32.Stats(), blas.Default()), f32, mf, hy}
	// One vector (Dsymv; float32's row groups), a block through Dsymm,
	// one past it (Dgemm), and float32's tiled blocks.
	ks := []int{1, 4, symmMaxVectors + 1, tileMinVectors()}
	limit := int64(runtime.GOMAXPROCS(0))
	rng := rand.New(rand.NewPCG(5, 6))
	for _, op := range ops {
		for _, k := range ks {
			t.Run(fmt.Sprintf("%s/k=%d", op.Kind(), k), func(t *testing.T) {
				v := make([]float64, k*n)
				for i := range v {
					v[i] = rng.NormFloat64()
				}
				want, got := make([]float64, k*n), make([]float64, k*n)
				if err := op.Mul(context.Background(), want, v, k); err != nil {
					t.Fatal(err)
				}
				never := newCheckCtx(0)
				if err := op.Mul(never, got, v, k); err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, want) {
					t.Fatal("the product with a cancellable context differs from the one without")
				}
				checks := never.checks.Load()
				if checks < 8 {
					t.Fatalf("%d checks of the context in a product, want ≥ 8 (one per block of rows)", checks)
				}
				for _, at := range []int64{1, 2, checks / 2} {
					c := newCheckCtx(at)
					if err := op.Mul(c, got, v, k); !errors.Is(err, context.Canceled) {
						t.Fatalf("cancelled at check %d of %d: err = %v, want context.Canceled", at, checks, err)
					}
					if late := c.late.Load(); late > limit {
						t.Errorf("cancelled at check %d of %d: %d checks after it, want ≤ %d (one per goroutine)", at, checks, late, limit)
					}
					c.cancel()
				}
				never.cancel()
			})
		}
	}
}
