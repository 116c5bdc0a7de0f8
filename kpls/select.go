package kpls

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/internal/stacking"
)

// The search's inner thresholds.
const (
	// skipMargin is how much worse than the best a kernel's score past
	// its turn over the widths must be for the search to skip its wider
	// widths (selector.skipWider); averaging every point within a wider
	// margin (AverageAll) widens it to that margin.
	skipMargin = 0.05
	// stackMinWeight is the stacking weight a candidate needs to join the
	// mean (AverageStacked): half a percent.
	stackMinWeight = 0.005
	// widthGain is the relative improvement of the best score below which
	// an extension of the widths past the edge is not followed by
	// another: the score is flat there. (A threshold of one standard
	// error of RMSECV over the folds stopped slow, steady slopes too
	// early: 2.5 % worse held-out on a panel split; docs/scale.md.)
	widthGain = 1e-3
)

// DefaultKernels are the kernels Select searches when SelectOptions.Kernels
// is nil: the smooth RBF, the rough Laplacian (Matérn ν = 1/2) and the
// linear kernel. Rough data want the Laplacian: on protein it reached
// 3.36 Å held out where the best RBF reached 3.69, and it brought the
// small sets of the held-out panel from 0.98 to 0.96 of cross-validated
// kernel ridge; smooth data keep the RBF (docs/scale.md).
func DefaultKernels() []Kernel { return []Kernel{RBF{}, Laplacian{}, Linear{}} }

// behind is how many components past a cross-validation choice the
// search fits before it takes the minimum as clearly behind: RMSECV is
// noisy, and a minimum with only a few larger m fitted after it is often
// not the minimum.
func behind(choice int) int { return max(3, (choice+3)/4) }

// SelectOptions configure Select. The zero value searches the RBF widths
// d/8, d/4, d/2, d and 2d (d features), the Laplacian widths √d/4 … 4√d
// and the linear kernel by 5-fold cross-validation, and predicts with the
// mean of the grid points within DefaultAverageWithin of the best. It
// extends the components while a choice is not clearly behind the largest
// m fitted (doubling them, or with cross-validation on 2,048 rows or
// more, as far as the choice needs, and no further once RMSECV is flat),
// skips a kernel's default widths past
// the turn of its score (Selection.Skipped), and extends the widths by
// factors of 2 while the best sits at the narrowest or widest and
// improves there, with no fixed count of either: what bounds them is
// what the data allow and a budget of passes over the kernel matrix
// (MaxPasses), which the Selection reports.
type SelectOptions struct {
	// Kernels to search; nil means DefaultKernels(). A kernel with a
	// width (RBF, Laplacian, Matern) whose width is zero is searched over
	// Widths; one with its width set is a single grid point.
	Kernels []Kernel
	// Widths for the kernels whose width is zero; nil means the kernel's
	// default width (see each kernel) times 1/4, 1/2, 1, 2 and 4 (for RBF:
	// d/8, d/4, d/2, d and 2d), extended past the edge the best one sits
	// at. Given widths are searched as given. Each must be positive and
	// finite, and appear once.
	Widths []float64
	// By scores the grid: a CrossValidation (nil means CrossValidation{})
	// or a Criterion computed from one fit's DoF (GCV, AIC, BIC, GMDL),
	// which needs no refits and makes no mean.
	By Scoring
	// Components is where the search starts (zero: DefaultComponents);
	// MaxComponents bounds how far it extends them (zero: what the data
	// allow).
	Components, MaxComponents int
	// MaxPasses is the search's budget of passes over the kernel matrix:
	// a build, or one product with a block of vectors, counts one (the
	// cost per pass is about the same whatever the block's width up to a
	// few vectors). Past it the search extends neither widths nor
	// components, and warns (WarnBudget). Zero means DefaultMaxPasses.
	// A screen's sample has a budget of its own (Screen.Passes); a small
	// set's weighed search (Selection.Weighed) shares the selection's.
	MaxPasses int
	// DoF, Lanczos, Probes and RawFeatures are every fit's, as in
	// Options; the folds' fits never compute DoF. An empty DoF fits the
	// members of a mean (the best included) without DoF, and a best point
	// alone with DoFApprox (Selection.Model). Seed seeds the DoF probes,
	// the folds' assignment and the screen's sample.
	DoF         DoFMethod
	Lanczos     int
	Probes      int
	Seed        uint64
	RawFeatures bool
	// ScreenRows is the sample of rows a first round scores the grid on,
	// with these options, after which only its best points (the two best
	// and each other kernel's best, none more than 15 % behind the best
	// RMSECV on the sample, or 1.5 times AverageWithin if wider) are
	// searched on all rows (Selection.Screen). Zero means n/8 rows, at
	// least 2,048, from 6,144 rows on, with cross-validation; a negative
	// value searches every point on all rows. A screen needs
	// cross-validation and rows without weights, kernel inputs and one
	// process (not MPI); asked for otherwise, it is an error. Where the
	// search cannot run on the sample (a target constant there), it runs
	// on all rows alone and warns (WarnScreen). A search cancelled while screening returns no
	// selection.
	ScreenRows int
	// Isotropic keeps every standardised feature at weight 1. Otherwise
	// a search of one target on standardised features with RBF among the
	// kernels, by cross-validation without weights, learns a weight per
	// feature. Below the rows a screen samples from (6,144), from 50
	// rows on, a Gaussian process with one length scale per feature
	// learns them by its marginal likelihood on at most 1,000 rows, and
	// the grid is searched again with the features weighed; the search
	// whose best point has the smaller RMSECV is the selection
	// (Selection.Weighed); not with more than 256 features, nor over MPI
	// ranks. A screen whose sample is at most a third of
	// the rows learns them on its sample instead (Screen.Relevance; the
	// gradient of the sample's best RBF fit) and scores the grid there
	// again with the features weighed. If that scores better, it searches the sample's
	// best point unweighed and weighed on a second sample of as many
	// rows (Screen.Check), and on all rows the points of the grid,
	// weighed or not, whose best scored better there.
	Isotropic bool
	// Exhaustive searches every point a screen keeps on all rows to its
	// own choice of m. Otherwise that second round races them: the
	// sample's best first, and a point stops once its least RMSECV is
	// more than Selection.RaceMargin above the least of the best point
	// so far over the same m, that gap is no smaller than at half the m,
	// and the m is at least half the best point's choice (its choice row
	// then says Raced). A shared kernel of several targets does not race.
	Exhaustive bool
}

