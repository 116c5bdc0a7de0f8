package kpls

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// meanMember is one model of a mean in the tests: its options and m.
type meanMember struct {
	o    Options
	comp int
}

var meanMembers = []meanMember{
	{Options{Kernel: RBF{Width: 0.5}}, 3},
	{Options{Kernel: RBF{Width: 2}}, 4},
	{Options{Kernel: Linear{}}, 2},
}

// fitMembers fits each member to (x, y) with its m as the model's choice.
func fitMembers(t *testing.T, x *mat.Dense, y []float64, members []meanMember) []*Model {
	t.Helper()
	ms := make([]*Model, len(members))
	for i, mm := range members {
		o := mm.o
		o.Components, o.DoF = mm.comp, DoFExact
		m, err := Fit(context.Background(), Data{X: x, Y: vec(y)}, o, nil)
		if err != nil {
			t.Fatal(err)
		}
		if m.validComponents() < mm.comp {
			t.Fatalf("member %d: %d valid components, want %d", i, m.validComponents(), mm.comp)
		}
		m.chosen = &Choice{Criterion: CV, M: mm.comp}
		ms[i] = m
	}
	return ms
}

// refitMean predicts z with the mean of the members refitted to (x, y).
func refitMean(t *testing.T, x *mat.Dense, y []float64, z mat.Matrix) []float64 {
	t.Helper()
	var mean []float64
	for _, mm := range meanMembers {
		p := refitPredict(t, x, y, mm.o, mm.comp, z)
		if mean == nil {
			mean = make([]float64, len(p))
		}
		for i, v := range p {
			mean[i] += v / float64(len(meanMembers))
		}
	}
	return mean
}

// TestMeanFiniteDifferences checks a mean of three models (two widths of
// rbf, linear) against refits: its DoF against the trace of ∂ŷ/∂y at the
// training rows by central differences, its RSS against the residuals of
// predictions at the training inputs, σ̂² = RSS/(n − DoF) from those, and
// se(x)/σ̂ of its bands against the norm of the gradient of its prediction
// at new points (with and without the intercept's 1/n); the intervals'
// variance is the band's plus that σ̂².
func TestMeanFiniteDifferences(t *testing.T) {
	ctx := context.Background()
	x, y := gaussData(40, 3, 31)
	n, d := x.Dims()
	rng := rand.New(rand.NewPCG(5, 6))
	z := mat.NewDense(4, d, nil)
	for i := 0; i < 4; i++ {
		for j := 0; j < d; j++ {
			z.Set(i, j, x.At(rng.IntN(n), j)+0.3*rng.NormFloat64())
		}
	}
	mean, err := NewMean(fitMembers(t, x, y, meanMembers)...)
	if err != nil {
		t.Fatal(err)
	}
	h := fdStep(y)
	var trace float64
	grad2 := make([]float64, z.RawMatrix().Rows)
	grad2NoInt := make([]float64, len(grad2))
	yp := append([]float64(nil), y...)
	for j := 0; j < n; j++ {
		yp[j] = y[j] + h
		fp := refitMean(t, x, yp, x)
		zp := refitMean(t, x, yp, z)
		yp[j] = y[j] - h
		fm := refitMean(t, x, yp, x)
		zm := refitMean(t, x, yp, z)
		yp[j] = y[j]
		trace += (fp[j] - fm[j]) / (2 * h)
		for i := range zp {
			g := (zp[i] - zm[i]) / (2 * h)
			grad2[i] += g * g
			grad2NoInt[i] += (g - 1/float64(n)) * (g - 1/float64(n))
		}
	}
	fitted := refitMean(t, x, y, x)
	var rss float64
	for j, f := range fitted {
		rss += (y[j] - f) * (y[j] - f)
	}
	st := mean.stats
	if e := relErr(st.DoF, trace); !(e <= 1e-6) {
		t.Errorf("DoF %.10g, trace of the finite-difference hat matrix %.10g", st.DoF, trace)
	}
	if e := relErr(st.RSS, rss); !(e <= 1e-10) {
		t.Errorf("RSS %.12g, from predictions at the training rows %.12g", st.RSS, rss)
	}
	sigma := math.Sqrt(rss / (float64(n) - trace))
	if e := relErr(st.Sigma, sigma); !(e <= 1e-6) {
		t.Errorf("σ̂ %.10g, from the finite differences %.10g", st.Sigma, sigma)
	}
	for _, noInt := range []bool{false, true} {
		opt := bandOpts{Level: 0.95, NoIntercept: noInt}
		b, err := mean.predictBands(ctx, z, opt)
		if err != nil {
			t.Fatal(err)
		}
		iv, err := mean.predictIntervals(ctx, z, opt)
		if err != nil {
			t.Fatal(err)
		}
		for i, bi := range b {
			want := math.Sqrt(grad2[i])
			if noInt {
				want = math.Sqrt(grad2NoInt[i])
			}
			if e := relErr(bi.SE/st.Sigma, want); !(e <= 1e-5) {
				t.Errorf("point %d (no intercept %v): se/σ̂ = %.10g, finite differences %.10g", i, noInt, bi.SE/st.Sigma, want)
			}
			if e := relErr(iv[i].SE*iv[i].SE, sigma*sigma*(want*want+1)); !(e <= 1e-5) {
				t.Errorf("point %d: interval se² %.10g, σ̂²(‖gradient‖² + 1) = %.10g", i, iv[i].SE*iv[i].SE, sigma*sigma*(want*want+1))
			}
			if zq := (iv[i].Upper - iv[i].Yhat) / iv[i].SE; !(math.Abs(zq-1.959963984540054) <= 1e-9) {
				t.Errorf("95%% interval uses z = %.12g", zq)
			}
		}
		plain, err := mean.predict(ctx, z)
		if err != nil {
			t.Fatal(err)
		}
		direct := refitMean(t, x, y, z)
		for i := range plain {
			if e := math.Abs(plain[i] - direct[i]); e > 1e-10 || math.Abs(b[i].Yhat-direct[i]) > 1e-10 {
				t.Errorf("point %d: Predict %v, bands' ŷ %v, mean of fits %v", i, plain[i], b[i].Yhat, direct[i])
			}
		}
	}
}

