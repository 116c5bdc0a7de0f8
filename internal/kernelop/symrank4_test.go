package kernelop

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// forEachPath runs f with the kernels of every path this CPU and build
// have (generic, avx2, avx512), restoring the path in use afterwards.
func forEachPath(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	a2, a512 := useAVX2, useAVX512
	defer func() { useAVX2, useAVX512 = a2, a512 }()
	paths := []struct {
		name      string
		avx2, avx bool
	}{{"generic", false, false}, {"avx2", true, false}, {"avx512", true, true}}
	for _, p := range paths {
		if p.avx2 && !a2 || p.avx && !a512 {
			continue
		}
		useAVX2, useAVX512 = p.avx2, p.avx
		t.Run("path="+p.name, f)
	}
}

// TestSymRank4 compares symRank4 (the kernels of each path, with their
// tails) with the same sums taken one term at a time in float64, for
// float32 and float64 rows, on lengths around the kernels' steps of 4 and
// 8 and every number of vectors up to 9 (one or two calls of the
// six-vector and two-vector kernels). The vectors lie ld > m apart with
// NaN between them, and out has NaN past its 4k entries: a stray read
// would turn a sum into NaN, a stray write would show. Bound: both sum m
// (row sums) or 4 (mirror) products in different orders, so they differ
// by at most 2·(m+4)·ε times the sum of the absolute terms.
func TestSymRank4(t *testing.T) {
	forEachPath(t, func(t *testing.T) {
		testSymRank4[float32](t)
		testSymRank4[float64](t)
	})
}

func testSymRank4[T elem](t *testing.T) {
	kn := kernels[T]()
	compared := 0
	for _, m := range []int{0, 1, 3, 4, 5, 7, 8, 9, 11, 12, 15, 16, 17, 64, 67, 253, 256} {
		for k := 1; k <= 9; k++ {
			rng := rand.New(rand.NewPCG(uint64(m), uint64(k)))
			var a [4][]T
			for r := range a {
				a[r] = make([]T, m+3) // NaN past m: entries the call must not read
				for j := range a[r] {
					a[r][j] = T(math.NaN())
					if j < m {
						a[r][j] = T(rng.NormFloat64())
					}
				}
			}
			ld := m + 5
			x, y := make([]float64, k*ld), make([]float64, k*ld)
			for i := range x {
				if i%ld < m {
					x[i], y[i] = rng.NormFloat64(), rng.NormFloat64()
				} else {
					x[i], y[i] = math.NaN(), math.NaN()
				}
			}
			xs, out := make([]float64, 4*k+2), make([]float64, 4*k+2)
			for i := range xs {
				xs[i], out[i] = rng.NormFloat64(), math.NaN()
			}
			want, sAbs := make([]float64, 4*k), make([]float64, 4*k)
			wantY, yAbs := append([]float64(nil), y...), make([]float64, k*ld)
			for q := range k {
				for j := range m {
					for r := range 4 {
						v := float64(a[r][j])
						p := v * x[q*ld+j]
						want[4*q+r] += p
						sAbs[4*q+r] += math.Abs(p)
						p = xs[4*q+r] * v
						wantY[q*ld+j] += p
						yAbs[q*ld+j] += math.Abs(p)
					}
					yAbs[q*ld+j] += math.Abs(y[q*ld+j])
				}
			}
			symRank4(kn, a[0][:m], a[1][:m], a[2][:m], a[3][:m], x, y, ld, k, xs[:4*k], out[:4*k])
			eps := 0x1p-52
			where := fmt.Sprintf("%T m=%d k=%d", a[0][:0], m, k)
			for i := range 4 * k {
				if e := math.Abs(out[i] - want[i]); !(e <= 2*float64(m+4)*eps*sAbs[i]) {
					t.Errorf("%s: row sum %d (vector %d) is %g, want %g", where, i%4, i/4, out[i], want[i])
				}
				compared++
			}
			for i := 4 * k; i < len(out); i++ {
				if !math.IsNaN(out[i]) {
					t.Errorf("%s: out[%d] written past 4k", where, i)
				}
			}
			for i := range y {
				if i%ld >= m {
					if !math.IsNaN(y[i]) {
						t.Errorf("%s: y[%d] (vector %d, column %d ≥ m) written", where, i, i/ld, i%ld)
					}
					continue
				}
				if e := math.Abs(y[i] - wantY[i]); !(e <= 2*8*eps*yAbs[i]) {
					t.Errorf("%s: y[%d] = %g, want %g", where, i, y[i], wantY[i])
				}
				compared++
			}
		}
	}
	if compared == 0 {
		t.Fatal("nothing compared")
	}
}
