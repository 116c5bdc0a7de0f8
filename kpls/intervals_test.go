package kpls

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestIntervalsOLS: with the linear kernel and as many components as
// features, kernel PLS is least squares, and the interval's variance has
// the textbook closed form σ̂²(1 + 1/n + x_cᵀ(X_cᵀX_c)⁻¹x_c) with σ̂² =
// RSS/(n − d − 1), computed here with gonum from the centred inputs.
func TestIntervalsOLS(t *testing.T) {
	const n, d = 40, 3
	r := rand.New(rand.NewPCG(4, 1))
	x := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := range n {
		for j := range d {
			x.Set(i, j, r.NormFloat64())
		}
		y[i] = x.At(i, 0) - 2*x.At(i, 2) + 0.5*r.NormFloat64()
	}
	z := mat.NewDense(5, d, nil)
	for i := range 5 {
		for j := range d {
			z.Set(i, j, 2*r.NormFloat64())
		}
	}
	m, err := Fit(context.Background(), Data{X: x, Y: vec(y)}, Options{Kernel: Linear{}, Components: d, DoF: DoFExact, RawFeatures: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := m.predictIntervals(context.Background(), z, d, bandOpts{Level: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	// Least squares by hand on the centred inputs.
	mean := make([]float64, d)
	for j := range d {
		mean[j] = mat.Sum(x.ColView(j)) / n
	}
	xc := mat.NewDense(n, d, nil)
	xc.Apply(func(i, j int, v float64) float64 { return v - mean[j] }, x)
	var xtx, inv mat.Dense
	xtx.Mul(xc.T(), xc)
	if err := inv.Inverse(&xtx); err != nil {
		t.Fatal(err)
	}
	var beta, xty mat.VecDense
	ybar := 0.0
	for _, v := range y {
		ybar += v / n
	}
	yc := make([]float64, n)
	for i, v := range y {
		yc[i] = v - ybar
	}
	xty.MulVec(xc.T(), mat.NewVecDense(n, yc))
	beta.MulVec(&inv, &xty)
	var rss float64
	for i := range n {
		e := yc[i] - mat.Dot(xc.RowView(i), &beta)
		rss += e * e
	}
	s2 := rss / (n - d - 1)
	const zq = 1.6448536269514722 // the normal 95 % quantile, for 90 % two-sided
	for i := range 5 {
		v := mat.NewVecDense(d, nil)
		for j := range d {
			v.SetVec(j, z.At(i, j)-mean[j])
		}
		var w mat.VecDense
		w.MulVec(&inv, v)
		se := math.Sqrt(s2 * (1 + 1.0/n + mat.Dot(v, &w)))
		yhat := ybar + mat.Dot(v, &beta)
		b := got[i]
		if relErr(b.SE, se) > 1e-9 || math.Abs(b.Yhat-yhat) > 1e-9*(1+math.Abs(yhat)) || relErr(b.Upper-b.Lower, 2*zq*se) > 1e-9 {
			t.Errorf("point %d: ŷ %g se %g [%g, %g]; least squares ŷ %g se %g", i, b.Yhat, b.SE, b.Lower, b.Upper, yhat, se)
		}
	}
}

// TestIntervalsCoverage simulates data with known Gaussian noise around
// a smooth function and counts how often 95 % intervals from a model
// fitted to 400 rows (m by GCV) cover new observations: pooled over 10
// data sets of 1000 new points each, the share must be within 92–98 %
// (the binomial spread of 10⁴ draws is ±0.4 %; the rest is what the
// first-order variance and the fit's small bias may cost). Bands for
// f(x) alone must cover the new y clearly less often.
func TestIntervalsCoverage(t *testing.T) {
	const n, p, sets, sigma = 400, 1000, 10, 0.3
	f := func(a, b float64) float64 { return math.Sin(2*a) + 0.5*b*b }
	draw := func(r *rand.Rand, rows int) (*mat.Dense, []float64) {
		x := mat.NewDense(rows, 2, nil)
		y := make([]float64, rows)
		for i := range rows {
			a, b := 4*r.Float64()-2, 2*r.Float64()-1
			x.Set(i, 0, a)
			x.Set(i, 1, b)
			y[i] = f(a, b) + sigma*r.NormFloat64()
		}
		return x, y
	}
	var inside, insideBand, total int
	for s := range sets {
		r := rand.New(rand.NewPCG(uint64(s), 11))
		x, y := draw(r, n)
		xn, yn := draw(r, p)
		m, err := Fit(context.Background(), Data{X: x, Y: vec(y)}, Options{Kernel: RBF{Width: 0.5}, Components: 15, Seed: uint64(s)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		c := m.Chosen().M
		iv, err := m.predictIntervals(context.Background(), xn, c, bandOpts{Level: 0.95})
		if err != nil {
			t.Fatal(err)
		}
		bd, err := m.predictBands(context.Background(), xn, c, bandOpts{Level: 0.95})
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range yn {
			if v >= iv[i].Lower && v <= iv[i].Upper {
				inside++
			}
			if v >= bd[i].Lower && v <= bd[i].Upper {
				insideBand++
			}
			total++
		}
	}
	cov, covBand := float64(inside)/float64(total), float64(insideBand)/float64(total)
	t.Logf("coverage of new y: intervals %.2f %%, bands %.2f %%", 100*cov, 100*covBand)
	if cov < 0.92 || cov > 0.98 {
		t.Errorf("95 %% intervals cover %.2f %% of new observations", 100*cov)
	}
	if covBand > 0.8 {
		t.Errorf("95 %% bands for f(x) cover %.2f %% of new observations: they should not cover the noise", 100*covBand)
	}
}

// TestIntervalsNearInterpolation: a rough kernel with many components
// fits close to interpolation, and σ̂ = √(RSS/(n − DoF)) falls far below
// the noise. Cross-validation measured the error on new data, so the
// intervals of a model it chose take RMSECV as the noise level when it is
// larger: se_y² = se² + RMSECV². Simulated with known noise, as
// TestIntervalsCoverage: intervals from σ̂ alone must cover clearly
// less than the level (the case this guards), those from RMSECV within
// 92–99 %, for single models and for Select's mean.
func TestIntervalsNearInterpolation(t *testing.T) {
	const n, p, sets, sigma = 300, 1000, 4, 0.3
	const d = 6
	draw := func(r *rand.Rand, rows int) (*mat.Dense, []float64) {
		x := mat.NewDense(rows, d, nil)
		y := make([]float64, rows)
		for i := range rows {
			for j := range d {
				v := 2*r.Float64() - 1
				x.Set(i, j, v)
				y[i] += math.Sin(3 * v)
			}
			y[i] += sigma * r.NormFloat64()
		}
		return x, y
	}
	var inside, insideSigma, insideMean, total int
	for s := range sets {
		r := rand.New(rand.NewPCG(uint64(s), 12))
		x, y := draw(r, n)
		xn, yn := draw(r, p)
		sel, err := Select(context.Background(), Data{X: x, Y: vec(y)}, SelectOptions{Seed: uint64(s), Kernels: []Kernel{Laplacian{}}, By: CrossValidation{AverageWithin: DefaultAverageWithin}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		m := sel.Model
		c := m.Chosen()
		sig := m.Stats()[c.M].Sigma
		if !(sig < 0.8*c.RMSECV) {
			t.Fatalf("set %d: σ̂ %.3g against RMSECV %.3g at m = %d: the fit is not close enough to interpolation to test this", s, sig, c.RMSECV, c.M)
		}
		if ns, cv := m.noiseLevel(c.M); ns != c.RMSECV || !cv {
			t.Errorf("set %d: NoiseLevel(%d) = %g, %v; want the RMSECV %g", s, c.M, ns, cv, c.RMSECV)
		}
		if ns, _ := m.noiseLevel(m.validComponents() + 1); !math.IsNaN(ns) {
			t.Errorf("set %d: NoiseLevel past the valid components = %g, want NaN", s, ns)
		}
		if ns, cv := m.noiseLevel(c.M - 1); ns != m.Stats()[c.M-1].Sigma || cv {
			t.Errorf("set %d: NoiseLevel(%d) = %g, %v; want σ̂ %g (no RMSECV for an m not chosen)", s, c.M-1, ns, cv, m.Stats()[c.M-1].Sigma)
		}
		iv, err := m.predictIntervals(context.Background(), xn, c.M, bandOpts{Level: 0.95})
		if err != nil {
			t.Fatal(err)
		}
		bd, err := m.predictBands(context.Background(), xn, c.M, bandOpts{Level: 0.95})
		if err != nil {
			t.Fatal(err)
		}
		z := (iv[0].Upper - iv[0].Yhat) / iv[0].SE
		mv, err := sel.mean().predictIntervals(context.Background(), xn, bandOpts{Level: 0.95})
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range yn {
			if want := math.Sqrt(bd[i].SE*bd[i].SE + c.RMSECV*c.RMSECV); !(relErr(iv[i].SE, want) <= 1e-12) {
				t.Fatalf("set %d, point %d: se_y %.15g, want √(se² + RMSECV²) = %.15g", s, i, iv[i].SE, want)
			}
			if v >= iv[i].Lower && v <= iv[i].Upper {
				inside++
			}
			// The band from σ̂: its se scales with the noise level.
			if seSigma := bd[i].SE * sig / c.RMSECV; math.Abs(v-bd[i].Yhat) <= z*math.Sqrt(seSigma*seSigma+sig*sig) {
				insideSigma++
			}
			if v >= mv[i].Lower && v <= mv[i].Upper {
				insideMean++
			}
			total++
		}
	}
	cov, covSigma, covMean := float64(inside)/float64(total), float64(insideSigma)/float64(total), float64(insideMean)/float64(total)
	t.Logf("coverage of new y: with RMSECV %.2f %%, with σ̂ %.2f %%, the mean %.2f %%", 100*cov, 100*covSigma, 100*covMean)
	if cov < 0.92 || cov > 0.99 || covMean < 0.92 || covMean > 0.99 {
		t.Errorf("95 %% intervals cover %.2f %% (model) and %.2f %% (mean) of new observations", 100*cov, 100*covMean)
	}
	if covSigma > 0.88 {
		t.Errorf("intervals from σ̂ cover %.2f %%: the data do not exercise the near-interpolating case", 100*covSigma)
	}
}

// TestBandsCoverWithRMSECV simulates data with a known f and noise, where
// the RBF fits without much bias: the bands of Select's model and of its
// mean, scaled by the RMSECV (NoiseLevel), cover f(x) at new points near
// the level asked for, where bands from σ̂ fell short. It also checks
// what the mean is made of when the DoF are asked for: the best model
// with its approximate DoF (σ̂ the paper's), the others fitted without
// DoF, and so no DoF or σ̂ for the mean.
func TestBandsCoverWithRMSECV(t *testing.T) {
	const n, p, sets, sigma, d = 300, 500, 4, 0.3, 6
	draw := func(r *rand.Rand, rows int) (x *mat.Dense, y, f []float64) {
		x = mat.NewDense(rows, d, nil)
		y, f = make([]float64, rows), make([]float64, rows)
		for i := range rows {
			for j := range d {
				v := 2*r.Float64() - 1
				x.Set(i, j, v)
				f[i] += math.Sin(3 * v)
			}
			y[i] = f[i] + sigma*r.NormFloat64()
		}
		return x, y, f
	}
	var inside, insideSigma, insideMean, total, means int
	for s := range sets {
		r := rand.New(rand.NewPCG(uint64(s), 12))
		x, y, _ := draw(r, n)
		xn, _, fn := draw(r, p)
		sel, err := Select(context.Background(), Data{X: x, Y: vec(y)}, SelectOptions{Seed: uint64(s), DoF: DoFApprox, Kernels: []Kernel{RBF{}}, By: CrossValidation{AverageWithin: DefaultAverageWithin}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		m, c := sel.Model, sel.Model.Chosen()
		sig := m.Stats()[c.M].Sigma
		if ns, cv := m.noiseLevel(c.M); ns != c.RMSECV || !cv {
			t.Fatalf("set %d: NoiseLevel = %g, %v; want the RMSECV %g (σ̂ %g)", s, ns, cv, c.RMSECV, sig)
		}
		bd, err := m.predictBands(context.Background(), xn, c.M, bandOpts{Level: 0.95})
		if err != nil {
			t.Fatal(err)
		}
		members := sel.mean().Members()
		if len(members) > 1 {
			means++
		}
		var cv2 float64
		for k, mk := range members {
			want := DoFNone
			if k == 0 {
				want = DoFApprox
			}
			if got := mk.Options().DoF; got != want {
				t.Errorf("set %d, member %d: DoF %q, want %q", s, k, got, want)
			}
			cv2 += mk.Chosen().RMSECV * mk.Chosen().RMSECV / float64(len(members))
		}
		if st := sel.mean().stats; len(members) > 1 && (!math.IsNaN(st.DoF) || !math.IsNaN(st.Sigma)) {
			t.Errorf("set %d: the mean's DoF %g and σ̂ %g from members' DoF of different methods", s, st.DoF, st.Sigma)
		}
		if ns, cv := sel.mean().noiseLevel(); ns != math.Sqrt(cv2) || !cv {
			t.Errorf("set %d: the mean's NoiseLevel = %g, %v; want the root mean RMSECV² %g", s, ns, cv, math.Sqrt(cv2))
		}
		mb, err := sel.mean().predictBands(context.Background(), xn, bandOpts{Level: 0.95})
		if err != nil {
			t.Fatal(err)
		}
		z := (bd[0].Upper - bd[0].Yhat) / bd[0].SE
		for i, f := range fn {
			if math.Abs(f-bd[i].Yhat) <= z*bd[i].SE {
				inside++
			}
			if math.Abs(f-bd[i].Yhat) <= z*bd[i].SE*sig/c.RMSECV {
				insideSigma++
			}
			if math.Abs(f-mb[i].Yhat) <= z*mb[i].SE {
				insideMean++
			}
			total++
		}
	}
	cov, covSigma, covMean := float64(inside)/float64(total), float64(insideSigma)/float64(total), float64(insideMean)/float64(total)
	t.Logf("coverage of f(x): bands from RMSECV %.2f %%, from σ̂ %.2f %%, the mean's %.2f %%", 100*cov, 100*covSigma, 100*covMean)
	if cov < 0.92 || cov > 0.99 || covMean < 0.92 || covMean > 0.99 {
		t.Errorf("95 %% bands cover %.2f %% (model) and %.2f %% (mean) of f(x)", 100*cov, 100*covMean)
	}
	if covSigma >= 0.92 {
		t.Errorf("bands from σ̂ cover %.2f %%: the data do not show why the RMSECV is taken", 100*covSigma)
	}
	if means < sets/2 {
		t.Errorf("only %d of %d sets average several models", means, sets)
	}
}
