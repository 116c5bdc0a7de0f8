package kpls

import (
	"context"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestBandsExactPath: past the m where the Ritz polynomial reproduces
// α_m (here m ≥ 15 of an rbf fit to 300 rows), the bands take the exact
// path, the fit differentiated along every direction, and se/σ̂ still
// equals the norm of the gradient of f(x) by central differences of
// refits (1e-6); at m = 8, where the Ritz path holds (and
// TestBandsFiniteDifferences checks it), the two paths agree (1e-7).
func TestBandsExactPath(t *testing.T) {
	ctx := context.Background()
	x, y := gaussData(300, 2, 5)
	z := mat.NewDense(3, 2, []float64{0.1, 0.2, -0.5, 1, 2.5, -1})
	o := Options{Kernel: RBF{Width: 1}, Components: 20}
	m, err := Fit(ctx, x, y, o)
	if err != nil {
		t.Fatal(err)
	}
	op, err := m.operator(ctx)
	if err != nil {
		t.Fatal(err)
	}
	h := fdStep(y)
	for _, comp := range []int{8, 18} {
		theta, _, _ := ritz(m.l, m.steps, comp)
		if exact := !m.ritzReproduces(ctx, op, theta, comp); exact != (comp > 8) {
			t.Fatalf("m = %d: exact path %v; the case no longer tests what it is for", comp, exact)
		}
		if comp == 8 {
			continue
		}
		g2 := make([]float64, 3)
		yp := append([]float64(nil), y...)
		for j := range y {
			yp[j] = y[j] + h
			fp := refitPredict(t, x, yp, o, comp, z)
			yp[j] = y[j] - h
			fm := refitPredict(t, x, yp, o, comp, z)
			yp[j] = y[j]
			for i := range fp {
				g := (fp[i] - fm[i]) / (2 * h)
				g2[i] += g * g
			}
		}
		b, err := m.PredictBands(ctx, z, comp, BandOptions{})
		if err != nil {
			t.Fatalf("m = %d: %v", comp, err)
		}
		sigma := m.Stats()[comp].Sigma
		for i, bi := range b {
			if e := relErr(bi.SE/sigma, math.Sqrt(g2[i])); !(e <= 1e-6) {
				t.Errorf("m = %d point %d: se/σ̂ = %.10g, finite differences %.10g", comp, i, bi.SE/sigma, math.Sqrt(g2[i]))
			}
		}
	}
	// Both paths at m = 8: the exact one forced through the Jacobian.
	ritzBands, err := m.PredictBands(ctx, z, 8, BandOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := m.newBandRun(ctx, 8, 3)
	if err != nil {
		t.Fatal(err)
	}
	if r.jac, err = m.alphaJacobian(ctx, 8); err != nil {
		t.Fatal(err)
	}
	zs, _, _ := m.inputs(z)
	m.centredCross(r.kx, zs, 3)
	hv, f, _ := r.vectors(ctx, 3)
	n := m.N()
	for i := range 3 {
		var h2 float64
		for _, v := range hv[i*n : (i+1)*n] {
			h2 += v * v
		}
		got := band(m.yMean+f[i], h2, float64(n), m.Stats()[8].Sigma, 1, BandOptions{})
		if relErr(got.SE, ritzBands[i].SE) > 1e-7 || relErr(got.Yhat, ritzBands[i].Yhat) > 1e-12 {
			t.Errorf("point %d: exact path %+v, Ritz path %+v", i, got, ritzBands[i])
		}
	}
}
