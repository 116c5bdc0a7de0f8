package kpls

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/internal/stacking"
)

// TestSelectAverage: Selection.Mean holds the best grid point's model
// and one for every other grid point whose choice scores within the
// margin, and its Predict is the mean of the predictions of plain Fits
// at those (kernel, width, m), each to all rows, read off the table by
// hand (1e-10); a margin of 0 keeps the best alone, and the margin needs
// cross-validation.
func TestSelectAverage(t *testing.T) {
	ctx := context.Background()
	x, y := gaussData(90, 3, 21)
	z, _ := gaussData(15, 3, 22)
	so := SelectOptions{Isotropic: true, Seed: 4, Components: 6, Widths: []float64{0.5, 1.5, 4, 12}, MaxComponents: 6, By: CrossValidation{AverageWithin: 0.25, AverageBy: AverageAll}}
	sel, err := Select(ctx, Data{X: x, Y: vec(y)}, so, nil)
	if err != nil {
		t.Fatal(err)
	}
	var want [][]float64
	for _, c := range sel.Choices {
		if c.RMSECV > 1.25*sel.Best.RMSECV {
			continue
		}
		m, err := Fit(ctx, Data{X: x, Y: vec(y)}, Options{Kernel: c.Kernel, Components: max(c.M, 1), DoF: DoFNone}, nil)
		if err != nil {
			t.Fatal(err)
		}
		p, err := m.predictAt(ctx, z, c.M)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, p)
	}
	if sel.mean() == nil {
		t.Fatal("no mean with a margin")
	}
	if ms := sel.mean().Members(); len(want) < 2 || len(ms) != len(want) || ms[0] != sel.Model {
		t.Fatalf("%d models averaged, %d grid points within the margin (want at least 2, the best first)", len(ms), len(want))
	}
	got, err := sel.mean().predict(ctx, z)
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		var mean float64
		for _, p := range want {
			mean += p[i] / float64(len(want))
		}
		if d := math.Abs(got[i] - mean); d > 1e-10*math.Max(1, math.Abs(mean)) {
			t.Errorf("row %d: average %v, by hand %v", i, got[i], mean)
		}
	}
	so.By = CrossValidation{AverageBy: AverageNone}
	one, err := Select(ctx, Data{X: x, Y: vec(y)}, so, nil)
	if err != nil {
		t.Fatal(err)
	}
	if one.Predictor != Predictor(one.Model) {
		t.Errorf("averaging off: the predictor is a %T, not the best model", one.Predictor)
	}
	for _, bad := range []SelectOptions{
		{By: CrossValidation{AverageWithin: -1}},
		{By: CrossValidation{AverageWithin: math.NaN()}},
	} {
		if _, err := Select(ctx, Data{X: x, Y: vec(y)}, bad, nil); !errors.Is(err, ErrBadOption) {
			t.Errorf("%+v: %v", bad.By, err)
		}
	}
}

