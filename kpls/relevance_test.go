package kpls

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/internal/gop"
)

// relevanceData are n rows of d features, uniform on [−2, 2] times
// 1 + j (so that standardising matters), and y = sin(2x₀) + x₁²/4 +
// noise; the other features are noise to y.
func relevanceData(n, d int, seed uint64) (*mat.Dense, []float64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	x := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := range n {
		for j := range d {
			x.Set(i, j, (4*rng.Float64()-2)*float64(1+j))
		}
		y[i] = math.Sin(2*x.At(i, 0)) + x.At(i, 1)*x.At(i, 1)/16 + 0.1*rng.NormFloat64()
	}
	return x, y
}

// standardisedTimes returns x standardised by the mean and standard
// deviation (n−1) of the columns of train, times w: the test's own
// arithmetic, not the library's.
func standardisedTimes(train, x *mat.Dense, w []float64) *mat.Dense {
	n, d := train.Dims()
	r, _ := x.Dims()
	out := mat.NewDense(r, d, nil)
	for j := range d {
		col := mat.Col(nil, j, train)
		var mean, ss float64
		for _, v := range col {
			mean += v
		}
		mean /= float64(n)
		for _, v := range col {
			ss += (v - mean) * (v - mean)
		}
		sd := math.Sqrt(ss / float64(n-1))
		for i := range r {
			out.Set(i, j, (x.At(i, j)-mean)/sd*w[j])
		}
	}
	return out
}

