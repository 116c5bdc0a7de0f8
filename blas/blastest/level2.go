package blastest

import (
	"math/rand/v2"
	"testing"

	gblas "gonum.org/v1/gonum/blas"

	"github.com/kpls-go/kpls/blas"
)

// DgemvTest checks y = alpha·op(A)·x + beta·y for both transposes.
func DgemvTest(t *testing.T, impl blas.Float64) {
	rng := rand.New(rand.NewPCG(2, 2))
	for _, tA := range []gblas.Transpose{gblas.NoTrans, gblas.Trans} {
		for _, m := range sizes {
			for _, n := range sizes {
				for _, inc := range incs {
					gemvCase(t, rng, impl, tA, m, n, n+rng.IntN(3), inc, -inc+1-2*rng.IntN(2))
				}
			}
		}
	}
}

func gemvCase(t *testing.T, rng *rand.Rand, impl blas.Float64, tA gblas.Transpose, m, n, lda, incX, incY int) {
	t.Helper()
	if incY == 0 {
		incY = 1
	}
	lda = max(lda, n, 1)
	a := newMatrix(rng, m, n, lda)
	lx, ly := n, m
	if tA != gblas.NoTrans {
		lx, ly = m, n
	}
	x := newStrided(rng, lx, incX)
	for _, alpha := range scales {
		for _, beta := range scales {
			y := newStrided(rng, ly, incY)
			y0 := y.values()
			if beta == 0 {
				y.nanOut()
			}
			before := append([]float64(nil), y.buf...)
			impl.Dgemv(tA, m, n, alpha, a.slice(), lda, x.slice(), incX, beta, y.slice(), incY)
			y.checkGaps(t, before, "Dgemv")
			if m == 0 || n == 0 {
				continue // BLAS returns at once: y is not even scaled
			}
			for i := range ly {
				var s sum
				for k := range lx {
					if tA == gblas.NoTrans {
						s.add(a.at(i, k) * x.at(k))
					} else {
						s.add(a.at(k, i) * x.at(k))
					}
				}
				w := result(alpha, s, beta, y0[i])
				if !near(y.at(i), w.v, w.mag) {
					t.Fatalf("Dgemv %s m=%d n=%d lda=%d incX=%d incY=%d α=%v β=%v: y[%d] = %v, want %v",
						transName(tA), m, n, lda, incX, incY, alpha, beta, i, y.at(i), w.v)
				}
			}
		}
	}
}

// DsymvTest checks y = alpha·A·x + beta·y for symmetric A given by one
// triangle; the other triangle is NaN.
func DsymvTest(t *testing.T, impl blas.Float64) {
	rng := rand.New(rand.NewPCG(3, 3))
	for _, ul := range []gblas.Uplo{gblas.Upper, gblas.Lower} {
		for _, n := range sizes {
			for _, inc := range incs {
				symvCase(t, rng, impl, ul, n, n+rng.IntN(3), inc, 1)
				symvCase(t, rng, impl, ul, n, n, 1, inc)
			}
		}
	}
}

// LargeSymvTest checks Dsymv, Dgemv and Dgemm (B plain and transposed) with unit strides on sizes
// large enough for a backend's parallel paths.
func LargeSymvTest(t *testing.T, impl blas.Float64) {
	rng := rand.New(rand.NewPCG(4, 4))
	for _, n := range []int{389, 402} {
		for _, ul := range []gblas.Uplo{gblas.Upper, gblas.Lower} {
			symvCase(t, rng, impl, ul, n, n+1, 1, 1)
		}
		gemvCase(t, rng, impl, gblas.NoTrans, n, n-5, n, 1, 1)
	}
	gemmCase(t, rng, impl, gblas.NoTrans, gblas.NoTrans, 6, 1100, 301)
	gemmCase(t, rng, impl, gblas.NoTrans, gblas.NoTrans, 70, 40, 300)
	gemmCase(t, rng, impl, gblas.NoTrans, gblas.Trans, 17, 1100, 1301)
	gemmCase(t, rng, impl, gblas.NoTrans, gblas.Trans, 4, 9, 6)
}

func symvCase(t *testing.T, rng *rand.Rand, impl blas.Float64, ul gblas.Uplo, n, lda, incX, incY int) {
	t.Helper()
	lda = max(lda, n, 1)
	a := newMatrix(rng, n, n, lda)
	full := a.symmetrize(ul)
	x := newStrided(rng, n, incX)
	for _, alpha := range scales {
		for _, beta := range scales {
			y := newStrided(rng, n, incY)
			y0 := y.values()
			if beta == 0 {
				y.nanOut()
			}
			before := append([]float64(nil), y.buf...)
			impl.Dsymv(ul, n, alpha, a.slice(), lda, x.slice(), incX, beta, y.slice(), incY)
			y.checkGaps(t, before, "Dsymv")
			for i := range n {
				var s sum
				for k := range n {
					s.add(full.at(i, k) * x.at(k))
				}
				w := result(alpha, s, beta, y0[i])
				if !near(y.at(i), w.v, w.mag) {
					t.Fatalf("Dsymv ul=%c n=%d lda=%d incX=%d incY=%d α=%v β=%v: y[%d] = %v, want %v",
						ul, n, lda, incX, incY, alpha, beta, i, y.at(i), w.v)
				}
			}
		}
	}
}
