package kpls

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestLeverageLinearIsOLSHat: with the linear kernel and as many
// components as features, the scores span the centred inputs' columns, so
// the leverage of any point is ordinary least squares' hat value with an
// intercept, 1/n + (z − x̄)ᵀ(X_cᵀX_c)⁻¹(z − x̄), computed here from the raw
// inputs by a solve (the hat value does not change under the model's
// standardisation). Points at the training rows and new ones, a few far
// out along the inputs' thinnest direction (leverage above 1).
func TestLeverageLinearIsOLSHat(t *testing.T) {
	ctx := context.Background()
	const n, d = 50, 4
	x, y := gaussData(n, d, 61)
	m, err := Fit(ctx, Data{X: x, Y: vec(y)}, Options{Kernel: Linear{}, Components: d, DoF: DoFNone}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.validComponents() != d {
		t.Fatalf("%d valid components, want %d", m.validComponents(), d)
	}
	rng := rand.New(rand.NewPCG(6, 1))
	z := mat.NewDense(n+8, d, nil)
	for i := range n {
		z.SetRow(i, x.RawRowView(i))
	}
	for i := n; i < n+8; i++ {
		for j := range d {
			z.Set(i, j, (1+float64(i-n))*rng.NormFloat64())
		}
	}
	hat := olsHat(t, x)
	got, err := m.leverage(ctx, z, d)
	if err != nil {
		t.Fatal(err)
	}
	above := 0
	for i := range n + 8 {
		want := hat(z.RawRowView(i))
		if e := relErr(got[i], want); !(e <= 1e-9) {
			t.Errorf("row %d: leverage %.12g, OLS hat value %.12g", i, got[i], want)
		}
		if got[i] > LeverageLimit {
			above++
		}
	}
	if above == 0 {
		t.Error("no point above the leverage limit: the test's far points are not far")
	}
}

// olsHat returns the hat value of a point in ordinary least squares on
// the columns of x with an intercept: 1/n + (z − x̄)ᵀ(X_cᵀX_c)⁻¹(z − x̄), by
// a Cholesky solve.
func olsHat(t *testing.T, x *mat.Dense) func(z []float64) float64 {
	t.Helper()
	n, d := x.Dims()
	mean := make([]float64, d)
	for i := range n {
		for j := range d {
			mean[j] += x.At(i, j) / float64(n)
		}
	}
	xc := mat.NewDense(n, d, nil)
	xc.Apply(func(_, j int, v float64) float64 { return v - mean[j] }, x)
	var gram mat.SymDense
	gram.SymOuterK(1, xc.T())
	var chol mat.Cholesky
	if !chol.Factorize(&gram) {
		t.Fatal("X_cᵀX_c is not positive definite")
	}
	return func(z []float64) float64 {
		zc := mat.NewVecDense(d, nil)
		for j := range d {
			zc.SetVec(j, z[j]-mean[j])
		}
		var sol mat.VecDense
		if err := chol.SolveVecTo(&sol, zc); err != nil {
			t.Fatal(err)
		}
		return 1/float64(n) + mat.Dot(zc, &sol)
	}
}

// TestLeverageTrainingRows: at the training rows, for every m, the
// leverages of an RBF model (computed from kernel vectors of the inputs,
// as for new points) lie in [1/n, 1] and sum to 1 + m, the trace of the
// hat matrix of the intercept and m orthonormal scores.
func TestLeverageTrainingRows(t *testing.T) {
	ctx := context.Background()
	const n = 60
	x, y := gaussData(n, 3, 62)
	m, err := Fit(ctx, Data{X: x, Y: vec(y)}, Options{Kernel: RBF{Width: 2}, Components: 8, DoF: DoFNone}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, comp := range []int{0, 3, 8} {
		h, err := m.leverage(ctx, x, comp)
		if err != nil {
			t.Fatal(err)
		}
		var sum float64
		for i, v := range h {
			sum += v
			if !(v >= 1/float64(n)-1e-12 && v <= 1+1e-12) {
				t.Errorf("m = %d, row %d: leverage %.12g outside [1/n, 1]", comp, i, v)
			}
		}
		if e := math.Abs(sum - float64(1+comp)); !(e <= 1e-9) {
			t.Errorf("m = %d: the training leverages sum to %.12g, want %d", comp, sum, 1+comp)
		}
	}
	if _, err := m.leverage(ctx, x, 9); err == nil {
		t.Error("a leverage past the valid components gave no error")
	}
}

// TestLeverageWeights: a fit with whole weights has the leverages of the
// fit to its rows repeated, at new points and in N = Σw.
func TestLeverageWeights(t *testing.T) {
	ctx := context.Background()
	x, y := gaussData(40, 3, 63)
	z, _ := gaussData(9, 3, 64)
	rng := rand.New(rand.NewPCG(9, 10))
	w := make([]float64, 40)
	for i := range w {
		w[i] = float64(rng.IntN(4))
	}
	xr, yr := repeated(x, y, w)
	o := Options{Kernel: RBF{Width: 2}, Components: 5, DoF: DoFNone}
	rep, err := Fit(ctx, Data{X: xr, Y: vec(yr)}, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	wf, err := Fit(ctx, Data{X: x, Y: vec(y), Weights: w}, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, err := rep.leverage(ctx, z, 5)
	if err != nil {
		t.Fatal(err)
	}
	got, err := wf.leverage(ctx, z, 5)
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		if e := relErr(got[i], want[i]); !(e <= 1e-8) {
			t.Errorf("point %d: weighted leverage %.12g, repeated rows %.12g", i, got[i], want[i])
		}
	}
}

// TestMeanLeverage: a mean's leverage is its members' largest, each at its
// own m, and PredictDiagnostics predicts as Predict, with the first
// member's reach.
func TestMeanLeverage(t *testing.T) {
	ctx := context.Background()
	x, y := gaussData(40, 3, 65)
	z, _ := gaussData(7, 3, 66)
	ms := fitMembers(t, x, y, meanMembers)
	mean, err := NewMean(ms...)
	if err != nil {
		t.Fatal(err)
	}
	got, err := mean.leverage(ctx, z)
	if err != nil {
		t.Fatal(err)
	}
	yhat, reach, _, err := mean.predictDiagnostics(ctx, z)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := mean.predict(ctx, z)
	if err != nil {
		t.Fatal(err)
	}
	firstReach, err := ms[0].reach(z)
	if err != nil {
		t.Fatal(err)
	}
	for i := range plain {
		if yhat[i] != plain[i] || reach[i] != firstReach[i] {
			t.Errorf("point %d: diagnostics ŷ %v reach %v, Predict %v, the first member's Reach %v", i, yhat[i], reach[i], plain[i], firstReach[i])
		}
	}
	for i := range got {
		want := math.Inf(-1)
		for k, m := range ms {
			h, err := m.leverage(ctx, z.Slice(i, i+1, 0, 3), meanMembers[k].comp)
			if err != nil {
				t.Fatal(err)
			}
			want = max(want, h[0])
		}
		if got[i] != want {
			t.Errorf("point %d: the mean's leverage %v, its members' largest %v", i, got[i], want)
		}
	}
}
