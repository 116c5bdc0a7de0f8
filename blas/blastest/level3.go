package blastest

import (
	"math/rand/v2"
	"testing"

	gblas "gonum.org/v1/gonum/blas"

	"github.com/kpls-go/kpls/blas"
)

var small = []int{0, 1, 2, 3, 5, 8, 13}

// DgemmTest checks C = alpha·op(A)·op(B) + beta·C for all transposes.
func DgemmTest(t *testing.T, impl blas.Float64) {
	rng := rand.New(rand.NewPCG(5, 5))
	trans := []gblas.Transpose{gblas.NoTrans, gblas.Trans}
	for _, tA := range trans {
		for _, tB := range trans {
			for _, m := range small {
				for _, n := range small {
					for _, k := range small {
						gemmCase(t, rng, impl, tA, tB, m, n, k)
					}
				}
			}
		}
	}
}

func gemmCase(t *testing.T, rng *rand.Rand, impl blas.Float64, tA, tB gblas.Transpose, m, n, k int) {
	t.Helper()
	ra, ca := m, k
	if tA != gblas.NoTrans {
		ra, ca = k, m
	}
	rb, cb := k, n
	if tB != gblas.NoTrans {
		rb, cb = n, k
	}
	a := newMatrix(rng, ra, ca, max(ca, 1)+rng.IntN(2))
	b := newMatrix(rng, rb, cb, max(cb, 1)+rng.IntN(2))
	opA := func(i, l int) float64 {
		if tA == gblas.NoTrans {
			return a.at(i, l)
		}
		return a.at(l, i)
	}
	opB := func(l, j int) float64 {
		if tB == gblas.NoTrans {
			return b.at(l, j)
		}
		return b.at(j, l)
	}
	for _, alpha := range scales {
		for _, beta := range scales {
			c := newMatrix(rng, m, n, max(n, 1)+rng.IntN(2))
			c0 := append([]float64(nil), c.buf...)
			if beta == 0 {
				for i := range m {
					for j := range n {
						c.set(i, j, nan())
					}
				}
			}
			before := append([]float64(nil), c.buf...)
			impl.Dgemm(tA, tB, m, n, k, alpha, a.slice(), a.ld, b.slice(), b.ld, beta, c.slice(), c.ld)
			c.checkGaps(t, before, "Dgemm")
			if m == 0 || n == 0 {
				continue
			}
			for i := range m {
				for j := range n {
					var s sum
					for l := range k {
						s.add(opA(i, l) * opB(l, j))
					}
					w := result(alpha, s, beta, c0[guard+i*c.ld+j])
					if !near(c.at(i, j), w.v, w.mag) && !(k == 0 && alpha == 0 && beta == 1) {
						t.Fatalf("Dgemm %s%s m=%d n=%d k=%d α=%v β=%v: C[%d,%d] = %v, want %v",
							transName(tA), transName(tB), m, n, k, alpha, beta, i, j, c.at(i, j), w.v)
					}
				}
			}
		}
	}
}