// Scoring is how Select scores its grid: a CrossValidation or a
// Criterion.
type Scoring interface{ scoring() }

func (CrossValidation) scoring() {}
func (Criterion) scoring()       {}

// CrossValidation scores every grid point and m by the root mean squared
// error of k-fold cross-validation (RMSECV), and averages the best points.
type CrossValidation struct {
	// Folds is the number of folds (2..n); zero means DefaultFolds.
	Folds int
	// Repeats is how many times k-fold cross-validation is repeated, each
	// time with a new random assignment of the rows to folds, the RMSECV
	// pooling every repeat's held-out errors; zero means once. Repeat r's
	// folds are seeded by (Seed, r), repeat 0's as a single run's. The
	// repeats share each kernel matrix and block product. On the panel's
	// small data sets five repeats did not bring the held-out error closer
	// to cross-validated kernel ridge (docs/scale.md), so the default
	// stays one.
	Repeats int
	// AverageWithin makes the grid points whose choice has an RMSECV at
	// most (1 + AverageWithin) times the best one's the candidates of a
	// mean of models; AverageBy chooses its members among them, each
	// fitted to all rows at its own chosen m without DoF, and Select
	// returns their mean as Selection.Predictor. On the panel's small data
	// sets that came closer to cross-validated kernel ridge than the best
	// point alone (docs/scale.md). Without DoF asked for, the members'
	// fits to all rows ride in the folds' block products and cost no pass
	// of their own. Zero means DefaultAverageWithin.
	AverageWithin float64
	// AverageBy is how the mean's members are chosen among the grid
	// points within AverageWithin (the best is always one):
	// AverageStacked (the zero value) or AverageAll; AverageNone predicts
	// with the best grid point alone.
	AverageBy Averaging
	// SharedKernel, with several targets (SelectTargets), chooses one
	// kernel and width for all of them, by the mean of 1 − Q² over the
	// targets, each with its own m.
	SharedKernel bool
}

// config joins so with the data and resources of a search.
func (so *SelectOptions) config(d *Data, r *Resources) selectConfig {
	o := Options{Components: so.Components, DoF: so.DoF, Lanczos: so.Lanczos, Probes: so.Probes, Seed: so.Seed, RawFeatures: so.RawFeatures}
	sc := selectConfig{config: newConfig(o, d, r), Kernels: so.Kernels, Widths: so.Widths,
		MaxComponents: so.MaxComponents, MaxPasses: so.MaxPasses, ScreenRows: so.ScreenRows, Isotropic: so.Isotropic, Exhaustive: so.Exhaustive}
	switch by := so.By.(type) {
	case *CrossValidation:
		if by != nil {
			sc.setCV(*by)
		}
	case CrossValidation:
		sc.setCV(by)
	case *Criterion:
		if by != nil {
			sc.Criterion = *by
		}
	case Criterion:
		sc.Criterion = by
	}
	sc.Criterion = cmp.Or(sc.Criterion, CV)
	return sc
}

// setCV sets sc's cross-validation from cv.
func (sc *selectConfig) setCV(cv CrossValidation) {
	sc.Folds, sc.Repeats, sc.SharedKernel = cv.Folds, cv.Repeats, cv.SharedKernel
	sc.AverageWithin, sc.AverageBy = cv.AverageWithin, cv.AverageBy
}

// selectConfig is a search's settings as SelectOptions, Data and
// Resources give them (SelectOptions documents the fields).
type selectConfig struct {
	config
	Kernels       []Kernel
	Widths        []float64
	Folds         int
	Repeats       int
	MaxComponents int
	SharedKernel  bool
	MaxPasses     int
	AverageWithin float64
	AverageBy     Averaging
	ScreenRows    int
	Isotropic     bool
	Exhaustive    bool
	// race is the margin the search races its points by (zero: it does
	// not): the second round of a screen.
	race float64
	// scaled are grid points (resolved kernels) searched with the
	// features weighed by scaledBy, beside those of Kernels: the second
	// round of a screen that learned relevances.
	scaled   []Kernel
	scaledBy []float64
}

// Averaging names how Select chooses the members of its mean of models.
type Averaging string

const (
	// AverageStacked keeps the candidates that stacked regression
	// (Breiman 1996) weighs: the non-negative weights, summing to one,
	// that combine the candidates' out-of-fold predictions at their
	// chosen m closest to y. A candidate with a weight of at least half a
	// percent joins the mean, which averages its members equally. The
	// weights need no extra fits: cross-validation has the out-of-fold
	// predictions already.
	AverageStacked Averaging = "stacked"
	// AverageAll averages every grid point within the margin.
	AverageAll Averaging = "all"
	// AverageNone predicts with the best grid point's model alone.
	AverageNone Averaging = "none"
)

// ParseAveraging parses an averaging rule; "" means AverageStacked.
func parseAveraging(s string) (Averaging, error) {
	switch a := Averaging(strings.ToLower(s)); a {
	case "", AverageStacked:
		return AverageStacked, nil
	case AverageAll, AverageNone:
		return a, nil
	}
	return "", fmt.Errorf("%w: averaging %q (want stacked, all or none)", ErrBadOption, s)
}