// TestRelevanceFit: a fit with Options.Relevance predicts as a fit on
// raw features that the test standardised and weighed itself, and its
// model file keeps the weights.
func TestRelevanceFit(t *testing.T) {
	ctx := context.Background()
	x, y := relevanceData(200, 4, 1)
	xt, _ := relevanceData(30, 4, 2)
	w := []float64{1, 0.5, 0.1, 0.02}
	for _, k := range []Kernel{RBF{Width: 2}, Laplacian{Width: 1.5}, Linear{}} {
		comp := min(6, maxComponents(k, 200, 4))
		m, err := Fit(ctx, Data{X: x, Y: vec(y)}, Options{Kernel: k, Components: comp, DoF: DoFNone, Relevance: w}, nil)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := Fit(ctx, Data{X: standardisedTimes(x, x, w), Y: vec(y)}, Options{Kernel: k, Components: comp, DoF: DoFNone, RawFeatures: true}, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := m.Predict(ctx, xt, PredictOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want, err := raw.Predict(ctx, standardisedTimes(x, xt, w), PredictOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range want.Yhat {
			if math.Abs(got.Yhat[i]-want.Yhat[i]) > 1e-9*(1+math.Abs(want.Yhat[i])) {
				t.Fatalf("%s: row %d: %v with Relevance, %v on features weighed by the test", k.Name(), i, got.Yhat[i], want.Yhat[i])
			}
		}
		var buf bytes.Buffer
		if err := Save(&buf, m); err != nil {
			t.Fatal(err)
		}
		ps, err := Load(&buf)
		if err != nil {
			t.Fatal(err)
		}
		back := ps[0].(*Model)
		if !reflect.DeepEqual(back.Options().Relevance, w) {
			t.Errorf("%s: the file gave Relevance %v, want %v", k.Name(), back.Options().Relevance, w)
		}
		again, err := back.Predict(ctx, xt, PredictOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(again.Yhat, got.Yhat) {
			t.Errorf("%s: the loaded model predicts otherwise", k.Name())
		}
	}
}

func TestRelevanceChecked(t *testing.T) {
	x, y := relevanceData(50, 3, 1)
	for _, o := range []Options{
		{Relevance: []float64{1, 1}},
		{Relevance: []float64{1, 0, 1}},
		{Relevance: []float64{1, math.NaN(), 1}},
		{Relevance: []float64{1, math.Inf(1), 1}},
		{Relevance: []float64{1, 1, 1}, RawFeatures: true},
	} {
		if _, err := Fit(context.Background(), Data{X: x, Y: vec(y)}, o, nil); !errors.Is(err, ErrBadOption) {
			t.Errorf("Relevance %v (raw %v): %v, want ErrBadOption", o.Relevance, o.RawFeatures, err)
		}
	}
}

// TestGOPAgainstFiniteDifferences: the gradient outer product of an RBF
// model, from its coefficients, equals the one from central differences
// of its predictions (in standardised units: ∂f/∂z_j = sd_j ∂f/∂x_j).
func TestGOPAgainstFiniteDifferences(t *testing.T) {
	ctx := context.Background()
	x, y := relevanceData(120, 3, 3)
	n, d := x.Dims()
	for _, w := range []float64{0.5, 2} {
		m, err := Fit(ctx, Data{X: x, Y: vec(y)}, Options{Kernel: RBF{Width: w}, Components: 6, DoF: DoFNone}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, comp := range []int{1, 3, 6} {
			at, err := m.At(comp)
			if err != nil {
				t.Fatal(err)
			}
			alpha, err := m.Alpha(comp)
			if err != nil {
				t.Fatal(err)
			}
			got := gop.RBF(m.x, m.n, m.d, alpha, w, m.n)
			want := make([]float64, d)
			for j := range d {
				h := 1e-5 * float64(1+j) // the features' scale grows with j
				up, dn := mat.DenseCopyOf(x), mat.DenseCopyOf(x)
				for i := range n {
					up.Set(i, j, x.At(i, j)+h)
					dn.Set(i, j, x.At(i, j)-h)
				}
				pu, err := at.Predict(ctx, up, PredictOptions{})
				if err != nil {
					t.Fatal(err)
				}
				pd, err := at.Predict(ctx, dn, PredictOptions{})
				if err != nil {
					t.Fatal(err)
				}
				for i := range n {
					g := (pu.Yhat[i] - pd.Yhat[i]) / (2 * h) * m.scale.Scale[j]
					want[j] += g * g
				}
				want[j] = math.Sqrt(want[j] / float64(n))
			}
			for j := range d {
				if math.Abs(got[j]-want[j]) > 1e-6*(1+slices.Max(want)) {
					t.Errorf("w %g, m %d, feature %d: %v from the coefficients, %v from differences of predictions", w, comp, j, got[j], want[j])
				}
			}
		}
	}
}

// TestScreenLearnsRelevance: on data where four of six features are
// noise, the screen's sample gives them small weights, the weighed grid
// wins on all rows, and it predicts fresh rows better than the
// isotropic search, also once saved and loaded; Isotropic turns it off.
func TestScreenLearnsRelevance(t *testing.T) {
	ctx := context.Background()
	x, y := relevanceData(2400, 6, 4)
	xt, yt := relevanceData(2000, 6, 5)
	rmse := func(sel *Selection) float64 {
		p, err := sel.Predictor.Predict(ctx, xt, PredictOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var ss float64
		for i, v := range p.Yhat {
			ss += (v - yt[i]) * (v - yt[i])
		}
		return math.Sqrt(ss / float64(len(yt)))
	}
	sel, err := Select(ctx, Data{X: x, Y: vec(y)}, SelectOptions{ScreenRows: 600}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sc := sel.Screen
	if sc == nil || len(sc.Relevance) != 6 {
		t.Fatalf("screen %+v: want six learned weights", sc)
	}
	t.Logf("weights %.3f, scaled %v, best %s, RMSECV %.4f", sc.Relevance, sc.Scaled, sel.Best.label(), sel.Best.RMSECV)
	least := min(sc.Relevance[0], sc.Relevance[1])
	for j := 2; j < 6; j++ {
		if !(sc.Relevance[j] < least/3) {
			t.Errorf("noise feature %d has weight %.3f, the least relevant true feature %.3f", j, sc.Relevance[j], least)
		}
	}
	if len(sc.Scaled) == 0 || !sel.Best.Scaled {
		t.Fatalf("the weighed grid did not win: scaled %v, best %s", sc.Scaled, sel.Best.label())
	}
	if got := sel.Model.Options().Relevance; !reflect.DeepEqual(got, sc.Relevance) {
		t.Errorf("the chosen model weighs by %v, the screen learned %v", got, sc.Relevance)
	}
	checkedOnOtherRows(t, x, y, sel)
	var buf bytes.Buffer
	if err := Save(&buf, sel.Predictor); err != nil {
		t.Fatal(err)
	}
	ps, err := Load(&buf)
	if err != nil {
		t.Fatal(err)
	}
	before, err := sel.Predictor.Predict(ctx, xt, PredictOptions{})
	if err != nil {
		t.Fatal(err)
	}
	after, err := ps[0].Predict(ctx, xt, PredictOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(before.Yhat, after.Yhat) {
		t.Error("the saved predictor, loaded, predicts otherwise")
	}
	iso, err := Select(ctx, Data{X: x, Y: vec(y)}, SelectOptions{ScreenRows: 600, Isotropic: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if iso.Screen == nil || iso.Screen.Relevance != nil || iso.Screen.Scaled != nil || iso.Best.Scaled {
		t.Errorf("Isotropic learned weights: %+v", iso.Screen)
	}
	weighed, plain := rmse(sel), rmse(iso)
	t.Logf("held out: %.4f weighed, %.4f isotropic (noise sd 0.1)", weighed, plain)
	if !(weighed < plain) {
		t.Errorf("held out, the weighed search predicts worse (%.4f) than the isotropic one (%.4f)", weighed, plain)
	}
}

// checkedOnOtherRows: the screen of sel (Select of x, y with
// ScreenRows 600 and seed 0) checked its weights on the next 600 rows of
// its seeded permutation, disjoint from its sample: the check's two
// choices are those of searches of each point alone on those rows, the
// weighed one on features the test weighed itself; and as the weighed
// point scored better there, all rows searched weighed points only.
func checkedOnOtherRows(t *testing.T, x *mat.Dense, y []float64, sel *Selection) {
	t.Helper()
	sc := sel.Screen
	c := sc.Check
	if c == nil || c.Rows != 600 {
		t.Fatalf("check %+v: want one on 600 rows", c)
	}
	n, d := x.Dims()
	idx := rand.New(rand.NewPCG(0, 0x5c7ee2)).Perm(n)[600:1200]
	slices.Sort(idx)
	x2, y2 := mat.NewDense(len(idx), d, nil), make([]float64, len(idx))
	for i, r := range idx {
		x2.SetRow(i, x.RawRowView(r))
		y2[i] = y[r]
	}
	alone := func(d Data, k Kernel, raw bool) SelectionRow {
		s, err := Select(context.Background(), d, SelectOptions{Isotropic: true, Kernels: []Kernel{k}, ScreenRows: -1, RawFeatures: raw}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return s.Best
	}
	for _, pair := range []struct{ got, want SelectionRow }{
		{c.Unweighed, alone(Data{X: x2, Y: vec(y2)}, c.Unweighed.Kernel, false)},
		{c.Weighed, alone(Data{X: standardisedTimes(x2, x2, sc.Relevance), Y: vec(y2)}, c.Weighed.Kernel, true)},
	} {
		if pair.got.M != pair.want.M || math.Abs(pair.got.RMSECV-pair.want.RMSECV) > 1e-9*pair.want.RMSECV {
			t.Errorf("check of %s: m = %d, RMSECV %.12g; searched alone on those rows: m = %d, RMSECV %.12g",
				pair.got.label(), pair.got.M, pair.got.RMSECV, pair.want.M, pair.want.RMSECV)
		}
	}
	t.Logf("check on 600 other rows: %s %.4f weighed, %s %.4f unweighed", c.Weighed.label(), c.Weighed.RMSECV, c.Unweighed.label(), c.Unweighed.RMSECV)
	if !(c.Weighed.RMSECV < c.Unweighed.RMSECV) || len(sc.Kept) != 0 {
		t.Fatalf("the check found the weighed point better (%v) but all rows searched unweighed points %v", c.Weighed.RMSECV < c.Unweighed.RMSECV, sc.Kept)
	}
	for _, ch := range sel.Choices {
		if !ch.Scaled {
			t.Errorf("all rows searched %s unweighed", ch.label())
		}
	}
}

// TestLoadChecksRelevance: a model file's feature weights are checked as
// Options.Relevance is (one positive, finite weight per feature) and
// belong to version 7: a file that claims otherwise is refused.
func TestLoadChecksRelevance(t *testing.T) {
	x, y := relevanceData(40, 2, 1)
	m, err := Fit(context.Background(), Data{X: x, Y: vec(y)}, Options{Components: 3, Relevance: []float64{1, 0.25}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Save(&buf, m); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	if v := binary.LittleEndian.Uint32(good[len(binaryMagic):]); v != FormatVersion {
		t.Fatalf("written as version %d, want %d", v, FormatVersion)
	}
	// tampered rewrites the file's header text and version, and sums it again.
	tampered := func(old, new string, version uint32) []byte {
		b := bytes.Clone(good)
		i := bytes.Index(b, []byte(old))
		if i < 0 || len(old) != len(new) {
			t.Fatalf("%q is not in the header, or %q is not as long", old, new)
		}
		copy(b[i:], new)
		binary.LittleEndian.PutUint32(b[len(binaryMagic):], version)
		binary.LittleEndian.PutUint32(b[len(b)-4:], crc32.Checksum(b[:len(b)-4], crcTable))
		return b
	}
	if _, err := Load(bytes.NewReader(tampered(`"relevance":[1,0.25]`, `"relevance":[1,0.25]`, FormatVersion))); err != nil {
		t.Fatalf("the file as written, summed again: %v", err)
	}
	for _, c := range []struct {
		name     string
		old, new string
		version  uint32
		want     string
	}{
		{"version 6", `"version":7`, `"version":6`, 6, "feature weights (relevance) in a file of version 6"},
		{"a negative weight", `[1,0.25]`, `[-1,0.2]`, FormatVersion, "Options.Relevance"},
		{"a zero weight", `[1,0.25]`, `[0,0.25]`, FormatVersion, "Options.Relevance"},
		{"one weight for two features", `[1,0.25]`, `[1.0025]`, FormatVersion, "Options.Relevance"},
	} {
		_, err := Load(bytes.NewReader(tampered(c.old, c.new, c.version)))
		if !errors.Is(err, ErrModelFile) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want ErrModelFile naming %q", c.name, err, c.want)
		}
	}
}

// TestWeighedBesideUnweighed: a search with the same kernel and width
// unweighed and weighed keeps them apart: each one's choice scores as a
// search of it alone does, the unweighed one on the data as given, the
// weighed one on features the test standardised and weighed itself; and
// the chosen model's statistics fill the rows of its own point only.
func TestWeighedBesideUnweighed(t *testing.T) {
	ctx := context.Background()
	x, y := relevanceData(300, 4, 8)
	w := []float64{1, 0.6, 0.1, 0.1}
	k := RBF{Width: 1}
	sc := (&SelectOptions{Kernels: []Kernel{k}, ScreenRows: -1}).config(&Data{}, nil)
	sc.scaled, sc.scaledBy = []Kernel{k}, w
	sels, err := selectTargets(ctx, x, [][]float64{y}, sc)
	if err != nil {
		t.Fatal(err)
	}
	sel := sels[0]
	if len(sel.Choices) != 2 || sel.Choices[0].Scaled || !sel.Choices[1].Scaled {
		t.Fatalf("choices %+v: want the unweighed point, then the weighed one", sel.Choices)
	}
	alone := func(d Data, raw bool) SelectionRow {
		s, err := Select(ctx, d, SelectOptions{Isotropic: true, Kernels: []Kernel{k}, ScreenRows: -1, RawFeatures: raw}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return s.Best
	}
	for i, want := range []SelectionRow{alone(Data{X: x, Y: vec(y)}, false), alone(Data{X: standardisedTimes(x, x, w), Y: vec(y)}, true)} {
		got := sel.Choices[i]
		if got.M != want.M || math.Abs(got.RMSECV-want.RMSECV) > 1e-9*want.RMSECV {
			t.Errorf("choice %d (scaled %v): m = %d, RMSECV %.12g; searched alone: m = %d, RMSECV %.12g", i, got.Scaled, got.M, got.RMSECV, want.M, want.RMSECV)
		}
	}
	for _, r := range sel.Table {
		if filled := !math.IsNaN(r.RSS); filled != (r.Scaled == sel.Best.Scaled) && r.M <= sel.Best.M {
			t.Fatalf("row %s m = %d: statistics filled %v, the best is %s", r.label(), r.M, filled, sel.Best.label())
		}
	}
}

// TestRelevanceCheckRefuses: weights that fit the screen's sample but
// not the check's rows are refused. The target depends on feature 1 on
// the sample's rows and on feature 2 on all others, so the sample weighs
// feature 2 down; on the check's rows the unweighed point scores better,
// and all rows search the unweighed points only.
func TestRelevanceCheckRefuses(t *testing.T) {
	const n, rows = 2400, 600
	x, _ := relevanceData(n, 4, 11)
	inSample := map[int]bool{}
	for _, r := range rand.New(rand.NewPCG(0, 0x5c7ee2)).Perm(n)[:rows] {
		inSample[r] = true
	}
	rng := rand.New(rand.NewPCG(12, 7))
	y := make([]float64, n)
	for i := range y {
		j := 2
		if inSample[i] {
			j = 1
		}
		y[i] = math.Sin(2*x.At(i, 0)) + math.Sin(x.At(i, j)) + 0.05*rng.NormFloat64()
	}
	sel, err := Select(context.Background(), Data{X: x, Y: vec(y)}, SelectOptions{ScreenRows: rows}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sc := sel.Screen
	if sc == nil || sc.Check == nil {
		t.Fatalf("screen %+v: want the weights checked", sc)
	}
	c := sc.Check
	t.Logf("weights %.3f; check: %s %.4f weighed, %s %.4f unweighed", sc.Relevance, c.Weighed.label(), c.Weighed.RMSECV, c.Unweighed.label(), c.Unweighed.RMSECV)
	if !(sc.Relevance[2] < sc.Relevance[1]/3) {
		t.Fatalf("weights %.3f: the sample should weigh feature 2 down", sc.Relevance)
	}
	if !(c.Unweighed.RMSECV < c.Weighed.RMSECV) || len(sc.Scaled) != 0 || len(sc.Kept) == 0 {
		t.Fatalf("check %.4f weighed, %.4f unweighed; scaled %v, kept %v: want the weights refused", c.Weighed.RMSECV, c.Unweighed.RMSECV, sc.Scaled, sc.Kept)
	}
	for _, ch := range sel.Choices {
		if ch.Scaled {
			t.Errorf("all rows searched %s weighed after the check refused the weights", ch.label())
		}
	}
}
