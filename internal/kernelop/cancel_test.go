package kernelop

import (
	"context"
	"errors"
	"runtime"
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