// Selection is the outcome of model selection over a grid of kernels and
// numbers of components.
type Selection struct {
	Criterion Criterion
	// Table holds every (kernel, width, m) cell of the points searched on
	// all rows (a screened search's kept points; Screen), grid points in
	// order and m from 0 to the components fitted there. With CV, the statistics of
	// the fit to all rows are known only for the chosen grid point; the
	// other rows carry NaN there and their RMSECV and Q².
	Table []SelectionRow
	// Choices holds each grid point's choice: the first local minimum of
	// the criterion over m (CV: the smallest RMSECV).
	Choices []SelectionRow
	// Best is the winning row: the choice with the lowest score.
	Best SelectionRow
	// Model is fitted to all rows at the best grid point; it records the
	// choice (Model.Chosen), which predictions use by default. It has the
	// DoF of SelectOptions.DoF, except when it is the first of a mean of
	// several models and SelectOptions.DoF was left empty: then, like the Mean's other
	// members, it is fitted without DoF (its bands take the RMSECV).
	Model *Model
	// Warnings collects each grid point's warnings, prefixed by it.
	Warnings []Warning
	// Passes is how many passes over a kernel matrix the search made
	// (see SelectOptions.MaxPasses), the final fit's included.
	Passes int
	// Repeats is how many k-fold assignments cross-validation pooled
	// (CrossValidation.Repeats); zero for the DoF criteria.
	Repeats int
	// Skipped are the default grid's widths the search did not fit: those
	// wider than a width where the kernel's score turned worse, by more
	// than 5 % of the best (AverageAll: the averaging margin, if wider).
	Skipped []Kernel
	// Screen is the first round that chose which grid points the search
	// scored on all rows, nil if it searched every point
	// (SelectOptions.ScreenRows): Table holds the kept points' rows only.
	Screen *Screen
	// Weighed is a small set's second search with the features weighed
	// by a Gaussian process's length scales (SelectOptions.Isotropic),
	// nil where none ran.
	Weighed *WeighedSearch
	// RaceMargin is the relative margin of RMSECV by which the search
	// raced its points (SelectOptions.Exhaustive), zero where it did not.
	RaceMargin float64
	// Predictor is what to predict with, never nil: the mean of the
	// models of the grid points within the averaging margin that AverageBy
	// keeps (CrossValidation.AverageWithin), Model (the best) first and the
	// others by RMSECV, each fitted to all rows and predicting with its
	// own choice of m; or Model itself when no other point is kept or
	// averaging is off. A mean's other members are fitted without DoF
	// (DoFNone), and so is Model unless SelectOptions.DoF was set: the mean's
	// bands and intervals take the members' RMSECV, and its DoF and σ̂
	// are NaN.
	Predictor Predictor
	// MeanBy is the rule that chose the mean's members: AverageStacked,
	// or AverageAll when asked for or when stacking could not choose
	// (with a WarnAveraging warning). MeanWeights are the members'
	// stacking weights (AverageStacked; the mean averages them equally).
	MeanBy      Averaging
	MeanWeights []float64
	// PredictorRMSECV is the cross-validated RMSE of Predictor itself:
	// for a mean, the root mean squared error of the equal mean of its
	// members' out-of-fold predictions at their choices (the folds' own,
	// kept for stacking, so it costs no fit), which is below the members'
	// RMSECV as the mean's error is below theirs; for Model alone,
	// Best.RMSECV. With repeats the members' predictions are first
	// averaged over them. NaN where the folds' predictions are not kept
	// (AverageAll, weighted cross-validation) and for the DoF criteria.
	PredictorRMSECV float64
}

// SelectionRow is one cell of the grid.
type SelectionRow struct {
	// Kernel is the grid point's kernel with its parameters resolved; in
	// JSON an object {"name", "width", ...} as in model files.
	Kernel Kernel `json:"-"`
	Stats
	// RMSECV is the root mean squared error of cross-validation and Q2 =
	// 1 − PRESS/TSS; NaN without CV.
	RMSECV float64 `json:"rmsecv"`
	Q2     float64 `json:"q2"`
	// Scaled says the grid point weighs the features by the relevances
	// learned on the screen's sample (Screen.Relevance) or, on a small
	// set, by a Gaussian process (Selection.Weighed).
	Scaled bool `json:"scaled,omitempty"`
	// Raced marks a point's choice row where the race stopped the point
	// behind the best (Selection.RaceMargin): its choice is the least
	// RMSECV of the components fitted, not of all it could have been.
	Raced bool `json:"raced,omitempty"`
}

// Score returns the row's value of criterion c (RMSECV for CV).
func (r SelectionRow) Score(c Criterion) float64 {
	if c == CV {
		return r.RMSECV
	}
	return r.Stats.Score(c)
}

// Width is the width of the row's kernel, 0 for kernels without one.
func (r SelectionRow) Width() float64 {
	w, _ := WidthOf(r.Kernel)
	return w
}

// label names the row's grid point.
func (r SelectionRow) label() string { return scaledLabel(kernelLabel(r.Kernel), r.Scaled) }

// scaledLabel marks the label of a grid point that weighs the features.
func scaledLabel(label string, scaled bool) string {
	if scaled {
		return label + " scaled"
	}
	return label
}

// MarshalJSON writes the row with its kernel as an object.
func (r SelectionRow) MarshalJSON() ([]byte, error) {
	k, err := kernelJSON(r.Kernel)
	if err != nil {
		k, _ = json.Marshal(r.Kernel.Name())
	}
	return json.Marshal(struct {
		Kernel json.RawMessage `json:"kernel"`
		statsJSON
		RMSECV jsonNum `json:"rmsecv"`
		Q2     jsonNum `json:"q2"`
		Scaled bool    `json:"scaled,omitempty"`
	}{k, r.Stats.json(), jsonNum(r.RMSECV), jsonNum(r.Q2), r.Scaled})
}