// TestMeanOfOne: a mean of one model predicts, bands and scores as the
// model at its chosen m.
func TestMeanOfOne(t *testing.T) {
	ctx := context.Background()
	x, y := gaussData(40, 3, 32)
	z, _ := gaussData(7, 3, 33)
	m := fitMembers(t, x, y, meanMembers[:1])[0]
	mean, err := NewMean(m)
	if err != nil {
		t.Fatal(err)
	}
	comp := m.Chosen().M
	want, err := m.predictBands(ctx, z, comp, bandOpts{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := mean.predictBands(ctx, z, bandOpts{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		if relErr(got[i].Yhat, want[i].Yhat) > 1e-12 || relErr(got[i].SE, want[i].SE) > 1e-12 {
			t.Errorf("point %d: mean %+v, model %+v", i, got[i], want[i])
		}
	}
	if s, w := mean.stats, m.Stats()[comp]; relErr(s.RSS, w.RSS) > 1e-10 || s.DoF != w.DoF || relErr(s.Sigma, w.Sigma) > 1e-10 {
		t.Errorf("stats: mean %+v, model %+v", s, w)
	}
}

// TestNewMeanRefuses models of other training data.
func TestNewMeanRefuses(t *testing.T) {
	x, y := gaussData(40, 3, 34)
	a := fitMembers(t, x, y, meanMembers[:1])[0]
	y2 := append([]float64(nil), y...)
	y2[3] += 1
	b := fitMembers(t, x, y2, meanMembers[:1])[0]
	x3, y3 := gaussData(41, 3, 34)
	c := fitMembers(t, x3, y3, meanMembers[:1])[0]
	for name, ms := range map[string][]*Model{"none": nil, "nil": {a, nil}, "other response": {a, b}, "other rows": {a, c}} {
		if _, err := NewMean(ms...); !errors.Is(err, ErrShape) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestMeanBandsInBlocks: the mean's bands over 300 points in blocks of
// 128 (the members taking turns per block) equal those in one block, to
// rounding.
func TestMeanBandsInBlocks(t *testing.T) {
	ctx := context.Background()
	x, y := gaussData(40, 3, 34)
	z, _ := gaussData(300, 3, 35)
	mean, err := NewMean(fitMembers(t, x, y, meanMembers)...)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := mean.predictIntervals(ctx, z, bandOpts{Level: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	defer func(b int) { meanBandBytes = b }(meanBandBytes)
	meanBandBytes = 8 * 40 // one point: the block is bandChunk's 128
	blocks, err := mean.predictIntervals(ctx, z, bandOpts{Level: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	for i := range whole {
		if relErr(blocks[i].Yhat, whole[i].Yhat) > 1e-12 || relErr(blocks[i].SE, whole[i].SE) > 1e-10 {
			t.Errorf("point %d: in blocks %+v, in one %+v", i, blocks[i], whole[i])
		}
	}
}

// TestBandProgressPerBlock: intervals for 300 points from a mean of
// three report progress after every block of every member (128, 128
// and 44 points each, members taking turns), counting each point once
// per member, from 0 to the total and never back; the values equal
// those computed without a progress callback.
func TestBandProgressPerBlock(t *testing.T) {
	ctx := context.Background()
	x, y := gaussData(40, 3, 34)
	z, _ := gaussData(300, 3, 35)
	mean, err := NewMean(fitMembers(t, x, y, meanMembers)...)
	if err != nil {
		t.Fatal(err)
	}
	defer func(b int) { meanBandBytes = b }(meanBandBytes)
	meanBandBytes = 8 * 40 // the mean's block is bandChunk's 128 points
	var got []Progress
	opt := PredictOptions{Uncertainty: PredictionInterval, Level: 0.9, Progress: func(p Progress) { got = append(got, p) }}
	p, err := mean.Predict(ctx, z, opt)
	if err != nil {
		t.Fatal(err)
	}
	var want []int
	for done, b := 0, 0; b < 300; b += 128 {
		for range meanMembers {
			done += min(128, 300-b)
			want = append(want, done)
		}
	}
	if len(got) != len(want)+1 || got[0].Done != 0 {
		t.Fatalf("%d reports starting at %+v, want %d starting at 0: %+v", len(got), got[0], len(want)+1, got)
	}
	for i, w := range want {
		if g := got[i+1]; g.Stage != StageBands || g.Done != w || g.Total != 300*len(meanMembers) {
			t.Errorf("report %d: %+v, want bands %d of %d", i+1, g, w, 300*len(meanMembers))
		}
	}
	opt.Progress = nil
	q, err := mean.Predict(ctx, z, opt)
	if err != nil {
		t.Fatal(err)
	}
	for i := range q.SE {
		if p.SE[i] != q.SE[i] || p.Yhat[i] != q.Yhat[i] {
			t.Fatalf("point %d: with progress %g ± %g, without %g ± %g", i, p.Yhat[i], p.SE[i], q.Yhat[i], q.SE[i])
		}
	}
}

// TestModelBandProgressPerBlock: a model's bands for 300 points report
// after each of its blocks of bandChunk points.
func TestModelBandProgressPerBlock(t *testing.T) {
	x, y := gaussData(40, 3, 34)
	z, _ := gaussData(300, 3, 35)
	m := fitMembers(t, x, y, meanMembers[:1])[0]
	var got []int
	_, err := m.Predict(context.Background(), z, PredictOptions{Uncertainty: ConfidenceBand, Progress: func(p Progress) {
		if p.Total != 300 {
			t.Errorf("total %d, want 300", p.Total)
		}
		got = append(got, p.Done)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{0, 128, 256, 300}; !slices.Equal(got, want) {
		t.Errorf("progress %v, want %v", got, want)
	}
}
