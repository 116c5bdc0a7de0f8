package kpls

import (
	"context"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestPredictOutsideLinear: for the linear kernel with as many components
// as features, both rules against oracles computed here from the raw
// inputs: the distance rule is the excess over each feature's training
// range, and the leverage is ordinary least squares' hat value
// 1/n + (z − x̄)ᵀ(X_cᵀX_c)⁻¹(z − x̄). The points are made so that each rule
// flags one alone, both flag one, and neither flags the training rows.
func TestPredictOutsideLinear(t *testing.T) {
	ctx := context.Background()
	const n, d = 50, 2
	x := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := range n {
		// Two strongly correlated features spanning [0, 1] and about it.
		u := float64(i) / (n - 1)
		v := u + 0.05*math.Sin(float64(7*i))
		x.Set(i, 0, u)
		x.Set(i, 1, v)
		y[i] = 2*u - v + 0.1*math.Cos(float64(3*i))
	}
	m, err := Fit(ctx, Data{X: x, Y: vec(y)}, Options{Kernel: Linear{}, Components: d, DoF: DoFNone}, nil)
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := []float64{math.Inf(1), math.Inf(1)}, []float64{math.Inf(-1), math.Inf(-1)}
	for i := range n {
		for j := range d {
			v := x.At(i, j)
			lo[j], hi[j] = min(lo[j], v), max(hi[j], v)
		}
	}
	hat := olsHat(t, x)
	mid := (lo[1] + hi[1]) / 2
	pts := [][]float64{
		x.RawRowView(0), x.RawRowView(n / 2), // training rows
		{lo[0], hi[1]},                   // inside the box, against the correlation: leverage alone
		{hi[0] + 0.5*(hi[0]-lo[0]), mid}, // half a range beyond feature 0 and against the correlation: both
		{hi[0] + 0.05*(hi[0]-lo[0]), hi[1] + 0.05*(hi[1]-lo[1])}, // 5 % beyond both ranges, along the data: neither
	}
	z := mat.NewDense(len(pts), d, nil)
	for i, p := range pts {
		z.SetRow(i, p)
	}
	yhat, ex, err := m.predictOutside(ctx, z, d)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := m.predictAt(ctx, z, d)
	if err != nil {
		t.Fatal(err)
	}
	if ex.Measure != "range_excess" || ex.Threshold != RangeExcessMax {
		t.Errorf("measure %q threshold %g, want range_excess %g", ex.Measure, ex.Threshold, RangeExcessMax)
	}
	var far, high, count int
	for i, p := range pts {
		excess := 0.0
		for j, v := range p {
			excess = max(excess, (lo[j]-v)/(hi[j]-lo[j]), (v-hi[j])/(hi[j]-lo[j]))
		}
		h := hat(p)
		if e := math.Abs(ex.Distance[i] - excess); !(e <= 1e-12) {
			t.Errorf("point %d: range excess %.15g, want %.15g", i, ex.Distance[i], excess)
		}
		if e := relErr(ex.Leverage[i], h); !(e <= 1e-9) {
			t.Errorf("point %d: leverage %.12g, OLS hat value %.12g", i, ex.Leverage[i], h)
		}
		isFar, isHigh := excess > RangeExcessMax, h > LeverageLimit
		if ex.Outside[i] != (isFar || isHigh) {
			t.Errorf("point %d (excess %.3g, leverage %.3g): outside %v", i, excess, h, ex.Outside[i])
		}
		far, high = far+b2i(isFar), high+b2i(isHigh)
		count += b2i(isFar || isHigh)
		if yhat[i] != plain[i] {
			t.Errorf("point %d: ŷ %v, Predict %v", i, yhat[i], plain[i])
		}
	}
	// The points were made to cover each case; check they do.
	wantOut := []bool{false, false, true, true, false}
	for i, w := range wantOut {
		if ex.Outside[i] != w {
			t.Errorf("point %d: outside %v, the design wants %v", i, ex.Outside[i], w)
		}
	}
	if ex.Far != far || ex.HighLeverage != high || ex.Count != count || far != 1 || high != 2 {
		t.Errorf("counts far %d, high %d, outside %d; oracle %d, %d, %d (the design wants 1, 2, 2)", ex.Far, ex.HighLeverage, ex.Count, far, high, count)
	}
}

// TestPredictOutsideRBF: for a kernel with a width the distance rule is
// the largest kernel value over the training rows, computed here from
// exp(−‖z − x_i‖²/(2w)) on raw features; a mean takes it from its first
// member and the leverage from its members' largest.
func TestPredictOutsideRBF(t *testing.T) {
	ctx := context.Background()
	const n, d, w = 40, 3, 2.0
	x, y := gaussData(n, d, 67)
	z := mat.NewDense(4, d, nil)
	z.SetRow(0, x.RawRowView(3))           // a training row: k = 1
	z.SetRow(1, []float64{0.3, -0.2, 0.1}) // among the data
	z.SetRow(2, []float64{4, 4, 4})        // beyond the data
	z.SetRow(3, []float64{40, -40, 0})     // far beyond: k underflows
	reach := func(k int) float64 {
		best := 0.0
		for i := range n {
			var s float64
			for j := range d {
				s += (z.At(k, j) - x.At(i, j)) * (z.At(k, j) - x.At(i, j))
			}
			best = max(best, math.Exp(-s/(2*w)))
		}
		return best
	}
	o := Options{Kernel: RBF{Width: w}, Components: 5, DoF: DoFNone, RawFeatures: true}
	m, err := Fit(ctx, Data{X: x, Y: vec(y)}, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	o.Kernel, o.Components = RBF{Width: 4 * w}, 3
	wide, err := Fit(ctx, Data{X: x, Y: vec(y)}, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	mean, err := NewMean(m, wide)
	if err != nil {
		t.Fatal(err)
	}
	_, one, err := m.predictOutside(ctx, z, m.Chosen().M)
	if err != nil {
		t.Fatal(err)
	}
	yhat, both, err := mean.predictOutside(ctx, z)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := mean.predict(ctx, z)
	if err != nil {
		t.Fatal(err)
	}
	levWide, err := wide.leverage(ctx, z, wide.Chosen().M)
	if err != nil {
		t.Fatal(err)
	}
	for _, ex := range []*Extrapolation{one, both} {
		if ex.Measure != "max_k" || ex.Threshold != ReachMin {
			t.Errorf("measure %q threshold %g, want max_k %g", ex.Measure, ex.Threshold, ReachMin)
		}
		for k := range 4 {
			want := reach(k)
			if e := math.Abs(ex.Distance[k] - want); !(e <= 1e-12) {
				t.Errorf("point %d: max_k %.15g, want %.15g", k, ex.Distance[k], want)
			}
			if ex.Outside[k] != (want < ReachMin || ex.Leverage[k] > LeverageLimit) {
				t.Errorf("point %d (max_k %.3g, leverage %.3g): outside %v", k, want, ex.Leverage[k], ex.Outside[k])
			}
		}
		if ex.Outside[0] || !ex.Outside[3] {
			t.Errorf("a training row outside %v, a point 40 widths away outside %v", ex.Outside[0], ex.Outside[3])
		}
	}
	for k := range 4 {
		if want := max(one.Leverage[k], levWide[k]); both.Leverage[k] != want {
			t.Errorf("point %d: the mean's leverage %v, its members' largest %v", k, both.Leverage[k], want)
		}
		if yhat[k] != plain[k] {
			t.Errorf("point %d: the mean's ŷ %v, Predict %v", k, yhat[k], plain[k])
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