// gridPoint is one kernel of the search; id tells grid points apart (a
// Func kernel cannot be compared). relevance, if not nil, weighs its
// features (Options.Relevance).
type gridPoint struct {
	kernel    Kernel
	id        int
	relevance []float64
}

// label names the grid point in rows and warnings.
func (g gridPoint) label() string { return scaledLabel(kernelLabel(g.kernel), g.relevance != nil) }

func (g gridPoint) width() float64 {
	w, _ := WidthOf(g.kernel)
	return w
}

// Select chooses the kernel, the RBF width and the number of components:
// for every grid point it fits once per fold (CV) or once to all rows
// (the DoF-based criteria), reads every m from that run, and extends the
// components while the choice sits at the largest m fitted. One n×n
// buffer is reused across the grid.
//
// When ctx is cancelled during the search, Select returns ctx's error
// and, if some grid point was scored by then, the selection so far: its
// Table, Choices and Best, without Model or Predictor (nothing was fitted
// to all rows), so that a caller can say what was found.
func Select(ctx context.Context, d Data, so SelectOptions, r *Resources) (*Selection, error) {
	sc := so.config(&d, r)
	y, c, err := d.single(sc.config)
	if err != nil {
		return nil, err
	}
	sc.config = c
	sels, err := selectTargets(ctx, d.X, [][]float64{y}, sc)
	if sels == nil {
		return nil, err
	}
	return sels[0], err
}

// SelectTargets runs Select for every column of d.Y (n×q) at once: the
// targets share every kernel matrix and every product with it (their
// folds' fits advance in one block product), and each gets its own
// choice of kernel, width and m, the one Select with
// SelectOptions.Isotropic gives for its column alone (to rounding; the
// budget of passes is shared): several targets learn no feature
// weights, which Select of one target may. With
// CrossValidation.SharedKernel, one kernel and width serve all targets,
// each with its own m. With d.TargetNames set, target t's model records
// TargetNames[t] as its name. A cancelled search returns the selections
// so far with the context's error, as Select does.
func SelectTargets(ctx context.Context, d Data, so SelectOptions, r *Resources) ([]*Selection, error) {
	sc := so.config(&d, r)
	ys, err := d.columns(sc.config)
	if err != nil {
		return nil, err
	}
	return selectTargets(ctx, d.X, ys, sc)
}

func selectTargets(ctx context.Context, x mat.Matrix, ys [][]float64, so selectConfig) ([]*Selection, error) {
	s, scanned, err := newSelector(ctx, x, ys, so)
	if err != nil {
		return nil, err
	}
	// The options were checked against all rows; a screened search then
	// starts again on the points the sample kept.
	sc, err := screen(ctx, s, so)
	if err != nil {
		return nil, err
	}
	if sc != nil && sc.record != nil {
		if s, scanned, err = newSelector(ctx, s.x, ys, sc.second); err != nil {
			return nil, err
		}
	}
	learn := sc == nil && so.learnsARD(s)
	if learn {
		s.after = 1 // the weighed search
	}
	err = s.search(scanned)
	if err == nil && learn {
		s, err = s.weighedSearch(so)
	}
	if err != nil {
		if ctx.Err() != nil && s.scoredEvery() {
			for _, sel := range s.sels {
				sel.Passes, sel.RaceMargin = s.passes, s.race
			}
			sc.finish(s.sels)
			return s.sels, err // the best so far, for the caller to report
		}
		return nil, err
	}
	// Targets at the same grid point follow one another, so that they
	// share its kernel matrix.
	order := make([]int, len(ys))
	best := make([]int, len(ys))
	for _, c := range s.choosers {
		for _, t := range c.targets {
			order[t], best[t] = t, c.best
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return best[a] - best[b] })
	var prev *fitter
	for i, t := range order {
		if i > 0 && best[order[i-1]] != best[t] {
			prev = nil
		}
		sel, r := s.sels[t], s.results[best[t]][t]
		// The best of a mean of several models is fitted without DoF too,
		// unless they were asked for: the mean has none (its members'
		// are not all known), and its bands take the RMSECV.
		cands, _, _ := s.meanCandidates(t, best[t], sel.Best.RMSECV)
		noDoF := !s.dofAsked && len(cands) > 0
		m, f, err := s.final(t, s.points[best[t]], sel.Best.M, len(r.rows)-1, r.model, prev, noDoF)
		if err != nil {
			return nil, s.targetError(t, err)
		}
		if f != nil {
			prev = f
		}
		sel.Model, sel.Predictor = m, m
		sel.PredictorRMSECV = math.NaN()
		s.by.finish(sel, m)
		for _, w := range m.warns {
			sel.Warnings = append(sel.Warnings, w.prefixed(sel.Best.label()+" (chosen model)"))
		}
	}
	if s.avgWithin > 0 {
		for t, sel := range s.sels {
			if err := s.average(t, best[t], sel); err != nil {
				return nil, s.targetError(t, err)
			}
		}
	}
	for _, sel := range s.sels {
		sel.Passes, sel.RaceMargin = s.passes, s.race
	}
	sc.finish(s.sels)
	return s.sels, nil
}

