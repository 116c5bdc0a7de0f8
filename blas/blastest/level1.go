package blastest

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kpls-go/kpls/blas"
)

// Level1Test checks Ddot, Dnrm2, Daxpy and Dscal.
func Level1Test(t *testing.T, impl blas.Float64) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, n := range sizes {
		for _, incX := range incs {
			x := newStrided(rng, n, incX)
			for _, incY := range incs {
				y := newStrided(rng, n, incY)
				var want sum
				for i := range n {
					want.add(x.at(i) * y.at(i))
				}
				if got := impl.Ddot(n, x.slice(), incX, y.slice(), incY); !near(got, want.v, want.mag) && n > 0 {
					t.Errorf("Ddot n=%d incX=%d incY=%d: %v, want %v", n, incX, incY, got, want.v)
				}
				for _, alpha := range scales {
					y := newStrided(rng, n, incY)
					y0, before := y.values(), append([]float64(nil), y.buf...)
					impl.Daxpy(n, alpha, x.slice(), incX, y.slice(), incY)
					y.checkGaps(t, before, "Daxpy")
					for i := range n {
						w := sum{v: y0[i], mag: math.Abs(y0[i])}
						w.add(alpha * x.at(i))
						if !near(y.at(i), w.v, w.mag) {
							t.Fatalf("Daxpy n=%d α=%v incX=%d incY=%d: y[%d] = %v, want %v", n, alpha, incX, incY, i, y.at(i), w.v)
						}
					}
				}
			}
			if incX < 0 { // Dnrm2 and Dscal take positive increments only
				continue
			}
			var ss float64
			for i := range n {
				ss += x.at(i) * x.at(i)
			}
			if got := impl.Dnrm2(n, x.slice(), incX); !near(got, math.Sqrt(ss), math.Sqrt(ss)) && n > 0 {
				t.Errorf("Dnrm2 n=%d inc=%d: %v, want %v", n, incX, got, math.Sqrt(ss))
			}
			for _, alpha := range []float64{0, -0.6, 3} {
				x := newStrided(rng, n, incX)
				x0, before := x.values(), append([]float64(nil), x.buf...)
				impl.Dscal(n, alpha, x.slice(), incX)
				x.checkGaps(t, before, "Dscal")
				for i := range n {
					if want := alpha * x0[i]; !near(x.at(i), want, math.Abs(want)) && x.at(i) != want {
						t.Fatalf("Dscal n=%d α=%v inc=%d: x[%d] = %v, want %v", n, alpha, incX, i, x.at(i), want)
					}
				}
			}
		}
	}
	// Dnrm2 must not overflow or underflow on extreme magnitudes.
	for _, s := range []float64{1e-300, 1e300} {
		x := []float64{3 * s, 4 * s}
		if got := impl.Dnrm2(2, x, 1); !near(got, 5*s, 5*s) {
			t.Errorf("Dnrm2 of (3, 4)·%g = %v, want %v", s, got, 5*s)
		}
	}
}
