package kpls

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// predictorData is a small smooth response of three features.
func predictorData(n int, seed float64) (*mat.Dense, []float64) {
	x := mat.NewDense(n, 3, nil)
	y := make([]float64, n)
	for i := range n {
		a, b, c := math.Sin(seed+float64(i)), math.Cos(0.7*float64(i)), float64(i%5)/4
		x.SetRow(i, []float64{a, b, c})
		y[i] = a*b + c + 0.05*math.Sin(13*float64(i))
	}
	return x, y
}

func sameBitsOf(t *testing.T, what string, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			t.Errorf("%s %d: %v, want %v", what, i, got[i], want[i])
		}
	}
}

// TestPredictKeepsEveryPath: Predict answers, bit for bit, what the
// paths it replaced answered (each tested against its own oracle: the
// bands against refits in bands_exact_test.go, the leverage against its
// definition in leverage_test.go), for a model at its chosen m, at
// another m through At, and for a mean of several, from a file.
func TestPredictKeepsEveryPath(t *testing.T) {
	ctx := context.Background()
	x, y := predictorData(120, 0)
	z, _ := predictorData(9, 3)
	m, err := Fit(ctx, Data{X: x, Y: vec(y)}, Options{Components: 6, DoF: DoFExact}, nil)
	if err != nil {
		t.Fatal(err)
	}
	other, err := Fit(ctx, Data{X: x, Y: vec(y)}, Options{Kernel: Laplacian{}, Components: 5, DoF: DoFExact}, nil)
	if err != nil {
		t.Fatal(err)
	}
	mean, err := NewMean(m, other)
	if err != nil {
		t.Fatal(err)
	}
	var file bytes.Buffer
	if err := Save(&file, mean); err != nil {
		t.Fatal(err)
	}
	ps, err := Load(&file)
	if err != nil || len(ps) != 1 {
		t.Fatalf("%d predictors, %v", len(ps), err)
	}
	loaded, ok := ps[0].(*Mean)
	if !ok {
		t.Fatalf("a file of a mean of two loads as a %T", ps[0])
	}
	at2, err := m.At(2)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		p    Predictor
		m    *Model // nil for the mean
		comp int
	}{{"model", m, m, m.Chosen().M}, {"model at 2", at2, m, 2}, {"mean", loaded, nil, 0}} {
		for _, u := range []Uncertainty{NoUncertainty, ConfidenceBand, PredictionInterval} {
			opt := PredictOptions{Uncertainty: u, Level: 0.9, Diagnostics: true}
			got, err := c.p.Predict(ctx, z, opt)
			if err != nil {
				t.Fatalf("%s %q: %v", c.name, u, err)
			}
			var want []bandValue
			var ex *Extrapolation
			bo := bandOpts{Level: 0.9}
			switch {
			case c.m != nil && u == NoUncertainty:
				yhat, e, err := c.m.predictOutside(ctx, z, c.comp)
				if err != nil {
					t.Fatal(err)
				}
				for _, v := range yhat {
					want = append(want, bandValue{Yhat: v})
				}
				ex = e
			case c.m != nil && u == ConfidenceBand:
				want, _ = c.m.predictBands(ctx, z, c.comp, bo)
			case c.m != nil:
				want, _ = c.m.predictIntervals(ctx, z, c.comp, bo)
			case u == NoUncertainty:
				yhat, e, err := mean.predictOutside(ctx, z)
				if err != nil {
					t.Fatal(err)
				}
				for _, v := range yhat {
					want = append(want, bandValue{Yhat: v})
				}
				ex = e
			case u == ConfidenceBand:
				want, _ = mean.predictBands(ctx, z, bo)
			default:
				want, _ = mean.predictIntervals(ctx, z, bo)
			}
			if ex == nil {
				if c.m != nil {
					_, ex, _ = c.m.predictOutside(ctx, z, c.comp)
				} else {
					_, ex, _ = mean.predictOutside(ctx, z)
				}
			}
			what := c.name + " " + string(u)
			cols := [4][]float64{}
			for _, b := range want {
				cols[0], cols[1], cols[2], cols[3] = append(cols[0], b.Yhat), append(cols[1], b.SE), append(cols[2], b.Lower), append(cols[3], b.Upper)
			}
			sameBitsOf(t, what+" yhat", got.Yhat, cols[0])
			if u != NoUncertainty {
				sameBitsOf(t, what+" se", got.SE, cols[1])
				sameBitsOf(t, what+" lower", got.Lower, cols[2])
				sameBitsOf(t, what+" upper", got.Upper, cols[3])
			} else if got.SE != nil || got.Level != 0 {
				t.Errorf("%s: limits without uncertainty asked for", what)
			}
			sameBitsOf(t, what+" leverage", got.Extrapolation.Leverage, ex.Leverage)
			sameBitsOf(t, what+" distance", got.Extrapolation.Distance, ex.Distance)
		}
	}
}