// newSelector checks Select's options against the data and sets up the
// search with its grid and one chooser per target (one for all of them
// with SharedKernel).
func newSelector(ctx context.Context, x mat.Matrix, ys [][]float64, so selectConfig) (*selector, map[string]bool, error) {
	opts := so.config
	xs, n, d, err := denseRows(x, "x")
	if err != nil {
		return nil, nil, err
	}
	st, err := so.settings(n)
	if err != nil {
		return nil, nil, err
	}
	if err := so.checkWeights(n); err != nil {
		return nil, nil, err
	}
	tss := make([]float64, len(ys))
	for t, y := range ys {
		if err := checkResponse(y, n, d); err != nil {
			return nil, nil, targetError(opts, t, len(ys), err)
		}
		tss[t] = sumSquaresAboutMean(y, opts.Weights)
	}
	grid, scanned, err := so.grid(n, d)
	if err != nil {
		return nil, nil, err
	}
	s := &selector{ctx: ctx, x: mat.NewDense(n, d, xs), ys: ys, tss: tss, n: n, d: d, by: st.score, folds: st.folds, repeats: st.repeats,
		avgWithin: st.avgWithin, avgBy: st.avgBy, dofAsked: opts.DoF != "", seed: opts.Seed,
		start: st.start, maxComp: max(st.maxComp, st.start), budget: st.budget, opts: opts, points: grid}
	if st.score.criterion() == CV && so.Weights == nil && !(so.SharedKernel && len(ys) > 1) {
		s.race = so.race // raced races one target's chooser only
	}
	s.results = make([][]*pointResult, len(grid))
	for p := range s.results {
		s.results[p] = make([]*pointResult, len(ys))
	}
	ids := make([]int, len(grid))
	for p := range ids {
		ids[p] = p
	}
	for t := range ys {
		s.sels = append(s.sels, &Selection{Criterion: s.by.criterion(), Repeats: st.repeats})
		if so.SharedKernel && t > 0 {
			s.choosers[0].targets = append(s.choosers[0].targets, t)
			continue
		}
		s.choosers = append(s.choosers, &chooser{targets: []int{t}, grid: slices.Clone(ids), first: len(ids), best: -1, bestScore: math.Inf(1)})
	}
	return s, scanned, nil
}

// selectSettings are the search's settings: selectConfig with every
// default filled in.
type selectSettings struct {
	score                                  scorer
	avgBy                                  Averaging
	avgWithin                              float64
	folds, repeats, maxComp, budget, start int
}

// settings checks so for n rows and fills in its defaults.
func (so *selectConfig) settings(n int) (selectSettings, error) {
	var st selectSettings
	var err error
	if err = so.scoring(n, &st); err != nil {
		return st, err
	}
	switch {
	case so.Lanczos < 0:
		return st, fmt.Errorf("%w: SelectOptions.Lanczos: %d steps", ErrBadOption, so.Lanczos)
	case so.Probes < 0 || so.Probes == 1:
		return st, fmt.Errorf("%w: SelectOptions.Probes: %d (want 0 for the default or at least 2)", ErrBadOption, so.Probes)
	}
	if so.MaxComponents < 0 {
		return st, fmt.Errorf("%w: SelectOptions.MaxComponents: %d (want 0 for what the data allow, or more)", ErrComponents, so.MaxComponents)
	}
	st.maxComp = cmp.Or(so.MaxComponents, math.MaxInt) // zero: what the data allow
	if so.MaxPasses < 0 {
		return st, fmt.Errorf("%w: SelectOptions.MaxPasses: a budget of %d passes", ErrBadOption, so.MaxPasses)
	}
	st.budget = cmp.Or(so.MaxPasses, DefaultMaxPasses)
	if st.start = cmp.Or(so.Components, DefaultComponents); st.start < 0 {
		return st, fmt.Errorf("%w: SelectOptions.Components: %d", ErrComponents, st.start)
	}
	return st, nil
}

// scoring sets st's scorer, and with cross-validation its folds, repeats
// and averaging, from so for n rows: cross-validation averages within
// DefaultAverageWithin unless AverageBy is AverageNone.
func (so *selectConfig) scoring(n int, st *selectSettings) error {
	crit, err := parseCriterion(string(so.Criterion))
	if err != nil {
		return err
	}
	if crit = cmp.Or(crit, DefaultCriterion); crit != CV {
		st.score = criterionScorer{crit}
		return nil
	}
	if st.folds = cmp.Or(so.Folds, DefaultFolds); st.folds < 2 || st.folds > n {
		return fmt.Errorf("%w: CrossValidation.Folds: %d folds for %d rows (want 2..n)", ErrBadOption, st.folds, n)
	}
	if so.Repeats < 0 {
		return fmt.Errorf("%w: CrossValidation.Repeats: %d (want 0 for once, or more)", ErrBadOption, so.Repeats)
	}
	st.repeats = max(so.Repeats, 1)
	st.score = cvScorer{folds: st.folds, repeats: st.repeats}
	within := so.AverageWithin
	if within < 0 || math.IsNaN(within) || math.IsInf(within, 0) {
		return fmt.Errorf("%w: CrossValidation.AverageWithin: %g, want a finite margin ≥ 0", ErrBadOption, within)
	}
	if st.avgBy, err = parseAveraging(string(so.AverageBy)); err != nil {
		return err
	}
	switch {
	case st.avgBy == AverageNone:
		within = 0
	case within == 0:
		within = DefaultAverageWithin
	}
	st.avgWithin = within
	return nil
}

// checkWeights checks the weights, if any, for n rows and the kernels
// searched: a precomputed kernel matrix takes none.
func (so *selectConfig) checkWeights(n int) error {
	if so.Weights == nil {
		return nil
	}
	if err := checkWeights(so.Weights, n); err != nil {
		return err
	}
	gram := func(k Kernel) bool { return k != nil && mustBehave(k).inputs() == inputGram }
	if gram(so.Kernel) || slices.ContainsFunc(so.Kernels, gram) {
		return fmt.Errorf("%w: weights with a precomputed kernel matrix are not supported: repeat its rows and columns instead", ErrBadOption)
	}
	return nil
}

// sumSquaresAboutMean is Σ(y − ȳ)², or with weights Σw(y − ȳ_w)².
func sumSquaresAboutMean(y, w []float64) float64 {
	if w != nil {
		wt, keep := newWeighting(w)
		var ss float64
		_, yc := wt.centre(pick(y, keep))
		for _, v := range yc {
			ss += v * v
		}
		return ss
	}
	var mean, ss float64
	for _, v := range y {
		mean += v
	}
	mean /= float64(len(y))
	for _, v := range y {
		ss += (v - mean) * (v - mean)
	}
	return ss
}