// TestSelectAverageDoF: the best of a mean of several models is fitted
// without DoF unless Options.DoF is set, and with the DoF asked for
// otherwise: its DoF at the chosen m then match the exact DoF of a plain
// Fit there (within four standard errors), as they do when no other
// grid point is within the margin. Predictions are those of a plain Fit
// either way.
func TestSelectAverageDoF(t *testing.T) {
	ctx := context.Background()
	x, y := gaussData(90, 3, 21)
	z, _ := gaussData(15, 3, 22)
	base := SelectOptions{Seed: 4, Components: 6, Widths: []float64{0.5, 1.5, 4, 12}, MaxComponents: 6, By: CrossValidation{AverageBy: AverageAll}}
	for _, c := range []struct {
		name   string
		dof    DoFMethod
		within float64
		want   DoFMethod // the best's DoF method
	}{
		{"default, several members", "", 0.25, DoFNone},
		{"approx asked, several members", DoFApprox, 0.25, DoFApprox},
		{"default, the best alone", "", 1e-12, DoFApprox},
	} {
		so := base
		so.DoF, so.By = c.dof, CrossValidation{AverageBy: AverageAll, AverageWithin: c.within}
		sel, err := Select(ctx, Data{X: x, Y: vec(y)}, so, nil)
		if err != nil {
			t.Fatal(err)
		}
		members := len(sel.mean().Members())
		if (c.within > 0.1) != (members > 1) {
			t.Fatalf("%s: %d members", c.name, members)
		}
		b := sel.Best
		if got := sel.Model.Options().DoF; got != c.want {
			t.Errorf("%s: the best is fitted with DoF %q, want %q", c.name, got, c.want)
		}
		exact, err := Fit(ctx, Data{X: x, Y: vec(y)}, Options{Kernel: b.Kernel, Components: max(b.M, 1), DoF: DoFExact}, nil)
		if err != nil {
			t.Fatal(err)
		}
		st := exact.Stats()[b.M]
		switch {
		case c.want == DoFNone && b.DoF != float64(b.M+1):
			t.Errorf("%s: the best's DoF %v, want the naive m + 1 = %d of DoFNone", c.name, b.DoF, b.M+1)
		case c.want == DoFNone && !math.IsNaN(sel.mean().stats.DoF):
			t.Errorf("%s: the mean's DoF %v, want NaN (its members' are not computed)", c.name, sel.mean().stats.DoF)
		case c.want != DoFNone && !(math.Abs(b.DoF-st.DoF) <= 4*b.DoFSE+1e-9):
			t.Errorf("%s: the best's DoF %v ± %v, exact %v", c.name, b.DoF, b.DoFSE, st.DoF)
		}
		got, err := sel.Model.predictAt(ctx, z, b.M)
		if err != nil {
			t.Fatal(err)
		}
		want, err := exact.predictAt(ctx, z, b.M)
		if err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if d := math.Abs(got[i] - want[i]); d > 1e-9*math.Max(1, math.Abs(want[i])) {
				t.Errorf("%s: row %d predicts %v, a plain fit %v", c.name, i, got[i], want[i])
			}
		}
	}
}