// TestAtNoiseLevel: a model at another m than its cross-validated choice
// scales its bands by σ̂ at that m; at its choice by the RMSECV where σ̂
// is smaller, as Stats and Chosen record them.
func TestAtNoiseLevel(t *testing.T) {
	ctx := context.Background()
	x, y := predictorData(150, 1)
	sel, err := Select(ctx, Data{X: x, Y: vec(y)}, SelectOptions{DoF: DoFExact, Kernels: []Kernel{Laplacian{Width: 0.5}}, By: CrossValidation{AverageBy: AverageNone}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := sel.Model
	c := m.Chosen()
	if c.Criterion != CV || !(c.RMSECV > m.Stats()[c.M].Sigma) {
		t.Fatalf("the test needs a CV choice whose RMSECV exceeds σ̂: %+v, σ̂ %v", c, m.Stats()[c.M].Sigma)
	}
	z, _ := predictorData(3, 5)
	got, err := m.Predict(ctx, z, PredictOptions{Uncertainty: PredictionInterval})
	if err != nil {
		t.Fatal(err)
	}
	if got.Noise != c.RMSECV || !got.NoiseFromRMSECV || got.Level != DefaultLevel {
		t.Errorf("at the choice: noise %v (RMSECV %v), level %v", got.Noise, got.NoiseFromRMSECV, got.Level)
	}
	other := c.M - 1
	mo, err := m.At(other)
	if err != nil {
		t.Fatal(err)
	}
	got, err = mo.Predict(ctx, z, PredictOptions{Uncertainty: PredictionInterval})
	if err != nil {
		t.Fatal(err)
	}
	if got.Noise != m.Stats()[other].Sigma || got.NoiseFromRMSECV {
		t.Errorf("at m = %d: noise %v, want σ̂ %v", other, got.Noise, m.Stats()[other].Sigma)
	}
	if s := mo.Summary(); s.Members[0].M != other || s.Stats.M != other {
		t.Errorf("At(%d) describes m = %d, stats of m = %d", other, s.Members[0].M, s.Stats.M)
	}
	if _, err := m.At(len(m.Stats())); !errors.Is(err, ErrComponents) {
		t.Errorf("At past the valid components: %v", err)
	}
}

// TestSaveLoadPredictors: Load gives back what Save was given, each
// predictor as the type it was (a mean of one as its model), in order,
// predicting bit for bit as before.
func TestSaveLoadPredictors(t *testing.T) {
	ctx := context.Background()
	x, y := predictorData(80, 2)
	y2 := make([]float64, len(y))
	for i := range y2 {
		y2[i] = x.At(i, 0) - x.At(i, 2)
	}
	a, err := Fit(ctx, Data{X: x, Y: vec(y), TargetNames: []string{"a"}}, Options{Components: 4}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Fit(ctx, Data{X: x, Y: vec(y2), TargetNames: []string{"b"}}, Options{Components: 3}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b2, err := Fit(ctx, Data{X: x, Y: vec(y2), TargetNames: []string{"b"}}, Options{Kernel: Linear{}, Components: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	one, _ := NewMean(a)
	two, _ := NewMean(b, b2)
	z, _ := predictorData(4, 7)
	for _, c := range []struct {
		name string
		save []Predictor
		want []string // the loaded types
	}{
		{"one model", []Predictor{a}, []string{"*kpls.Model"}},
		{"a mean of one", []Predictor{one}, []string{"*kpls.Model"}},
		{"two targets", []Predictor{a, b}, []string{"*kpls.Model", "*kpls.Model"}},
		{"a model and a mean", []Predictor{a, two}, []string{"*kpls.Model", "*kpls.Mean"}},
	} {
		var file bytes.Buffer
		if err := Save(&file, c.save...); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		ps, err := Load(&file)
		if err != nil || len(ps) != len(c.want) {
			t.Fatalf("%s: %d predictors, %v", c.name, len(ps), err)
		}
		for i, p := range ps {
			if got := typeName(p); got != c.want[i] {
				t.Errorf("%s %d: a %s, want %s", c.name, i, got, c.want[i])
			}
			if len(ps) > 1 && p.Summary().TargetName != c.save[i].Summary().TargetName {
				t.Errorf("%s %d: target %q", c.name, i, p.Summary().TargetName)
			}
			want, err := c.save[i].Predict(ctx, z, PredictOptions{Uncertainty: ConfidenceBand})
			if err != nil {
				t.Fatal(err)
			}
			got, err := p.Predict(ctx, z, PredictOptions{Uncertainty: ConfidenceBand})
			if err != nil {
				t.Fatal(err)
			}
			sameBitsOf(t, c.name+" yhat", got.Yhat, want.Yhat)
			sameBitsOf(t, c.name+" se", got.SE, want.SE)
		}
	}
	if err := Save(new(bytes.Buffer)); !errors.Is(err, ErrShape) {
		t.Errorf("saving nothing: %v", err)
	}
	if err := Save(new(bytes.Buffer), (*Model)(nil)); !errors.Is(err, ErrShape) {
		t.Errorf("saving a nil model: %v", err)
	}
}

func typeName(p Predictor) string {
	switch p.(type) {
	case *Model:
		return "*kpls.Model"
	case *Mean:
		return "*kpls.Mean"
	}
	return "?"
}

// TestSelectAveragesByDefault: the zero SelectOptions averages the grid
// points stacking keeps within DefaultAverageWithin, as the command does;
// AverageNone predicts with the best model alone.
func TestSelectAveragesByDefault(t *testing.T) {
	ctx := context.Background()
	x, y := predictorData(150, 4)
	sel, err := Select(ctx, Data{X: x, Y: vec(y)}, SelectOptions{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sel.Predictor == nil || sel.MeanBy != AverageStacked {
		t.Fatalf("zero options: predictor %T, averaged by %q", sel.Predictor, sel.MeanBy)
	}
	if ms := sel.Predictor.Summary().Members; ms[0].Kernel != sel.Best.Kernel || ms[0].M != sel.Best.M {
		t.Errorf("the predictor's first member %+v is not the best grid point %v, m = %d", ms[0], sel.Best.Kernel, sel.Best.M)
	}
	off, err := Select(ctx, Data{X: x, Y: vec(y)}, SelectOptions{By: CrossValidation{AverageBy: AverageNone}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if off.Predictor != Predictor(off.Model) || off.MeanBy != "" {
		t.Errorf("AverageNone: predictor %T, averaged by %q", off.Predictor, off.MeanBy)
	}
	gcv, err := Select(ctx, Data{X: x, Y: vec(y)}, SelectOptions{By: GCV}, nil)
	if err != nil {
		t.Fatalf("GCV with the zero averaging: %v", err)
	}
	if gcv.Predictor != Predictor(gcv.Model) {
		t.Errorf("GCV: predictor %T, want the best model (only CV averages)", gcv.Predictor)
	}
}

// TestPredictOptionsRefused: an unknown uncertainty and a level outside
// (0, 1) are errors, before any work.
func TestPredictOptionsRefused(t *testing.T) {
	ctx := context.Background()
	x, y := predictorData(40, 0)
	m, err := Fit(ctx, Data{X: x, Y: vec(y)}, Options{Components: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Predict(ctx, x, PredictOptions{Uncertainty: "bands"}); !errors.Is(err, ErrBadOption) {
		t.Errorf("unknown uncertainty: %v", err)
	}
	for _, level := range []float64{1, -0.5, math.NaN(), 0.9999999999999999} {
		if _, err := m.Predict(ctx, x, PredictOptions{Uncertainty: ConfidenceBand, Level: level}); !errors.Is(err, ErrLevel) {
			t.Errorf("level %v: %v", level, err)
		}
	}
}

// TestStatsJSONNull: unknown statistics (NaN) are null in JSON, and null
// reads back as NaN.
func TestStatsJSONNull(t *testing.T) {
	s := Stats{M: 2, RSS: 1.5, DoF: math.NaN(), Sigma: math.Inf(1)}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"dof":null`) || !strings.Contains(string(b), `"sigma":null`) || !strings.Contains(string(b), `"rss":1.5`) {
		t.Errorf("JSON %s", b)
	}
	var back Stats
	if err := json.Unmarshal(b, &back); err != nil || !math.IsNaN(back.DoF) || back.RSS != 1.5 || back.M != 2 {
		t.Errorf("read back %+v, %v", back, err)
	}
	row, err := json.Marshal(SelectionRow{Kernel: RBF{Width: 2}, Stats: s, RMSECV: math.NaN()})
	if err != nil || !strings.Contains(string(row), `"rmsecv":null`) || !strings.Contains(string(row), `"dof":null`) || !strings.Contains(string(row), `"kernel":{`) {
		t.Errorf("row JSON %s, %v", row, err)
	}
}

// TestKernelString: kernels print their name and parameters.
func TestKernelString(t *testing.T) {
	for k, want := range map[Kernel]string{
		RBF{Width: 12.649110640673518}:   "rbf(width=12.6491)",
		RBF{}:                            "rbf(width=default)",
		Laplacian{Width: 1.5}:            "laplacian(width=1.5)",
		Matern{Nu: 2.5, Width: 3}:        "matern52(width=3)",
		Polynomial{Degree: 2, Offset: 1}: "polynomial(degree=2, offset=1)",
		Linear{}:                         "linear",
	} {
		if got := k.(interface{ String() string }).String(); got != want {
			t.Errorf("%#v prints %q, want %q", k, got, want)
		}
	}
}

// TestSelectInterruptedBestSoFar: a search cancelled before its third
// grid point returns the context's error with the best of the two points
// it scored, the same as a search over those two alone.
func TestSelectInterruptedBestSoFar(t *testing.T) {
	x, y := predictorData(160, 6)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	so := SelectOptions{Isotropic: true, Kernels: []Kernel{RBF{}}, Widths: []float64{0.3, 3, 30}, By: CrossValidation{AverageBy: AverageNone}}
	so.Seed = 3
	stop := &Resources{Progress: func(p Progress) {
		if p.Stage == StageSelect && p.Done == 2 {
			cancel()
		}
	}}
	part, err := Select(ctx, Data{X: x, Y: vec(y)}, so, stop)
	if !errors.Is(err, context.Canceled) || part == nil {
		t.Fatalf("cancelled search: %v, selection %v", err, part)
	}
	if len(part.Choices) != 2 || part.Model != nil || part.Predictor != nil {
		t.Fatalf("%d choices, model %v, predictor %v: want the two scored points and nothing fitted", len(part.Choices), part.Model, part.Predictor)
	}
	so.Widths = []float64{0.3, 3}
	two, err := Select(context.Background(), Data{X: x, Y: vec(y)}, so, nil)
	if err != nil {
		t.Fatal(err)
	}
	if part.Best.Kernel != two.Best.Kernel || part.Best.M != two.Best.M || part.Best.RMSECV != two.Best.RMSECV {
		t.Errorf("best so far %v m = %d (RMSECV %v); a search of those points alone: %v m = %d (%v)",
			part.Best.Kernel, part.Best.M, part.Best.RMSECV, two.Best.Kernel, two.Best.M, two.Best.RMSECV)
	}
}

// TestPredictionJSON: a prediction marshals with lower-case fields, null
// for an unknown limit, and without what was not asked for.
func TestPredictionJSON(t *testing.T) {
	p := &Prediction{Yhat: []float64{1.5, 2}, SE: []float64{0.1, math.NaN()}, Lower: []float64{1, math.NaN()}, Upper: []float64{2, math.NaN()},
		Level: 0.95, Noise: 0.3}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"yhat":[1.5,2],"se":[0.1,null],"lower":[1,null],"upper":[2,null],"level":0.95,"noise":0.3}`
	if string(b) != want {
		t.Errorf("JSON %s\nwant %s", b, want)
	}
	b, err = json.Marshal(&Prediction{Yhat: []float64{3}, Extrapolation: &Extrapolation{Measure: "max_k", Leverage: []float64{0.2}, Outside: []bool{false}}})
	if err != nil || !strings.HasPrefix(string(b), `{"yhat":[3],"extrapolation":{"measure":"max_k"`) || strings.Contains(string(b), "noise") {
		t.Errorf("plain JSON %s, %v", b, err)
	}
}