// pick returns v at the indices idx.
func pick(v []float64, idx []int) []float64 {
	out := make([]float64, len(idx))
	for i, j := range idx {
		out[i] = v[j]
	}
	return out
}

// chooser chooses the grid point of one target, or of all of them with
// SharedKernel: it takes in its own list of grid points in order,
// extends the list past the edge its best sits at, and keeps its best.
type chooser struct {
	targets   []int
	grid      []int  // ids of the selector's points, in the order taken in
	next      int    // index in grid of the next point to take in
	first     int    // len(grid) before any extension
	why       string // why the widths stopped at an edge, if they did
	best      int    // id of the best point, −1 if none yet
	bestScore float64
}

// search evaluates every grid point some chooser needs, for the targets
// that need it together, until every chooser has taken in its grid, and
// records each target's table and best in s.sels.
func (s *selector) search(scanned map[string]bool) error {
	for {
		p := -1
		for _, c := range s.choosers {
			if c.next < len(c.grid) && (p < 0 || c.grid[c.next] < p) {
				p = c.grid[c.next]
			}
		}
		if p < 0 {
			break
		}
		var ts []int
		var cs []*chooser
		for _, c := range s.choosers {
			if c.next < len(c.grid) && c.grid[c.next] == p {
				cs, ts = append(cs, c), append(ts, c.targets...)
			}
		}
		g := s.points[p]
		s.opts.report(StageSelect, g.kernel, s.before+s.evaluated, s.before+(1+s.after)*len(s.points))
		if err := s.evaluate(g, ts); err != nil {
			return fmt.Errorf("%s: %w", g.label(), err)
		}
		s.evaluated++
		for _, c := range cs {
			s.takeIn(c, p, scanned)
		}
	}
	for _, c := range s.choosers {
		if c.best < 0 {
			return fmt.Errorf("%w: no grid point has a usable %s score", ErrBreakdown, s.by.criterion())
		}
		if c.why != "" {
			b := s.points[c.best]
			ext := "extensions"
			if len(c.grid)-c.first == 1 {
				ext = "extension"
			}
			w := warnf(WarnWidthAtEdge, "the best %s width %g is at the edge of the grid after %d %s: %s", b.kernel.Name(), b.width(), len(c.grid)-c.first, ext, c.why)
			for _, t := range c.targets {
				s.sels[t].Warnings = append(s.sels[t].Warnings, w)
			}
		}
	}
	return nil
}

// scoredEvery reports whether every target has a best grid point so far.
func (s *selector) scoredEvery() bool {
	for _, sel := range s.sels {
		if len(sel.Choices) == 0 {
			return false
		}
	}
	return true
}

// takeIn adds point p's results to chooser c's targets, keeps it if it
// is the best so far, and, with the default widths, extends c's grid by
// a factor of 2 past the edge its best sits at, until the best is
// inside, the score is flat at the edge, or the budget is spent.
func (s *selector) takeIn(c *chooser, p int, scanned map[string]bool) {
	gi := c.next
	c.next++
	before := c.bestScore
	score, ok := s.score(c, p)
	better := ok && score < c.bestScore
	for _, t := range c.targets {
		r, sel := s.results[p][t], s.sels[t]
		sel.Table = append(sel.Table, r.rows...)
		sel.Warnings = append(sel.Warnings, r.warns...)
		if r.choice >= 0 {
			sel.Choices = append(sel.Choices, r.rows[r.choice])
		}
		if better {
			sel.Best = r.rows[r.choice]
			if c.best >= 0 {
				s.results[c.best][t].model = nil // the fit at the old best is not needed any more
			}
		} else {
			r.model = nil
		}
	}
	if better {
		c.bestScore, c.best = score, p
	}
	if ok && gi < c.first && scanned[s.points[p].kernel.Name()] {
		s.skipWider(c, gi, score)
	}
	if gi < len(c.grid)-1 || len(scanned) == 0 || c.best < 0 || !scanned[s.points[c.best].kernel.Name()] {
		return
	}
	best := s.points[c.best]
	w, ok := widerGrid(s.gridOf(c), best)
	switch {
	case !ok:
	case gi >= c.first && c.best == p && !(c.bestScore < before-widthGain*math.Abs(before)):
		c.why = fmt.Sprintf("the %s score improves by less than %.1g relative there", s.by.criterion(), widthGain)
	case s.passes >= s.budget:
		c.why = s.budgetSpent()
	default:
		c.grid = append(c.grid, s.point(WithWidth(best.kernel, w), best.relevance))
	}
}

// skipWider drops from chooser c's default grid the widths of the
// kernel at c.grid[gi] wider than it, once its score there is worse than
// at the next narrower width and worse than the best by more than
// skipMargin (AverageAll: the averaging margin, if wider): past the turn
// of a kernel's score over the widths, a wider width would score worse
// still and could hardly join the mean (the stacked mean's measurements
// were made with this 5 % search; skipped widths were never candidates).
// Wide widths need the most components, so
// this is where a search spends most (protein: the RBF's 9 and 18).
// The selection lists what it skipped.
func (s *selector) skipWider(c *chooser, gi int, score float64) {
	g := s.points[c.grid[gi]]
	name, w := g.kernel.Name(), g.width()
	prev := -1
	for j := gi - 1; j >= 0; j-- {
		if q := s.points[c.grid[j]]; q.kernel.Name() == name && q.width() < w && (prev < 0 || q.width() > s.points[prev].width()) {
			prev = c.grid[j]
		}
	}
	if prev < 0 {
		return
	}
	prevScore, ok := s.score(c, prev)
	margin := skipMargin
	if s.avgBy == AverageAll {
		margin = max(s.avgWithin, skipMargin)
	}
	if !ok || !(score > prevScore) || !(score > (1+margin)*c.bestScore) {
		return
	}
	kept := c.grid[:c.next:c.next]
	for j := c.next; j < len(c.grid); j++ {
		q := s.points[c.grid[j]]
		if j < c.first && q.kernel.Name() == name && q.width() > w {
			for _, t := range c.targets {
				s.sels[t].Skipped = append(s.sels[t].Skipped, q.kernel)
			}
			continue
		}
		kept = append(kept, c.grid[j])
	}
	c.first -= len(c.grid) - len(kept)
	c.grid = kept
}

