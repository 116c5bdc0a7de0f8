package kpls

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/internal/kernelop"
)

// TestCrossValidationByHand: Select's RMSECV for every m equals that of
// plain per-fold fits on the same standardised rows, pooled over the
// repeats' fold assignments (each split as Select documents it, written
// out independently in foldsByHand), for one assignment and for three;
// and the default runs one.
func TestCrossValidationByHand(t *testing.T) {
	x, y := gaussData(60, 3, 5)
	xs := standardisedByHand(x)
	const folds, comp = 4, 5
	for _, repeats := range []int{1, 3} {
		so := SelectOptions{Isotropic: true, Seed: 9, Components: comp, Kernels: []Kernel{RBF{}}, Widths: []float64{1.5}, MaxComponents: comp, By: CrossValidation{Folds: folds, Repeats: repeats}}
		sel, err := Select(context.Background(), Data{X: x, Y: vec(y)}, so, nil)
		if err != nil {
			t.Fatal(err)
		}
		if sel.Repeats != repeats {
			t.Errorf("Selection.Repeats = %d, want %d", sel.Repeats, repeats)
		}
		n := len(y)
		press := make([]float64, comp+1)
		for r := range repeats {
			for _, fd := range foldsByHand(xs, y, folds, 9, r) {
				xtr, ytr, xte, yte := fd.xtr, fd.ytr, fd.xte, fd.yte
				for m := 0; m <= comp; m++ {
					mod, err := Fit(context.Background(), Data{X: xtr, Y: vec(ytr)}, Options{Kernel: RBF{Width: 1.5}, Components: max(m, 1), DoF: DoFNone, RawFeatures: true}, nil)
					if err != nil {
						t.Fatal(err)
					}
					p, err := mod.predictAt(context.Background(), xte, m)
					if err != nil {
						t.Fatal(err)
					}
					for i, v := range yte {
						press[m] += (v - p[i]) * (v - p[i])
					}
				}
			}
		}
		if len(sel.Table) != comp+1 {
			t.Fatalf("%d rows, want %d", len(sel.Table), comp+1)
		}
		for m, r := range sel.Table {
			want := math.Sqrt(press[m] / float64(repeats*n))
			if !(relErr(r.RMSECV, want) <= 1e-10) {
				t.Errorf("%d repeats, m=%d: RMSECV %.15g, by hand %.15g", repeats, m, r.RMSECV, want)
			}
		}
		// The model records its choice with the RMSECV behind it, which
		// its prediction intervals use.
		c := sel.Model.Chosen()
		want := math.Sqrt(press[sel.Best.M] / float64(repeats*n))
		if c.Criterion != CV || c.M != sel.Best.M || !(relErr(c.RMSECV, want) <= 1e-10) {
			t.Errorf("model records %+v, best is m = %d with RMSECV %.15g by hand", c, sel.Best.M, want)
		}
	}
	sel, err := Select(context.Background(), Data{X: x, Y: vec(y)}, SelectOptions{Isotropic: true, Seed: 9, Components: 2, Kernels: []Kernel{RBF{}}, Widths: []float64{1.5}, MaxComponents: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sel.Repeats != 1 {
		t.Errorf("default repeats: %d, want 1", sel.Repeats)
	}
}

// standardisedByHand centres and scales every column of x by its mean and
// standard deviation (n − 1).
func standardisedByHand(x *mat.Dense) *mat.Dense {
	n, d := x.Dims()
	out := mat.NewDense(n, d, nil)
	for j := 0; j < d; j++ {
		var mean, ss float64
		for i := 0; i < n; i++ {
			mean += x.At(i, j)
		}
		mean /= float64(n)
		for i := 0; i < n; i++ {
			ss += (x.At(i, j) - mean) * (x.At(i, j) - mean)
		}
		sd := math.Sqrt(ss / float64(n-1))
		for i := 0; i < n; i++ {
			out.Set(i, j, (x.At(i, j)-mean)/sd)
		}
	}
	return out
}

// fold is one split of the rows, written out.
type fold struct {
	xtr, xte *mat.Dense
	ytr, yte []float64
}

// rowsOf returns the rows idx of x and y.
func rowsOf(x *mat.Dense, y []float64, idx []int) (*mat.Dense, []float64) {
	_, d := x.Dims()
	out := mat.NewDense(len(idx), d, nil)
	yo := make([]float64, len(idx))
	for i, r := range idx {
		out.SetRow(i, x.RawRowView(r))
		yo[i] = y[r]
	}
	return out, yo
}

// foldsByHand splits the rows as Select documents it for repeat r,
// written out here independently of selector.foldIndices: contiguous
// blocks of one permutation seeded by (seed, 0x6376 + r).
func foldsByHand(x *mat.Dense, y []float64, folds int, seed uint64, r int) []fold {
	n := len(y)
	perm := rand.New(rand.NewPCG(seed, 0x6376+uint64(r))).Perm(n)
	out := make([]fold, folds)
	for f := range out {
		lo, hi := f*n/folds, (f+1)*n/folds
		train := append(append([]int(nil), perm[:lo]...), perm[hi:]...)
		out[f].xtr, out[f].ytr = rowsOf(x, y, train)
		out[f].xte, out[f].yte = rowsOf(x, y, perm[lo:hi])
	}
	return out
}

// TestSelectExtendsComponents: started at 2 components on data that
// need more, the search doubles them until the choice is interior.
func TestSelectExtendsComponents(t *testing.T) {
	x, y := sincData(120, 4)
	for _, c := range []Criterion{CV, GCV} {
		sel, err := Select(context.Background(), Data{X: x, Y: vec(y)}, SelectOptions{Components: 2, RawFeatures: true, Kernels: []Kernel{RBF{}}, Widths: []float64{0.1}, MaxComponents: 40, By: c}, nil)
		if err != nil {
			t.Fatal(err)
		}
		rows := len(sel.Table) - 1
		if rows <= 2 || sel.Best.M >= rows || sel.Best.M <= 2 {
			t.Errorf("%s: chose m = %d of 0..%d; want an interior choice past the start of 2", c, sel.Best.M, rows)
		}
		// RMSECV is noisy: a minimum counts only with a few larger m
		// fitted after it, at least 3 and a quarter of it.
		if c == CV && rows-sel.Best.M < max(3, (sel.Best.M+3)/4) {
			t.Errorf("cv: chose m = %d with only %d larger m fitted", sel.Best.M, rows-sel.Best.M)
		}
		if sel.Model.validComponents() < sel.Best.M {
			t.Errorf("%s: model has %d components, chosen %d", c, sel.Model.validComponents(), sel.Best.M)
		}
	}
}

// TestSelectCVGrowsAsTheChoiceNeeds: cross-validation continues its
// steps when it needs more components. From fineGrowthRows rows it fits
// only what its choice needs to be clearly behind: checkpoints grow to
// the choice plus behind(choice), and by at least max(3, comp/8). Below,
// where steps are cheap, it doubles, which looks further past a local
// minimum. Started at 2 components, the table must equal a search that
// fitted every m at once (the continued steps are the same steps), and
// it must end at the first checkpoint of its rule where the choice has
// behind(choice) larger m after it, or (from fineGrowthRows rows) where
// the curve is flat.
func TestSelectCVGrowsAsTheChoiceNeeds(t *testing.T) {
	for _, n := range []int{200, fineGrowthRows + 52} {
		x, y := gaussData(n, 6, 7)
		opts := func(start int) SelectOptions {
			return SelectOptions{Components: start, RawFeatures: true, Kernels: []Kernel{RBF{}}, Widths: []float64{0.5}, MaxComponents: 60}
		}
		grown, err := Select(context.Background(), Data{X: x, Y: vec(y)}, opts(2), nil)
		if err != nil {
			t.Fatal(err)
		}
		once, err := Select(context.Background(), Data{X: x, Y: vec(y)}, opts(60), nil)
		if err != nil {
			t.Fatal(err)
		}
		last := len(grown.Table) - 1
		if n >= fineGrowthRows && last >= len(once.Table)-1 {
			t.Fatalf("n=%d: the grown search fitted %d components, the whole range is %d: it did not stop early", n, last, len(once.Table)-1)
		}
		for m, r := range grown.Table {
			if want := once.Table[m].RMSECV; !(relErr(r.RMSECV, want) <= 1e-12) {
				t.Errorf("n=%d, m=%d: RMSECV %.15g after growing, %.15g in one run", n, m, r.RMSECV, want)
			}
		}
		choiceUpTo := func(p int) int {
			best := 0
			for m := 1; m <= p; m++ {
				if once.Table[m].RMSECV < once.Table[best].RMSECV {
					best = m
				}
			}
			return best
		}
		// flatUpTo: from fineGrowthRows rows, the least RMSECV up to p
		// improved by less than a tenth of a percent over the last
		// max(3, (p+3)/4) components.
		flatUpTo := func(p int) bool {
			back := max(3, (p+3)/4)
			if n < fineGrowthRows || p < back {
				return false
			}
			least, before := once.Table[choiceUpTo(p)].RMSECV, once.Table[choiceUpTo(p-back)].RMSECV
			return before-least < 1e-3*least
		}
		p, checkpoints := 2, []int{2}
		for {
			c := choiceUpTo(p)
			if c < p && p-c >= max(3, (c+3)/4) || flatUpTo(p) {
				break
			}
			if n < fineGrowthRows {
				p = min(2*p, 60)
			} else {
				p = min(max(c+max(3, (c+3)/4), p+max(3, p/8)), 60)
			}
			checkpoints = append(checkpoints, p)
		}
		if p != last || len(checkpoints) < 4 {
			t.Errorf("n=%d: the search fitted up to m = %d; the checkpoints %v settle at %d", n, last, checkpoints, p)
		}
		if grown.Best.M != choiceUpTo(last) {
			t.Errorf("n=%d: chose m = %d, the smallest RMSECV up to %d is at %d", n, grown.Best.M, last, choiceUpTo(last))
		}
	}
}

// TestSelectBudget: the search counts its passes over the kernel matrix
// (a build, or one product with a block of vectors) and stops extending
// at its budget, saying so.
func TestSelectBudget(t *testing.T) {
	x, y := sincData(120, 4)
	// GCV without DoF at one width, two components, no room to grow: one
	// build and one product per Krylov step, the fit at the best grid
	// point kept as the model.
	sel, err := Select(context.Background(), Data{X: x, Y: vec(y)}, SelectOptions{DoF: DoFNone, Components: 2, RawFeatures: true, Kernels: []Kernel{RBF{Width: 0.1}}, MaxComponents: 2, By: GCV}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sel.Passes != 1+2 {
		t.Errorf("%d passes, want a build and two products", sel.Passes)
	}
	// The same data need more than 2 components (TestSelectExtendsComponents):
	// a budget of 3 passes keeps the search from growing, with a warning.
	for _, c := range []Criterion{CV, GCV} {
		sel, err := Select(context.Background(), Data{X: x, Y: vec(y)}, SelectOptions{Components: 2, RawFeatures: true, Kernels: []Kernel{RBF{Width: 0.1}}, MaxPasses: 3, By: c}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(sel.Table) != 3 || !strings.Contains(strings.Join(messages(sel.Warnings), "\n"), "budget of 3 passes") {
			t.Errorf("%s: %d rows, warnings %q; want m = 0..2 and the budget named", c, len(sel.Table), sel.Warnings)
		}
	}
}

// TestCrossValidationGrows: when cross-validation needs more components
// than it started with, the folds' fits are continued, not redone. The
// RMSECV of every m must equal that of plain dense fits to each fold with
// all the components from the start, predicting with every m: to 1e-10
// with the folds' shared kernel matrix dense, and to 1e-6 under a memory
// limit that puts it on float32, whose entries carry a relative rounding
// of 6e-8 (the folds' products are resolved to float32Resolution; the
// RMSECV moved by 1.3e-9 here when measured, and a fold centred wrongly
// moves it by far more than 1e-6).
func TestCrossValidationGrows(t *testing.T) {
	x, y := sincData(120, 4)
	n := len(y)
	const folds = 5
	for _, c := range []struct {
		limit   int64
		storage Storage
		tol     float64
	}{{0, StorageDense, 1e-10}, {kernelop.DenseBytes(n) - 1, StorageFloat32, 1e-6}} {
		so := SelectOptions{Seed: 3, Components: 1, RawFeatures: true, Kernels: []Kernel{RBF{}}, Widths: []float64{0.1}, By: CrossValidation{Folds: folds, Repeats: 1}, MaxComponents: 40}
		sel, err := Select(context.Background(), Data{X: x, Y: vec(y)}, so, &Resources{MemoryLimit: c.limit})
		if err != nil {
			t.Fatal(err)
		}
		if got := sharedStorage(t, x, y, c.limit); got != c.storage {
			t.Fatalf("limit %d: the folds' matrix on %q, want %q", c.limit, got, c.storage)
		}
		comp := len(sel.Table) - 1
		if comp < 4 { // grown at least twice from 1
			t.Fatalf("limit %d: the search did not grow (%d components)", c.limit, comp)
		}
		press := make([]float64, comp+1)
		for f, fd := range foldsByHand(x, y, folds, 3, 0) {
			xtr, ytr, xte, yte := fd.xtr, fd.ytr, fd.xte, fd.yte
			mod, err := Fit(context.Background(), Data{X: xtr, Y: vec(ytr)}, Options{Kernel: RBF{Width: 0.1}, Components: comp, DoF: DoFNone, RawFeatures: true}, &Resources{Storage: StorageDense})
			if err != nil {
				t.Fatal(err)
			}
			if mod.validComponents() < comp {
				t.Fatalf("fold %d: %d components, the table has %d", f, mod.validComponents(), comp)
			}
			p, err := mod.predictEvery(context.Background(), xte)
			if err != nil {
				t.Fatal(err)
			}
			for m := 0; m <= comp; m++ {
				for i, v := range yte {
					press[m] += (v - p.At(i, m)) * (v - p.At(i, m))
				}
			}
		}
		for m, r := range sel.Table {
			want := math.Sqrt(press[m] / float64(n))
			if !(relErr(r.RMSECV, want) <= c.tol) {
				t.Errorf("limit %d, m=%d: RMSECV %.15g, plain fits %.15g", c.limit, m, r.RMSECV, want)
			}
		}
	}
}

// sharedStorage is the storage of the kernel matrix over all rows, which
// the folds share, under limit.
func sharedStorage(t *testing.T, x *mat.Dense, y []float64, limit int64) Storage {
	t.Helper()
	m, err := Fit(context.Background(), Data{X: x, Y: vec(y)}, Options{Kernel: RBF{Width: 0.1}, Components: 1, DoF: DoFNone, RawFeatures: true}, &Resources{MemoryLimit: limit})
	if err != nil {
		t.Fatal(err)
	}
	return m.storageKind()
}

// TestSelectWarnsAtTheLimit: when the limit stops the doubling with the
// choice still at the largest m, the warning says so.
func TestSelectWarnsAtTheLimit(t *testing.T) {
	x, y := sincData(120, 4)
	sel, err := Select(context.Background(), Data{X: x, Y: vec(y)}, SelectOptions{Components: 2, RawFeatures: true, Kernels: []Kernel{RBF{}}, Widths: []float64{0.1}, MaxComponents: 2, By: GCV}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sel.Best.M != 2 || !hasWarning(sel.Warnings, WarnChoiceAtEdge) || !strings.Contains(strings.Join(messages(sel.Warnings), "\n"), "largest m fitted (limit 2)") {
		t.Errorf("m = %d, warnings %q", sel.Best.M, sel.Warnings)
	}
}

// TestSelectStopsAtNullDoF: the paper's Lanczos DoF refuses values near
// breakdown (sinc, width 1). No choice may lie at or past the first
// refused m, and the criteria there are NaN, not some other estimate.
func TestSelectStopsAtNullDoF(t *testing.T) {
	x, y := sincData(100, 1)
	o := Options{Kernel: RBF{Width: 1}, RawFeatures: true, Components: 16, DoF: DoFLanczos}
	m, err := Fit(context.Background(), Data{X: x, Y: vec(y)}, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	first := -1
	for i, s := range m.Stats() {
		if math.IsNaN(s.DoF) {
			if !math.IsNaN(s.GCV) || !math.IsNaN(s.BIC) {
				t.Errorf("m=%d: DoF null but GCV %v, BIC %v", i, s.GCV, s.BIC)
			}
			if first < 0 {
				first = i
			}
		}
	}
	if first < 0 {
		t.Fatal("the Lanczos DoF refused nothing: the test needs a null")
	}
	// A criterion that keeps falling until the null must stop before it.
	for i := range m.stats {
		if i < first {
			m.stats[i].GCV = float64(100 - i)
		}
	}
	if got := m.ComponentsBy(GCV); got != first-1 {
		t.Errorf("GCV falling to m = %d, then null: chose %d, want %d", first-1, got, first-1)
	}
	for _, c := range []Criterion{GCV, BIC, AIC, GMDL} {
		sel, err := Select(context.Background(), Data{X: x, Y: vec(y)}, SelectOptions{RawFeatures: true, Components: 16, DoF: DoFLanczos, Kernels: []Kernel{RBF{}}, Widths: []float64{1}, MaxComponents: 16, By: c}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if sel.Best.M >= first || math.IsNaN(sel.Best.DoF) {
			t.Errorf("%s chose m = %d (DoF %v); the first null DoF is at %d", c, sel.Best.M, sel.Best.DoF, first)
		}
	}
}

// TestFitRecordsItsCriterion: Fit's Options.Criterion decides the m that
// predictions use by default, and the choice survives the model file.
func TestFitRecordsItsCriterion(t *testing.T) {
	x, y := sincData(100, 2)
	for _, c := range []Criterion{AIC, BIC, GMDL, GCV} {
		m, err := Fit(context.Background(), Data{X: x, Y: vec(y)}, Options{Kernel: RBF{Width: 0.1}, RawFeatures: true, Components: 12, Criterion: c}, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := Choice{Criterion: c, M: m.ComponentsBy(c)}
		b, err := m.marshal()
		if err != nil {
			t.Fatal(err)
		}
		var back Model
		if err := back.unmarshal(b); err != nil {
			t.Fatal(err)
		}
		if m.Chosen() != want || back.Chosen() != want {
			t.Errorf("%s: chosen %+v, after a round trip %+v, want %+v", c, m.Chosen(), back.Chosen(), want)
		}
	}
	if _, err := Fit(context.Background(), Data{X: x, Y: vec(y)}, Options{Kernel: RBF{Width: 0.1}, Criterion: CV}, nil); err == nil {
		t.Error("Fit with criterion cv: no error")
	}
}

// TestSelectGridAndErrors: the default grid has the linear kernel with
// the RBF widths, rows say their kernel, and bad grids are refused.
func TestSelectGridAndErrors(t *testing.T) {
	x, y := gaussData(50, 3, 7)
	sel, err := Select(context.Background(), Data{X: x, Y: vec(y)}, SelectOptions{Components: 3, MaxComponents: 6, By: GCV}, nil)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, r := range sel.Table {
		kinds[r.Kernel.Name()]++
		if r.Kernel == (Linear{}) && r.Width() != 0 {
			t.Errorf("linear row with width %g", r.Width())
		}
	}
	if kinds["linear"] == 0 || kinds["rbf"] == 0 {
		t.Errorf("rows per kernel %v, want both", kinds)
	}
	for _, so := range []SelectOptions{
		{Widths: []float64{1, 1}},
		{Widths: []float64{-1}},
		{Kernels: []Kernel{namedOnly("poly")}},
		{Kernels: []Kernel{RBF{}, RBF{}}},
		{Kernels: []Kernel{Laplacian{Width: 2}, Laplacian{Width: 2}}},
		{Kernels: []Kernel{nil}},
		{Kernels: []Kernel{Matern{Nu: 3}}},
		{By: Criterion("loo")},
		{By: CrossValidation{Folds: 1}},
	} {
		if _, err := Select(context.Background(), Data{X: x, Y: vec(y)}, so, nil); err == nil {
			t.Errorf("%+v: no error", so)
		}
	}
}

// TestPredictEvery matches Predict for every m.
func TestPredictEvery(t *testing.T) {
	x, y := gaussData(40, 2, 3)
	m, err := Fit(context.Background(), Data{X: x, Y: vec(y)}, Options{Kernel: RBF{Width: 1}, Components: 5, DoF: DoFNone}, nil)
	if err != nil {
		t.Fatal(err)
	}
	z, _ := gaussData(7, 2, 4)
	all, err := m.predictEvery(context.Background(), z)
	if err != nil {
		t.Fatal(err)
	}
	for c := 0; c <= m.validComponents(); c++ {
		p, err := m.predictAt(context.Background(), z, c)
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range p {
			if !(math.Abs(all.At(i, c)-v) <= 1e-12*math.Max(1, math.Abs(v))) {
				t.Errorf("m=%d row %d: %v, Predict %v", c, i, all.At(i, c), v)
			}
		}
	}
	var _ mat.Matrix = all
}

// TestSelectSkipsPastTheTurn: with the default widths, once a kernel's
// score at a width is worse than at the next narrower one and worse than
// the best by more than the margin, the wider default widths are not
// fitted. The oracle is the same search over the same widths given
// explicitly (given widths are all fitted): the skipped widths must be
// exactly those its scores say, and the choice and the mean must not
// change, since the skipped widths score outside the margin.
func TestSelectSkipsPastTheTurn(t *testing.T) {
	// A rough target on four standardised features: the default RBF
	// grid 0.5 … 8 is too wide for it, so the score turns early.
	rng := rand.New(rand.NewPCG(11, 3))
	n, d := 300, 4
	x := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := range y {
		for j := range d {
			x.Set(i, j, rng.NormFloat64())
		}
		y[i] = math.Sin(3*x.At(i, 0)) + math.Cos(3*x.At(i, 1)) + 0.1*rng.NormFloat64()
	}
	defaults := []float64{0.5, 1, 2, 4, 8}
	base := SelectOptions{Isotropic: true, Kernels: []Kernel{RBF{}}, By: CrossValidation{AverageWithin: DefaultAverageWithin}}
	auto, err := Select(context.Background(), Data{X: x, Y: vec(y)}, base, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The oracle fits every width auto fitted or skipped.
	given := base
	for _, c := range auto.Choices {
		w, _ := WidthOf(c.Kernel)
		given.Widths = append(given.Widths, w)
	}
	var got []float64
	for _, k := range auto.Skipped {
		w, _ := WidthOf(k)
		got = append(got, w)
		given.Widths = append(given.Widths, w)
	}
	full, err := Select(context.Background(), Data{X: x, Y: vec(y)}, given, nil)
	if err != nil {
		t.Fatal(err)
	}
	score := map[float64]float64{}
	for _, c := range full.Choices {
		w, _ := WidthOf(c.Kernel)
		score[w] = c.RMSECV
	}
	var want []float64
	best := math.Inf(1)
	for i, w := range defaults {
		best = min(best, score[w])
		if i > 0 && score[w] > score[defaults[i-1]] && score[w] > (1+skipMargin)*best {
			want = defaults[i+1:]
			break
		}
	}
	if len(want) == 0 {
		t.Fatalf("the scores %v never turn: the test data do not exercise the rule", score)
	}
	if !slices.Equal(got, want) {
		t.Errorf("skipped %v, want %v (scores by width %v)", got, want, score)
	}
	if kernelLabel(auto.Best.Kernel) != kernelLabel(full.Best.Kernel) || auto.Best.M != full.Best.M || auto.Best.RMSECV != full.Best.RMSECV {
		t.Errorf("best %s m=%d (%g), every width fitted: %s m=%d (%g)", kernelLabel(auto.Best.Kernel), auto.Best.M, auto.Best.RMSECV,
			kernelLabel(full.Best.Kernel), full.Best.M, full.Best.RMSECV)
	}
	if len(auto.mean().Members()) != len(full.mean().Members()) {
		t.Errorf("a mean of %d models, every width fitted: %d", len(auto.mean().Members()), len(full.mean().Members()))
	}
	if auto.Passes >= full.Passes {
		t.Errorf("%d passes, every width fitted: %d", auto.Passes, full.Passes)
	}
}

// TestFlatCurve: from fineGrowthRows rows, cross-validation settles a
// point whose least RMSECV improved by less than 10⁻³ of it over the last
// max(3, ⌈m/4⌉) components, wherever its choice sits, and not where it
// improved by more, below fineGrowthRows rows, or with weighted rows.
// The curves and their answers are worked by hand.
func TestFlatCurve(t *testing.T) {
	curve := func(step float64) []SelectionRow {
		rows := make([]SelectionRow, 61) // m = 0..60: behind(60) = 15
		for m := range rows {
			rows[m].RMSECV = 2 - float64(min(m, 40))/40 - step*float64(max(m-40, 0))
		}
		return rows
	}
	// From m = 45 to 60 the least falls by 15·step: 1.5e-4 relative for
	// step 1e-5 (flat), 1.5e-2 for step 1e-3 (not).
	for _, tc := range []struct {
		n        int
		step     float64
		weighted bool
		want     bool
	}{
		{3000, 1e-5, false, true},
		{3000, 1e-3, false, false},
		{fineGrowthRows - 1, 1e-5, false, false},
		{3000, 1e-5, true, false},
	} {
		s := &selector{n: tc.n, by: cvScorer{folds: 5, repeats: 1}}
		if tc.weighted {
			s.opts.Weights = make([]float64, tc.n)
		}
		if got := s.flat(curve(tc.step), 60); got != tc.want {
			t.Errorf("n = %d, step %g, weighted %v: flat %v, want %v", tc.n, tc.step, tc.weighted, got, tc.want)
		}
	}
}
