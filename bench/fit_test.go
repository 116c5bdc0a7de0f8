package bench

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/blas"
	"github.com/kpls-go/kpls/kpls"
)

// kinLike is 8-dimensional data with a smooth nonlinear target, standing
// in for kin8nm at any n.
func kinLike(n int) (*mat.Dense, []float64) {
	rng := rand.New(rand.NewPCG(uint64(n), 9))
	x := mat.NewDense(n, 8, nil)
	y := make([]float64, n)
	for i := range y {
		for j := 0; j < 8; j++ {
			v := rng.NormFloat64()
			x.Set(i, j, v)
			y[i] += math.Sin(v * float64(j+1) / 4)
		}
		y[i] += 0.1 * rng.NormFloat64()
	}
	return x, y
}

// BenchmarkFit compares the fit alone (M = 30 components, no DoF) with the
// fit plus the DoF of each method for m ≤ 10 and m ≤ 30 from M = 30
// Lanczos steps. Targets: lanczos within 1.2× of fit alone (the DoF is
// O(M³) on L); approx within 2.5× of lanczos in wall time at m = 30.
func BenchmarkFit(b *testing.B) {
	for _, bl := range backends(b) {
		name := blas.Name(bl)
		for _, n := range []int{2048, 8192} {
			x, y := kinLike(n)
			for _, c := range []struct {
				dof  kpls.DoFMethod
				comp int
			}{{kpls.DoFNone, 30}, {kpls.DoFLanczos, 10}, {kpls.DoFApprox, 10}, {kpls.DoFLanczos, 30}, {kpls.DoFApprox, 30}} {
				b.Run(fmt.Sprintf("backend=%s/n=%d/dof=%s/m=%d", name, n, c.dof, c.comp), func(b *testing.B) {
					o := kpls.Options{Kernel: kpls.RBF{Width: 4}, Components: c.comp, Lanczos: 30, DoF: c.dof}
					for b.Loop() {
						if _, err := kpls.Fit(context.Background(), kpls.Data{X: x, Y: mat.NewVecDense(len(y), y)}, o, &kpls.Resources{Backend: bl}); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}

// BenchmarkExactVersusApprox is the paper's runtime comparison at one n:
// the exact DoF is cubic, the approximation quadratic.
func BenchmarkExactVersusApprox(b *testing.B) {
	for _, n := range []int{500, 2000} {
		x, y := kinLike(n)
		for _, dof := range []kpls.DoFMethod{kpls.DoFExact, kpls.DoFApprox, kpls.DoFLanczos} {
			b.Run(fmt.Sprintf("n=%d/dof=%s", n, dof), func(b *testing.B) {
				o := kpls.Options{Kernel: kpls.RBF{Width: 4}, Components: 10, Lanczos: 30, DoF: dof}
				for b.Loop() {
					if _, err := kpls.Fit(context.Background(), kpls.Data{X: x, Y: mat.NewVecDense(len(y), y)}, o, nil); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkBands times confidence bands for a batch of new points and for
// one point: m products of K with the block (compute bound for batches).
func BenchmarkBands(b *testing.B) {
	n := 8192
	if testing.Short() {
		n = 1024
	}
	x, y := kinLike(n)
	m, err := kpls.Fit(context.Background(), kpls.Data{X: x, Y: mat.NewVecDense(len(y), y)}, kpls.Options{Kernel: kpls.RBF{Width: 4}, Components: 10}, nil)
	if err != nil {
		b.Fatal(err)
	}
	m5, err := m.At(5)
	if err != nil {
		b.Fatal(err)
	}
	band := kpls.PredictOptions{Uncertainty: kpls.ConfidenceBand}
	z, _ := kinLike(1000)
	for _, points := range []int{1, 100, 1000} {
		zp := z.Slice(0, points, 0, 8)
		b.Run(fmt.Sprintf("n=%d/m=5/points=%d", n, points), func(b *testing.B) {
			for b.Loop() {
				if _, err := m5.Predict(context.Background(), zp, band); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(points)/1e3, "µs/point")
		})
		b.Run(fmt.Sprintf("n=%d/predict/points=%d", n, points), func(b *testing.B) {
			for b.Loop() {
				if _, err := m5.Predict(context.Background(), zp, kpls.PredictOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkBandsReverse times bands on the reverse path (m past the
// point where the Ritz form keeps its digits) for a batch of points at
// small n, where the adjoint updates (O(m²) passes over the scratch per
// point) cost more than the products with K.
func BenchmarkBandsReverse(b *testing.B) {
	for _, n := range []int{300, 1000} {
		x, y := kinLike(n)
		m, err := kpls.Fit(context.Background(), kpls.Data{X: x, Y: mat.NewVecDense(len(y), y)}, kpls.Options{Kernel: kpls.RBF{Width: 2}, Components: 40}, nil)
		if err != nil {
			b.Fatal(err)
		}
		m40, err := m.At(40)
		if err != nil {
			b.Fatal(err)
		}
		z, _ := kinLike(500)
		b.Run(fmt.Sprintf("n=%d/m=40/points=500", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := m40.Predict(context.Background(), z, kpls.PredictOptions{Uncertainty: kpls.ConfidenceBand}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/500/1e3, "µs/point")
		})
	}
}

// BenchmarkWeightedFit compares a fit with frequency weights (integers
// 1..3, so no row drops out) with the unweighted fit of the same rows:
// the weighted operator adds O(n) per vector to each product and one
// product with w, so the ratio should stay near 1 (the target is ≤ 1.1).
func BenchmarkWeightedFit(b *testing.B) {
	for _, n := range []int{2048, 8192} {
		x, y := kinLike(n)
		w := make([]float64, n)
		for i := range w {
			w[i] = float64(1 + i%3)
		}
		for _, dof := range []kpls.DoFMethod{kpls.DoFNone, kpls.DoFApprox} {
			for _, weighted := range []bool{false, true} {
				b.Run(fmt.Sprintf("n=%d/dof=%s/weighted=%v", n, dof, weighted), func(b *testing.B) {
					o := kpls.Options{Kernel: kpls.RBF{Width: 4}, Components: 20, Lanczos: 30, DoF: dof}
					data := kpls.Data{X: x, Y: mat.NewVecDense(len(y), y)}
					if weighted {
						data.Weights = w
					}
					for b.Loop() {
						if _, err := kpls.Fit(context.Background(), data, o, nil); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}