// score is chooser c's score at point p: its target's choice's score, or
// with a shared kernel the mean of 1 − Q² over the targets (each at its
// own choice of m), which weighs targets of every scale alike. It is
// false if a target has no choice there.
func (s *selector) score(c *chooser, p int) (float64, bool) {
	if len(c.targets) == 1 {
		r := s.results[p][c.targets[0]]
		if r.choice < 0 {
			return 0, false
		}
		return r.rows[r.choice].Score(s.by.criterion()), true
	}
	var sum float64
	for _, t := range c.targets {
		r := s.results[p][t]
		if r.choice < 0 {
			return 0, false
		}
		sum += 1 - r.rows[r.choice].Q2
	}
	return sum / float64(len(c.targets)), true
}

// gridOf returns chooser c's grid points.
func (s *selector) gridOf(c *chooser) []gridPoint {
	g := make([]gridPoint, len(c.grid))
	for i, p := range c.grid {
		g[i] = s.points[p]
	}
	return g
}

// point returns the id of the grid point of kernel k with the features
// weighed by relevance, added if new: a width one target's search extends
// to may be one another's has already.
func (s *selector) point(k Kernel, relevance []float64) int {
	like := gridPoint{kernel: k, relevance: relevance}
	for _, g := range s.points {
		if g.label() == like.label() {
			return g.id
		}
	}
	like.id = len(s.points)
	s.points = append(s.points, like)
	s.results = append(s.results, make([]*pointResult, len(s.ys)))
	return like.id
}

// widerGrid returns the width one step past the edge that best sits at
// (half the narrowest, twice the widest), and false if it is inside.
func widerGrid(grid []gridPoint, best gridPoint) (float64, bool) {
	lo, hi := widthRange(grid, best)
	switch best.width() {
	case lo:
		return lo / 2, true
	case hi:
		return hi * 2, true
	}
	return 0, false
}

// fullStats gives the table's rows of the best grid point the full
// fit's statistics, which cross-validation does not compute.
func fullStats(sel *Selection, m *Model) {
	best := sel.Best.label()
	for i := range sel.Table {
		r := &sel.Table[i]
		if r.label() == best && r.M <= m.valid {
			r.Stats = m.stats[r.M]
		}
	}
	sel.Best.Stats = m.stats[sel.Best.M]
	for i := range sel.Choices {
		if c := &sel.Choices[i]; c.label() == best {
			c.Stats = sel.Best.Stats
		}
	}
}

// grid resolves the kernels and widths to search.
// scanned holds the names of the kernels whose default widths are
// searched, which Select may extend.
func (so selectConfig) grid(n, d int) (grid []gridPoint, scanned map[string]bool, err error) {
	kernels := so.Kernels
	if kernels == nil {
		kernels = DefaultKernels()
	}
	seen := map[float64]bool{}
	for _, w := range so.Widths {
		if !(w > 0) || isNaNOrInf(w) {
			return nil, nil, fmt.Errorf("%w: width %g", ErrWidth, w)
		}
		if seen[w] {
			return nil, nil, fmt.Errorf("%w: width %g appears twice", ErrWidth, w)
		}
		seen[w] = true
	}
	if so.Widths != nil && len(so.Widths) == 0 {
		return nil, nil, fmt.Errorf("%w: no widths to select from", ErrBadOption)
	}
	scanned = map[string]bool{}
	seenK := map[string]bool{}
	for _, k := range kernels {
		if k == nil {
			return nil, nil, fmt.Errorf("%w: a nil kernel", ErrKernel)
		}
		b := behaviourOf(k)
		if b == nil {
			return nil, nil, fmt.Errorf("%w: %T (%q) has no Eval method; wrap the function in kpls.Func", ErrKernel, k, k.Name())
		}
		label := b.label()
		w, hasWidth := WidthOf(k)
		if hasWidth && w == 0 {
			label = k.Name()
		}
		if seenK[label] {
			return nil, nil, fmt.Errorf("%w: kernel %s appears twice", ErrKernel, label)
		}
		seenK[label] = true
		if !hasWidth || w != 0 {
			r, err := resolveKernel(k, n, d)
			if err != nil {
				return nil, nil, err
			}
			grid = append(grid, gridPoint{r, len(grid), so.Relevance})
			continue
		}
		widths := so.Widths
		if widths == nil {
			scanned[k.Name()] = true
			w0 := k.(widthKernel).defaultWidth(d)
			widths = []float64{w0 / 4, w0 / 2, w0, 2 * w0, 4 * w0}
		}
		for _, w := range widths {
			r, err := resolveKernel(WithWidth(k, w), n, d)
			if err != nil {
				return nil, nil, err
			}
			grid = append(grid, gridPoint{r, len(grid), so.Relevance})
		}
	}
	for _, k := range so.scaled {
		grid = append(grid, gridPoint{k, len(grid), so.scaledBy})
	}
	if len(grid) == 0 {
		return nil, nil, fmt.Errorf("%w: no kernels to select from", ErrBadOption)
	}
	return grid, scanned, nil
}

