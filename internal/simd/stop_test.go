package simd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
)

// stopAfter is a stop function that answers "go on" to its first `after`
// calls and "stop" to every later one, counting them all.
type stopAfter struct {
	after int64
	calls atomic.Int64
}

func (s *stopAfter) stop() bool { return s.calls.Add(1) > s.after }

// stoppers are the products with a stop function, each with its
// unstoppable twin, on an n×n matrix a and k vectors x (k×n) into y.
var stoppers = []struct {
	name  string
	plain func(n, k int, a, x, y []float64)
	stop  func(stop func() bool, n, k int, a, x, y []float64) bool
}{
	{"Symv/upper", func(n, _ int, a, x, y []float64) { Symv(true, n, 0.7, a, n, x, 0, y) },
		func(stop func() bool, n, _ int, a, x, y []float64) bool {
			return SymvStop(stop, true, n, 0.7, a, n, x, 0, y)
		}},
	{"Symv/lower", func(n, _ int, a, x, y []float64) { Symv(false, n, 0.7, a, n, x, 0, y) },
		func(stop func() bool, n, _ int, a, x, y []float64) bool {
			return SymvStop(stop, false, n, 0.7, a, n, x, 0, y)
		}},
	{"SymvBlock", func(n, k int, a, x, y []float64) { SymvBlock(k, n, 0.7, a, n, x, n, 0, y, n) },
		func(stop func() bool, n, k int, a, x, y []float64) bool {
			return SymvBlockStop(stop, k, n, 0.7, a, n, x, n, 0, y, n)
		}},
	{"GemmNT", func(n, k int, a, x, y []float64) { GemmNT(k, n, n, 0.7, x, n, a, n, 0, y, n) },
		func(stop func() bool, n, k int, a, x, y []float64) bool {
			return GemmNTStop(stop, k, n, n, 0.7, x, n, a, n, 0, y, n)
		}},
}

// TestStop checks the products that take a stop function: with one that
// never stops they give their unstoppable twin's result bit for bit,
// having asked it once per block of stopRows rows (so many times a
// pass); with one that stops from its second call on (one block done) or
// from its first (already stopped), they return false having asked it at
// most once more per goroutine, so that no goroutine begins another block
// after the stop.
func TestStop(t *testing.T) {
	allPaths(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(31, 32))
		for _, n := range []int{5, 200, 1030} {
			a := randMat(rng, n, n, n)
			for _, k := range []int{1, 3, 9} {
				x := randMat(rng, k, n, n)
				for _, p := range stoppers {
					if k > 1 && strings.HasPrefix(p.name, "Symv/") {
						continue
					}
					t.Run(fmt.Sprintf("%s/n=%d/k=%d", p.name, n, k), func(t *testing.T) {
						want := make([]float64, k*n)
						p.plain(n, k, a, x, want)
						got := make([]float64, k*n)
						never := &stopAfter{after: math.MaxInt64}
						if !p.stop(never.stop, n, k, a, x, got) {
							t.Fatal("stopped without being told to")
						}
						if !slices.Equal(got, want) {
							t.Fatal("result differs from the unstoppable product's")
						}
						for i := range got {
							got[i] = math.NaN()
						}
						if !p.stop(nil, n, k, a, x, got) || !slices.Equal(got, want) {
							t.Fatal("with a nil stop: stopped, or a different result")
						}
						blocks := never.calls.Load()
						if min := int64(n / (2 * stopRows)); blocks < min {
							t.Errorf("%d checks in a pass, want ≥ %d (one per %d rows)", blocks, min, stopRows)
						}
						limit := int64(runtime.GOMAXPROCS(0))
						for _, after := range []int64{0, 1} {
							if after >= blocks {
								continue // one block is the whole product
							}
							s := &stopAfter{after: after}
							if p.stop(s.stop, n, k, a, x, got) {
								t.Errorf("stop after %d checks: ran to the end", after)
							}
							if late := s.calls.Load() - after; late > limit {
								t.Errorf("stop after %d checks: %d more checks (of %d a pass), want ≤ %d, one per goroutine", after, late, blocks, limit)
							}
						}
					})
				}
			}
		}
	})
}