// TestSelectAverageStacked: by default the mean's members besides the
// best are the grid points within the margin whose stacking weight is
// at least half a percent. The oracle refits every candidate by hand on
// Select's folds (written out independently, as in
// TestCrossValidationByHand) for its out-of-fold predictions at its
// chosen m, and weighs them with stacking.Weights (itself checked
// against enumeration of every support). The members and their weights
// must agree (1e-6), and the mean must predict the equal mean of plain
// fits at its members (1e-10). With row weights the folds keep no
// predictions: the mean then averages every candidate, and says so.
func TestSelectAverageStacked(t *testing.T) {
	ctx := context.Background()
	x, y := gaussData(90, 3, 3) // three of six candidates weighed
	z, _ := gaussData(15, 3, 22)
	xs := standardisedByHand(x)
	so := SelectOptions{Isotropic: true, Seed: 4, Components: 6, Widths: []float64{0.5, 1.5, 4, 12}, MaxComponents: 6, By: CrossValidation{AverageWithin: 0.25}}
	sel, err := Select(ctx, Data{X: x, Y: vec(y)}, so, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sel.MeanBy != AverageStacked {
		t.Fatalf("MeanBy %q, want %q", sel.MeanBy, AverageStacked)
	}
	// The candidates, the best first.
	var cands []SelectionRow
	for _, c := range sel.Choices {
		if c.Kernel == sel.Best.Kernel {
			cands = append([]SelectionRow{c}, cands...)
		} else if c.RMSECV <= 1.25*sel.Best.RMSECV {
			cands = append(cands, c)
		}
	}
	if len(cands) < 3 {
		t.Fatalf("%d candidates: want a choice to make", len(cands))
	}
	oof := oofByHand(t, func(SelectionRow) *mat.Dense { return xs }, y, cands, 4)
	w, err := stacking.Weights(oof, y)
	if err != nil {
		t.Fatal(err)
	}
	var want []int
	for j := range cands {
		if j == 0 || w[j] >= 0.005 {
			want = append(want, j)
		}
	}
	if len(want) < 3 || len(want) == len(cands) {
		t.Errorf("stacking kept %d of %d candidates: the test needs a choice among several", len(want), len(cands))
	}
	checkMeanByHand(t, sel, cands, want, w, oof, y, z, func(c SelectionRow) ([]float64, error) {
		plain, err := Fit(ctx, Data{X: x, Y: vec(y)}, Options{Kernel: c.Kernel, Components: max(c.M, 1), DoF: DoFNone}, nil)
		if err != nil {
			return nil, err
		}
		return plain.predictAt(ctx, z, c.M)
	})
	var worst float64
	for _, j := range want {
		worst = math.Max(worst, cands[j].RMSECV)
	}
	if !(sel.PredictorRMSECV < worst) {
		t.Errorf("PredictorRMSECV %v not below the worst member's RMSECV %v", sel.PredictorRMSECV, worst)
	}

	ones := make([]float64, len(y))
	for i := range ones {
		ones[i] = 1
	}
	ws, err := Select(ctx, Data{X: x, Y: vec(y), Weights: ones}, so, nil)
	if err != nil {
		t.Fatal(err)
	}
	warned := false
	for _, wn := range ws.Warnings {
		warned = warned || wn.Code == WarnAveraging
	}
	if ws.MeanBy != AverageAll || !warned || ws.MeanWeights != nil {
		t.Errorf("weighted rows: MeanBy %q, weights %v, warned %v; want all, none, a warning", ws.MeanBy, ws.MeanWeights, warned)
	}
	if len(ws.mean().Members()) > 1 && !math.IsNaN(ws.PredictorRMSECV) {
		t.Errorf("weighted rows: PredictorRMSECV %v, want NaN (no out-of-fold predictions kept)", ws.PredictorRMSECV)
	}
}

// TestSelectMeanRidesAlong: on dense storage of rideMinRows rows or
// more, the mean's models (its best included, fitted without DoF) come
// from the fits to all rows that ride in the folds' block products, so
// the search makes, at each grid point, one build and one block product
// per component cross-validated, and no pass after: Passes is the sum
// over the table's grid points of 1 + the largest m. (TestSelectAverage
// holds their predictions to plain fits.) Below rideMinRows, on float32
// storage and with DoF asked for, the models are fitted apart, each with
// a build and its steps.
func TestSelectMeanRidesAlong(t *testing.T) {
	ctx := context.Background()
	x, y := gaussData(120, 3, 23)
	// Kernels with a width: their matrices are stored dense, where the
	// fits ride along (the linear kernel's features fit apart).
	so := SelectOptions{Isotropic: true, Seed: 5, Kernels: []Kernel{RBF{}, Laplacian{}}, Widths: []float64{0.5, 1.5, 4, 12}, By: CrossValidation{AverageWithin: 0.25, AverageBy: AverageAll}}
	// cvPasses counts a build and a block product per step at each grid
	// point the selections' tables hold (the targets of one search share
	// them): the last m there.
	cvPasses := func(sels ...*Selection) int {
		last := map[string]int{}
		for _, sel := range sels {
			for _, r := range sel.Table {
				k := fmt.Sprintf("%#v", r.Kernel)
				last[k] = max(last[k], r.M)
			}
		}
		p := 0
		for _, m := range last {
			p += 1 + m
		}
		return p
	}
	apart := func(name string, sel *Selection) {
		t.Helper()
		if sel.mean() == nil {
			t.Fatalf("%s: no mean", name)
		}
		own := 0
		for _, m := range sel.mean().Members() {
			own += 1 + max(m.Chosen().M, 1) // a build and its steps
		}
		if extra := sel.Passes - cvPasses(sel); extra < own {
			t.Errorf("%s: %d passes after the search's, want at least %d: a build and m steps for each model of the mean", name, extra, own)
		}
	}
	sel, err := Select(ctx, Data{X: x, Y: vec(y)}, so, nil)
	if err != nil {
		t.Fatal(err)
	}
	apart("120 dense rows", sel)

	defer func(r int) { rideMinRows = r }(rideMinRows)
	rideMinRows = 100
	if sel, err = Select(ctx, Data{X: x, Y: vec(y)}, so, nil); err != nil {
		t.Fatal(err)
	}
	if sel.mean() == nil || len(sel.mean().Members()) < 2 {
		t.Fatal("no mean of several models")
	}
	if want := cvPasses(sel); sel.Passes != want {
		t.Errorf("%d passes, want %d: a build and a block product per step at each grid point, nothing after", sel.Passes, want)
	}
	// Each model from the ride predicts as a plain fit to all rows at its
	// kernel and m.
	z, _ := gaussData(15, 3, 24)
	asPlain := func(name string, y []float64, mean *Mean) {
		t.Helper()
		for k, m := range mean.Members() {
			c := m.Chosen().M
			plain, err := Fit(ctx, Data{X: x, Y: vec(y)}, Options{Kernel: m.Options().Kernel, Components: max(c, 1), DoF: DoFNone}, nil)
			if err != nil {
				t.Fatal(err)
			}
			want, err := plain.predictAt(ctx, z, c)
			if err != nil {
				t.Fatal(err)
			}
			got, err := m.predictAt(ctx, z, c)
			if err != nil {
				t.Fatal(err)
			}
			for i := range got {
				if d := math.Abs(got[i] - want[i]); !(d <= 1e-10*math.Max(1, math.Abs(want[i]))) {
					t.Errorf("%s: model %d (m = %d), point %d: %v, a plain fit %v", name, k+1, c, i, got[i], want[i])
				}
			}
		}
	}
	asPlain("one target", y, sel.mean())
	// Hybrid storage (a third of the matrix cached) and matrix-free
	// storage compute their entries once for a block: the fits ride there
	// too.
	for _, st := range []struct {
		storage Storage
		limit   int64
	}{{StorageHybrid, 120 * 120 * 8 / 3}, {StorageMatrixFree, 0}} {
		sel, err := Select(ctx, Data{X: x, Y: vec(y)}, so, &Resources{Storage: st.storage, MemoryLimit: st.limit})
		if err != nil {
			t.Fatal(err)
		}
		name := string(st.storage) + " storage"
		if sel.mean() == nil || len(sel.mean().Members()) < 2 {
			t.Fatalf("%s: no mean of several models", name)
		}
		if want := cvPasses(sel); sel.Passes != want {
			t.Errorf("%s: %d passes, want %d: a build and a block product per step at each grid point, nothing after", name, sel.Passes, want)
		}
		asPlain(name, y, sel.mean())
	}
	// Two targets, with repeated folds: each target's fit rides once.
	y2 := make([]float64, len(y))
	for i := range y2 {
		y2[i] = 0.5*y[i] + 0.2*math.Sin(3*x.At(i, 0))
	}
	two := so
	two.By = CrossValidation{AverageWithin: 0.25, AverageBy: AverageAll, Repeats: 2}
	sels, err := SelectTargets(ctx, Data{X: x, Y: mat.NewDense(len(y), 2, interleave(y, y2))}, two, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, yk := range [][]float64{y, y2} {
		if sels[k].mean() == nil || len(sels[k].mean().Members()) < 2 {
			t.Fatalf("target %d: no mean of several models", k+1)
		}
		asPlain(fmt.Sprintf("target %d of two", k+1), yk, sels[k].mean())
	}
	// The targets share each grid point's matrix and block products.
	want := cvPasses(sels...)
	if sels[0].Passes != want {
		t.Errorf("two targets: %d passes, want %d: a build and a block product per step at each grid point, nothing after", sels[0].Passes, want)
	}
	f32, err := Select(ctx, Data{X: x, Y: vec(y)}, so, &Resources{Storage: StorageFloat32})
	if err != nil {
		t.Fatal(err)
	}
	apart("float32 storage", f32)
	so.DoF = DoFApprox
	withDoF, err := Select(ctx, Data{X: x, Y: vec(y)}, so, nil)
	if err != nil {
		t.Fatal(err)
	}
	if withDoF.Passes <= cvPasses(withDoF) {
		t.Errorf("with DoF asked for, %d passes: the best's fit with its DoF made none of its own", withDoF.Passes)
	}
}

// interleave returns the n×2 row-major matrix with columns a and b.
func interleave(a, b []float64) []float64 {
	out := make([]float64, 0, 2*len(a))
	for i := range a {
		out = append(out, a[i], b[i])
	}
	return out
}

// TestRideNeverAlone: a fit to all rows in the folds' batch runs only in
// products the folds make: when the folds have run their steps it pauses
// with them, however many it has room for, and goes on when they do.
func TestRideNeverAlone(t *testing.T) {
	ctx := context.Background()
	x, y := gaussData(60, 3, 25)
	f, err := newFitter(x, y, cfg(Options{Kernel: RBF{Width: 2}, Components: 8, DoF: DoFNone}), nil)
	if err != nil {
		t.Fatal(err)
	}
	op, err := f.operator(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var products int
	s := &selector{n: 60, folds: 3, repeats: 1, seed: 1}
	b := &foldBatch{n: 60}
	if err := b.add(0, f.yc, s.foldIndices(0), 2); err != nil {
		t.Fatal(err)
	}
	b.addFull(0, f.yc, 6)
	for _, want := range []int{2, 4} {
		if err := b.run(ctx, &f.opts, counted{op, &products}, nil); err != nil {
			t.Fatal(err)
		}
		if full := b.full(0); products != want || full.kr.steps != want {
			t.Fatalf("%d block products, the fit to all rows at %d steps; want %d and %d", products, full.kr.steps, want, want)
		}
		b.grow(4, []int{0})
	}
}

// oofByHand are the candidates' out-of-fold predictions at their m over
// Select's default folds for seed (written out as in
// TestCrossValidationByHand), each fitted to the features featuresOf
// gives it, as they are (RawFeatures).
func oofByHand(t *testing.T, featuresOf func(SelectionRow) *mat.Dense, y []float64, cands []SelectionRow, seed uint64) *mat.Dense {
	t.Helper()
	ctx := context.Background()
	n := len(y)
	oof := mat.NewDense(n, len(cands), nil)
	perm := rand.New(rand.NewPCG(seed, 0x6376)).Perm(n)
	for f := range DefaultFolds {
		lo, hi := f*n/DefaultFolds, (f+1)*n/DefaultFolds
		train := append(append([]int(nil), perm[:lo]...), perm[hi:]...)
		for j, c := range cands {
			xs := featuresOf(c)
			xtr, ytr := rowsOf(xs, y, train)
			xte, _ := rowsOf(xs, y, perm[lo:hi])
			m, err := Fit(ctx, Data{X: xtr, Y: vec(ytr)}, Options{Kernel: c.Kernel, Components: max(c.M, 1), DoF: DoFNone, RawFeatures: true}, nil)
			if err != nil {
				t.Fatal(err)
			}
			p, err := m.predictAt(ctx, xte, c.M)
			if err != nil {
				t.Fatal(err)
			}
			for i, row := range perm[lo:hi] {
				oof.Set(row, j, p[i])
			}
		}
	}
	return oof
}

// checkMeanByHand checks sel's stacked mean against stacking by hand:
// its members must be cands[want] with the weights w gives them, it
// must predict at z the equal mean of the members' plain fits (plain
// returns one's predictions at z), and its PredictorRMSECV must be the
// RMSE of the equal mean of those members' out-of-fold columns.
func checkMeanByHand(t *testing.T, sel *Selection, cands []SelectionRow, want []int, w []float64, oof *mat.Dense, y []float64, z *mat.Dense, plain func(SelectionRow) ([]float64, error)) {
	t.Helper()
	ctx := context.Background()
	ms := sel.mean().Members()
	if len(ms) != len(want) || len(sel.MeanWeights) != len(ms) {
		t.Fatalf("%d members with %d weights; by hand %d (weights %.3f)", len(ms), len(sel.MeanWeights), len(want), w)
	}
	pred := make([]float64, z.RawMatrix().Rows)
	for _, j := range want {
		c := cands[j]
		found := false
		for i, m := range ms {
			if m.Options().Kernel == c.Kernel && (m.Options().Relevance != nil) == c.Scaled && m.Chosen().M == c.M {
				found = true
				if math.Abs(sel.MeanWeights[i]-w[j]) > 1e-6 {
					t.Errorf("%s: weight %v, by hand %v", c.label(), sel.MeanWeights[i], w[j])
				}
			}
		}
		if !found {
			t.Errorf("%s (m = %d) is not a member", c.label(), c.M)
		}
		p, err := plain(c)
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range p {
			pred[i] += v / float64(len(want))
		}
	}
	got, err := sel.mean().predict(ctx, z)
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		if d := math.Abs(got[i] - pred[i]); d > 1e-9*math.Max(1, math.Abs(pred[i])) {
			t.Errorf("row %d: mean %v, plain fits %v", i, got[i], pred[i])
		}
	}
	var press float64
	for i := range y {
		var f float64
		for _, j := range want {
			f += oof.At(i, j) / float64(len(want))
		}
		press += (y[i] - f) * (y[i] - f)
	}
	if cv := math.Sqrt(press / float64(len(y))); math.Abs(sel.PredictorRMSECV-cv) > 1e-8*cv {
		t.Errorf("PredictorRMSECV %v, by hand %v", sel.PredictorRMSECV, cv)
	}
}