// widthRange is the narrowest and widest width searched for the kernel of
// grid point g.
func widthRange(grid []gridPoint, g gridPoint) (lo, hi float64) {
	lo, hi = math.Inf(1), 0
	for _, p := range grid {
		if p.kernel.Name() == g.kernel.Name() {
			if w, ok := WidthOf(p.kernel); ok {
				lo, hi = math.Min(lo, w), math.Max(hi, w)
			}
		}
	}
	return lo, hi
}

// meanCandidate is a grid point p of the mean other than the best, at
// its chosen m, of the search from: the selector's own or its rival's.
type meanCandidate struct {
	from   *selector
	p, m   int
	score  float64
	weight float64 // its stacking weight (AverageStacked)
}

// meanCandidates are the members of target t's mean other than the
// best, in order of RMSECV: the grid points whose choice scores within
// the averaging margin of the best's RMSECV (AverageAll), or those of
// them that stacking weighs (AverageStacked: see stackedMembers); none
// without CrossValidation.AverageWithin. The rival search's points, on
// the same rows and folds, are candidates too.
func (s *selector) meanCandidates(t, bestPoint int, bestRMSECV float64) ([]meanCandidate, float64, []Warning) {
	if !(s.avgWithin > 0) {
		return nil, 1, nil
	}
	var cs []meanCandidate
	for _, from := range []*selector{s, s.rival} {
		if from == nil {
			continue
		}
		for p, rs := range from.results {
			r := rs[t]
			if (from == s && p == bestPoint) || r == nil || r.choice < 0 {
				continue
			}
			row := r.rows[r.choice]
			if row.RMSECV <= (1+s.avgWithin)*bestRMSECV {
				cs = append(cs, meanCandidate{from: from, p: p, m: row.M, score: row.RMSECV})
			}
		}
	}
	slices.SortStableFunc(cs, func(a, b meanCandidate) int { return cmp.Compare(a.score, b.score) })
	bestWeight := 1.0
	if s.avgBy == AverageStacked && len(cs) > 0 {
		kept, w, err := s.stackedMembers(t, bestPoint, cs)
		if err != nil {
			return cs, math.NaN(), []Warning{warnf(WarnAveraging, "the mean averages every grid point within %g %% of the best RMSECV: %v", 100*s.avgWithin, err)}
		}
		cs, bestWeight = kept, w
	}
	return cs, bestWeight, nil
}

// stackedMembers keeps the candidates cs whose stacking weight is at
// least stackMinWeight: the weights w ≥ 0, Σw = 1, over the best point
// and cs, that bring Σ w_j oof_j closest to y, oof_j being point j's
// out-of-fold predictions at its choice. The best point is a member
// whatever its weight. Weighted cross-validation fits its folds one by
// one and keeps no out-of-fold predictions: an error says so.
func (s *selector) stackedMembers(t, bestPoint int, cs []meanCandidate) ([]meanCandidate, float64, error) {
	preds := mat.NewDense(s.n, 1+len(cs), nil)
	for j, c := range append([]meanCandidate{{from: s, p: bestPoint}}, cs...) {
		oof := c.from.results[c.p][t].oof
		if oof == nil {
			return nil, 0, errors.New("stacking needs the folds' predictions, which weighted cross-validation does not keep")
		}
		preds.SetCol(j, oof)
	}
	w, err := stacking.Weights(preds, s.ys[t])
	if err != nil {
		return nil, 0, err
	}
	var kept []meanCandidate
	for i, c := range cs {
		if w[i+1] >= stackMinWeight {
			c.weight = w[i+1]
			kept = append(kept, c)
		}
	}
	return kept, w[0], nil
}

// average sets sel.Predictor for target t to the mean of: its model at the best grid
// point, then one fitted to all rows at each other grid point whose
// choice scores within the margin (of this search or its rival's, each
// fitted by its own search), in order of RMSECV.
func (s *selector) average(t, bestPoint int, sel *Selection) error {
	members := []*Model{sel.Model}
	cands, bestWeight, warns := s.meanCandidates(t, bestPoint, sel.Best.RMSECV)
	sel.Warnings = append(sel.Warnings, warns...)
	sel.MeanBy, sel.MeanWeights = s.avgBy, nil
	if len(warns) > 0 {
		sel.MeanBy = AverageAll
	} else if s.avgBy == AverageStacked {
		sel.MeanWeights = []float64{bestWeight}
		for _, c := range cands {
			sel.MeanWeights = append(sel.MeanWeights, c.weight)
		}
	}
	for _, c := range cands {
		passes := c.from.passes
		m, _, err := c.from.final(t, c.from.points[c.p], c.m, c.m, nil, nil, true)
		if c.from != s {
			s.passes += c.from.passes - passes
		}
		if err != nil {
			return err
		}
		members = append(members, m)
	}
	if len(members) == 1 {
		sel.Predictor = sel.Model
		return nil
	}
	sel.PredictorRMSECV = s.meanRMSECV(t, bestPoint, cands)
	mean, err := NewMean(members...)
	sel.Predictor = mean
	return err
}

// UnmarshalText sets a from an averaging rule's name in any case (""
// is AverageStacked).
func (a *Averaging) UnmarshalText(b []byte) error {
	v, err := parseAveraging(string(b))
	if err == nil {
		*a = v
	}
	return err
}

// meanRMSECV is the root mean squared error of the mean of the
// out-of-fold predictions of the best point and the candidates cs at
// their choices, NaN if one of them kept none.
func (s *selector) meanRMSECV(t, bestPoint int, cs []meanCandidate) float64 {
	pts := append([]meanCandidate{{from: s, p: bestPoint}}, cs...)
	mean := make([]float64, s.n)
	for _, c := range pts {
		oof := c.from.results[c.p][t].oof
		if oof == nil {
			return math.NaN()
		}
		for i, v := range oof {
			mean[i] += v / float64(len(pts))
		}
	}
	var press float64
	for i, v := range mean {
		e := s.ys[t][i] - v
		press += e * e
	}
	return math.Sqrt(press / float64(s.n))
}
