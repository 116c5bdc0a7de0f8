package relevance

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/kpls"
)

// TestRBFGradientFiniteDifferences checks the gradient of the fitted
// function against central differences of the model's own Predict, at
// training rows and at new points, for several m (the centring term
// included: α need not sum to zero).
func TestRBFGradientFiniteDifferences(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(3, 4))
	const n, d = 80, 4
	x := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := range n {
		for j := range d {
			x.Set(i, j, rng.NormFloat64())
		}
		y[i] = math.Sin(2*x.At(i, 0)) + 0.5*x.At(i, 1)*x.At(i, 1) + 0.1*rng.NormFloat64()
	}
	xq := mat.NewDense(6, d, nil)
	for i := range 3 {
		xq.SetRow(i, x.RawRowView(7*i))
	}
	for i := 3; i < 6; i++ {
		for j := range d {
			xq.Set(i, j, 1.2*rng.NormFloat64())
		}
	}
	for _, w := range []float64{0.5, 2} {
		model, err := kpls.Fit(ctx, kpls.Data{X: x, Y: mat.NewVecDense(n, y)},
			kpls.Options{Kernel: kpls.RBF{Width: w}, Components: 6, RawFeatures: true, DoF: kpls.DoFNone}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range []int{1, 3, 6} {
			alpha, err := model.Alpha(m)
			if err != nil {
				t.Fatal(err)
			}
			at, err := model.At(m)
			if err != nil {
				t.Fatal(err)
			}
			var sum, abs float64
			for _, a := range alpha {
				sum, abs = sum+a, abs+math.Abs(a)
			}
			t.Logf("w %g, m %d: Σα = %.3g, Σ|α| = %.3g", w, m, sum, abs)
			grad := rbfGradient(x, alpha, w, xq)
			const h = 1e-5
			for r := range 6 {
				for j := range d {
					lo, hi := mat.DenseCopyOf(xq.Slice(r, r+1, 0, d)), mat.DenseCopyOf(xq.Slice(r, r+1, 0, d))
					lo.Set(0, j, lo.At(0, j)-h)
					hi.Set(0, j, hi.At(0, j)+h)
					pl, err := at.Predict(ctx, lo, kpls.PredictOptions{})
					if err != nil {
						t.Fatal(err)
					}
					ph, err := at.Predict(ctx, hi, kpls.PredictOptions{})
					if err != nil {
						t.Fatal(err)
					}
					fd := (ph.Yhat[0] - pl.Yhat[0]) / (2 * h)
					if got := grad.At(r, j); math.Abs(got-fd) > 1e-6*(1+math.Abs(fd)) {
						t.Errorf("w %g, m %d, point %d, feature %d: gradient %.10g, finite differences %.10g", w, m, r, j, got, fd)
					}
				}
			}
		}
	}
}

func TestGOPAndNormalised(t *testing.T) {
	g := gop(mat.NewDense(2, 3, []float64{3, 0, 1, -4, 0, 1}))
	want := []float64{math.Sqrt(12.5), 0, 1}
	for j := range want {
		if math.Abs(g[j]-want[j]) > 1e-12 {
			t.Errorf("gop[%d] = %g, want %g", j, g[j], want[j])
		}
	}
	s := normalised(g, 0.5)
	if s[0] != 1 || s[1] != 0 || math.Abs(s[2]-math.Sqrt(1/math.Sqrt(12.5))) > 1e-12 {
		t.Errorf("normalised: %v", s)
	}
}

// TestAlignmentSeesRelevance: a feature y depends on (even through a
// non-monotone function) aligns far better than a noise feature.
func TestAlignmentSeesRelevance(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const n = 200
	x := mat.NewDense(n, 3, nil)
	y := make([]float64, n)
	for i := range n {
		for j := range 3 {
			x.Set(i, j, rng.NormFloat64())
		}
		y[i] = x.At(i, 0)*x.At(i, 0) + x.At(i, 1) + 0.1*rng.NormFloat64()
	}
	a := alignment(x, y, 1)
	if !(a[0] > 5*a[2] && a[1] > 5*a[2]) {
		t.Errorf("alignment %v: want features 0 and 1 far above the noise feature 2", a)
	}
}
