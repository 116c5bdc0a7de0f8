package kpls

import (
	"context"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestBandsExactPath: past the m where the Ritz polynomial reproduces
// α_m (here m ≥ 15 of an rbf fit to 300 rows), the bands take the exact
// path, the fit differentiated in reverse mode, and se/σ̂ still
// equals the norm of the gradient of f(x) by central differences of
// refits (1e-6); the forward Jacobian agrees with the Ritz path at m = 8
// (1e-7) and with the reverse path at m = 18 (1e-8).
func TestBandsExactPath(t *testing.T) {
	ctx := context.Background()
	x, y := gaussData(300, 2, 5)
	z := mat.NewDense(3, 2, []float64{0.1, 0.2, -0.5, 1, 2.5, -1})
	o := Options{Kernel: RBF{Width: 1}, Components: 20}
	m, err := Fit(ctx, Data{X: x, Y: vec(y)}, o, nil)
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
			t.Fatalf("m = %d: reverse path %v; the case no longer tests what it is for", comp, exact)
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
		b, err := m.predictBands(ctx, z, comp, bandOpts{})
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
	// The forward Jacobian (every direction, O(m·n³)) against the Ritz
	// path at m = 8 and against the reverse path at m = 18.
	for _, c := range []struct {
		comp int
		tol  float64
	}{{8, 1e-7}, {18, 1e-8}} {
		want, err := m.predictBands(ctx, z, c.comp, bandOpts{})
		if err != nil {
			t.Fatal(err)
		}
		got := forwardBands(t, m, z, c.comp)
		for i := range got {
			if relErr(got[i].SE, want[i].SE) > c.tol || relErr(got[i].Yhat, want[i].Yhat) > 1e-12 {
				t.Errorf("m = %d point %d: forward Jacobian %+v, bands %+v", c.comp, i, got[i], want[i])
			}
		}
	}
}

// forwardBands is PredictBands through the forward Jacobian J = ∂α/∂ỹ:
// h = C Jᵀk̃(x), C projecting off the vector K annihilates.
func forwardBands(t *testing.T, m *Model, z *mat.Dense, comp int) []bandValue {
	t.Helper()
	p, _ := z.Dims()
	n := m.n
	jac := alphaJacobian(t, m, comp)
	zs, _, _ := m.inputs(z)
	kx := make([]float64, p*n)
	m.centredCross(kx, zs, p)
	alpha := m.alpha[comp*n : (comp+1)*n]
	out := make([]bandValue, p)
	for i := range p {
		k := kx[i*n : (i+1)*n]
		h := make([]float64, n)
		var f float64
		for a := range n {
			f += k[a] * alpha[a]
			for j := range n {
				h[j] += k[a] * jac[a*n+j]
			}
		}
		var mean float64
		for j, v := range h {
			mean += m.rootWeight(j) * v
		}
		mean /= m.total()
		var h2 float64
		for j, v := range h {
			v -= mean * m.rootWeight(j)
			h2 += v * v
		}
		out[i] = bandOf(m.yMean+f, h2, m.total(), m.Stats()[comp].Sigma, 1, bandOpts{})
	}
	return out
}

// alphaJacobian returns ∂α_m/∂y_c (n×n, row a = ∂α_a/∂y_c), m = comp, by
// forward-mode differentiation of the fit along all n directions
// (exactDoF's arithmetic, accumulating ∂α): O(m·n³), the oracle for the
// bands' reverse path.
func alphaJacobian(t *testing.T, m *Model, comp int) []float64 {
	t.Helper()
	ctx := context.Background()
	kop, err := m.operator(ctx)
	if err != nil {
		t.Fatal(err)
	}
	n, bl := m.n, m.opts.Backend
	kr, err := nipals(ctx, bl, kop, m.yc, comp, nil)
	if err != nil || kr.steps < comp {
		t.Fatalf("refit: %v", err)
	}
	b := min(n, 128)
	e := newExactRun(bl, kop, m.yc, kr, comp, b)
	e.dA = make([]float64, n*b)
	jac := make([]float64, n*n)
	for c0 := 0; c0 < n; c0 += b {
		w := min(b, n-c0)
		clear(e.dYh)
		clear(e.dA)
		for i := 0; i < comp; i++ {
			if _, err := e.component(ctx, i, c0, w); err != nil {
				t.Fatal(err)
			}
		}
		for a := 0; a < n; a++ {
			copy(jac[a*n+c0:a*n+c0+w], e.dA[a*b:a*b+w])
		}
	}
	return jac
}

// TestBandsReverseWeighted: on a weighted model past the Ritz form, the
// reverse path's bands equal the forward Jacobian's (1e-8), and those of
// the fit to the rows repeated (1e-8).
func TestBandsReverseWeighted(t *testing.T) {
	ctx := context.Background()
	x, y := gaussData(150, 2, 7)
	z := mat.NewDense(2, 2, []float64{0.1, 0.2, -1, 0.5})
	w := make([]float64, 150)
	for i := range w {
		w[i] = float64(1 + i%3)
	}
	o := Options{Kernel: RBF{Width: 1}, Components: 22, DoF: DoFExact}
	m, err := Fit(ctx, Data{X: x, Y: vec(y), Weights: w}, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	xr, yr := repeated(x, y, w)
	rep, err := Fit(ctx, Data{X: xr, Y: vec(yr)}, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	comp := 22
	op, _ := m.operator(ctx)
	theta, _, _ := ritz(m.l, m.steps, comp)
	if m.ritzReproduces(ctx, op, theta, comp) {
		t.Fatalf("m = %d reproduces α on the Ritz path: the case no longer tests the reverse path", comp)
	}
	got, err := m.predictBands(ctx, z, comp, bandOpts{})
	if err != nil {
		t.Fatal(err)
	}
	fwd := forwardBands(t, m, z, comp)
	want, err := rep.predictBands(ctx, z, comp, bandOpts{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		if relErr(got[i].SE, fwd[i].SE) > 1e-8 || relErr(got[i].SE, want[i].SE) > 1e-8 {
			t.Errorf("point %d: reverse se %.12g, forward %.12g, repeated rows %.12g", i, got[i].SE, fwd[i].SE, want[i].SE)
		}
	}
}
