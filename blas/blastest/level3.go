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
			c, c0, before := outputMatrix(rng, m, n, beta)
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

// DsymmTest checks C = alpha·A·B + beta·C (side Left) and alpha·B·A +
// beta·C (Right) for symmetric A given by one triangle, the other
// triangle holding NaN; the large Right, Upper cases are the blocks of
// vectors kpls multiplies by its kernel matrix, on sizes large enough for
// a backend's parallel paths.
func DsymmTest(t *testing.T, impl blas.Float64) {
	rng := rand.New(rand.NewPCG(6, 6))
	for _, s := range []gblas.Side{gblas.Left, gblas.Right} {
		for _, ul := range []gblas.Uplo{gblas.Upper, gblas.Lower} {
			for _, m := range small {
				for _, n := range small {
					symmCase(t, rng, impl, s, ul, m, n)
				}
			}
		}
	}
	for _, m := range []int{2, 5, 9} {
		symmCase(t, rng, impl, gblas.Right, gblas.Upper, m, 389)
	}
}

func symmCase(t *testing.T, rng *rand.Rand, impl blas.Float64, s gblas.Side, ul gblas.Uplo, m, n int) {
	t.Helper()
	na := n // A is na×na: n for Right, m for Left
	if s == gblas.Left {
		na = m
	}
	a := newMatrix(rng, na, na, max(na, 1)+rng.IntN(2))
	full := a.symmetrize(ul)
	b := newMatrix(rng, m, n, max(n, 1)+rng.IntN(2))
	for _, alpha := range scales {
		for _, beta := range scales {
			c, c0, before := outputMatrix(rng, m, n, beta)
			impl.Dsymm(s, ul, m, n, alpha, a.slice(), a.ld, b.slice(), b.ld, beta, c.slice(), c.ld)
			c.checkGaps(t, before, "Dsymm")
			for i := range m {
				for j := range n {
					var sm sum
					for l := range na {
						if s == gblas.Left {
							sm.add(full.at(i, l) * b.at(l, j))
						} else {
							sm.add(b.at(i, l) * full.at(l, j))
						}
					}
					w := result(alpha, sm, beta, c0[guard+i*c.ld+j])
					if !near(c.at(i, j), w.v, w.mag) {
						t.Fatalf("Dsymm side=%c ul=%c m=%d n=%d α=%v β=%v: C[%d,%d] = %v, want %v",
							s, ul, m, n, alpha, beta, i, j, c.at(i, j), w.v)
					}
				}
			}
		}
	}
}

// outputMatrix returns an m×n output matrix C with padding, a copy of its
// buffer as made (c0, for β·C), and a copy as passed (before, for
// checkGaps): with β = 0, C is output only and holds NaN, which the
// routine must ignore.
func outputMatrix(rng *rand.Rand, m, n int, beta float64) (c matrix, c0, before []float64) {
	c = newMatrix(rng, m, n, max(n, 1)+rng.IntN(2))
	c0 = append([]float64(nil), c.buf...)
	if beta == 0 {
		for i := range m {
			for j := range n {
				c.set(i, j, nan())
			}
		}
	}
	return c, c0, append([]float64(nil), c.buf...)
}
