package kpls

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/internal/gop"
)

// Screen is the first round of a search on many rows: the grid scored on
// a seeded sample of the rows, after which only the best points are
// searched on all of them (SelectOptions.ScreenRows).
type Screen struct {
	// Rows is the sample's size, Passes its search's passes over its own
	// Rows×Rows kernel matrices (not counted in Selection.Passes).
	Rows, Passes int
	// Kept are the grid points searched on all rows, Dropped the others
	// the sample scored.
	Kept, Dropped []Kernel
	// Relevance are the feature weights learned on the sample
	// (SelectOptions.Isotropic), nil where none were; Scaled are the
	// grid points searched on all rows with the features weighed by
	// them (Options.Relevance), none where the weighed grid scored worse
	// on the sample or on the check's. Passes counts every pass on the
	// samples: both searches, the refit the weights come from and the
	// check.
	Relevance []float64
	Scaled    []Kernel
	// Check is the weights' test on a second sample of as many rows,
	// disjoint from the first, where the weighed grid scored better on
	// the first; nil where it did not. Scaled is empty unless the check
	// found the weighed point better too.
	Check *RelevanceCheck
}

// RelevanceCheck is the test of a screen's feature weights on rows that
// did not teach them: the sample's best grid point and its best weighed
// one (Options.Relevance), searched by cross-validation on a second
// sample of Rows rows. The second round searches on all rows the
// weighed points the first sample kept where Weighed has the smaller
// RMSECV, and the unweighed ones otherwise, never both.
type RelevanceCheck struct {
	Rows               int
	Unweighed, Weighed SelectionRow
}

const (
	// screenFrom is the fewest rows a search screens its grid on a sample
	// of, by default; screenFraction sets the sample's size, with at
	// least screenMinRows rows.
	screenFrom     = 6144
	screenFraction = 8
	screenMinRows  = 2048
	// The second round searches the sample's best screenKeep points and
	// each other kernel's best, of those within screenMargin of the
	// sample's best RMSECV (relative; 1.5 times the averaging margin when
	// that is wider). Each kernel's best stays because
	// stacking gains from different kernels (kin8nm: the three best,
	// all RBF, were 1.6 % worse held out than the full search; with the
	// best Laplacian for the third, level). docs/scale.md, "Screening
	// the grid on a sample".
	screenKeep   = 2
	screenMargin = 0.15
	// relevanceFloor is the least weight a learned relevance gives a
	// feature: one the sample's model does not move along keeps a trace.
	// gopRows bounds the sample's rows the gradient is taken at (its cost
	// is rows × sample × d).
	relevanceFloor = 0.01
	gopRows        = 2048
)

// screenRows is the sample the search s0 (checked against all n rows)
// screens its grid on, zero for none. The default screens with
// cross-validation from screenFrom rows on; never with weights, a
// precomputed kernel matrix or MPI (the rows are spread over the ranks).
// A sample asked for where it cannot be honoured is an error.
func (so *selectConfig) screenRows(s0 *selector) (int, error) {
	n, rows := s0.n, so.ScreenRows
	if rows < 0 {
		return 0, nil
	}
	why := ""
	switch {
	case s0.by.criterion() != CV:
		why = "it scores the grid by cross-validation, not " + string(s0.by.criterion())
	case so.Weights != nil:
		why = "the folds of weighted rows are fitted one by one"
	case so.Comm != nil:
		why = "the rows are spread over MPI ranks"
	}
	for _, k := range so.Kernels {
		if b := behaviourOf(k); b == nil || b.inputs() == inputGram {
			why = "a precomputed kernel matrix has no rows to sample"
		}
	}
	switch {
	case rows == 0 && (why != "" || n < screenFrom):
		return 0, nil
	case rows == 0:
		return max(screenMinRows, n/screenFraction), nil
	case why != "":
		return 0, fmt.Errorf("%w: SelectOptions.ScreenRows: a screen of %d rows cannot run: %s", ErrBadOption, rows, why)
	case rows < 2*s0.folds:
		return 0, fmt.Errorf("%w: SelectOptions.ScreenRows: %d rows for %d folds (want at least two rows a fold)", ErrBadOption, rows, s0.folds)
	case rows >= n:
		return 0, nil // the sample would be every row
	}
	return rows, nil
}

// screened is the first round's outcome: the second round's settings,
// what it did, and per target the warnings about the sample's grid and
// the widths it skipped there.
type screened struct {
	second  selectConfig
	record  *Screen
	warns   [][]Warning
	skipped [][]Kernel
}

// screen runs the first round of s0's search: the search on a seeded
// sample of its rows, with the same settings, without final fits. It
// returns nil where the search does not screen (not asked to, or the
// sample keeps every point), and no record but a WarnScreen where the
// search cannot run on the sample (a target constant there, say), which
// the full search then covers.
func screen(ctx context.Context, s0 *selector, so selectConfig) (*screened, error) {
	rows, err := so.screenRows(s0)
	if rows == 0 || err != nil {
		return nil, err
	}
	perm := rand.New(rand.NewPCG(so.Seed, 0x5c7ee2)).Perm(s0.n)
	xs, yss := s0.subset(perm[:rows])
	first := so
	first.Progress = nil
	s, scanned, err := newSelector(ctx, xs, yss, first)
	if err == nil {
		err = s.search(scanned)
	}
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case err != nil:
		// The full search covers what the sample could not; the selection
		// says so.
		w := warnf(WarnScreen, "the screen's sample of %d rows could not be searched (%v): every grid point was searched on all rows", rows, err)
		out := &screened{second: so}
		for range s0.ys {
			out.warns, out.skipped = append(out.warns, []Warning{w}), append(out.skipped, nil)
		}
		return out, nil
	}
	// Rounded, so that 1.5 × 0.1 reads 0.15 in the output.
	margin := math.Round(max(screenMargin, 1.5*s.avgWithin)*1e12) / 1e12
	rel, scaled, werr := s.weighed(first, so.learnsRelevance(s0, rows))
	var check *RelevanceCheck
	if scaled != nil {
		check, werr = s.check(s0, perm[rows:2*rows], first, rel, scaled)
		switch {
		case werr != nil:
			scaled, check = nil, nil
		case !(check.Weighed.RMSECV < check.Unweighed.RMSECV):
			scaled = nil
		}
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	// The second round takes each chooser's kept points best first, so
	// that the race has its lead from the start.
	var kernels []Kernel
	keep := map[int]bool{}
	for _, c := range s.choosers {
		if scaled != nil {
			break // the check chose the weighed points
		}
		for _, p := range s.kept(c, margin) {
			if !keep[p] {
				keep[p] = true
				kernels = append(kernels, s.points[p].kernel)
			}
		}
	}
	if len(keep) == len(s.points) && rel == nil && werr == nil {
		return nil, nil
	}
	out := &screened{second: so, record: &Screen{Rows: rows, Passes: s.passes, Relevance: slices.Clone(rel), Check: check, Kept: kernels}}
	if scaled != nil {
		for _, p := range scaled.kept(scaled.choosers[0], margin) {
			out.record.Scaled = append(out.record.Scaled, scaled.points[p].kernel)
		}
		out.second.scaled, out.second.scaledBy = out.record.Scaled, rel
	}
	for p, g := range s.points {
		if s.scored(p) && !keep[p] {
			out.record.Dropped = append(out.record.Dropped, g.kernel)
		}
	}
	// Empty, not nil, where the check chose the weighed points: nil
	// Kernels means the default kernels.
	out.second.Kernels, out.second.Widths = append([]Kernel{}, kernels...), nil
	if !so.Exhaustive {
		out.second.race = margin
	}
	prefix := fmt.Sprintf("on the screen's sample of %d rows", rows)
	for t, sel := range s.sels {
		ws := sampleWarnings(sel, prefix)
		if scaled != nil {
			ws = append(ws, sampleWarnings(scaled.sels[t], prefix+", the features weighed")...)
		}
		if werr != nil {
			ws = append(ws, warnf(WarnScreen, "%s: the features' weights could not be learned, searched or checked (%v): the second round searched them unweighed", prefix, werr))
		}
		out.warns = append(out.warns, ws)
		out.skipped = append(out.skipped, sel.Skipped)
	}
	return out, nil
}

// subset returns rows idx of s's features and targets, in the order of
// the rows.
func (s *selector) subset(idx []int) (*mat.Dense, [][]float64) {
	idx = slices.Sorted(slices.Values(idx))
	xs := mat.NewDense(len(idx), s.d, nil)
	yss := make([][]float64, len(s.ys))
	for t := range yss {
		yss[t] = make([]float64, len(idx))
	}
	for i, r := range idx {
		xs.SetRow(i, s.x.RawRowView(r))
		for t, y := range s.ys {
			yss[t][i] = y[r]
		}
	}
	return xs, yss
}

// sampleWarnings are the warnings of a search on the screen's sample that
// hold for the selection: a width at the grid's edge, a budget spent.
func sampleWarnings(sel *Selection, prefix string) []Warning {
	var ws []Warning
	for _, w := range sel.Warnings {
		if w.Code == WarnWidthAtEdge || w.Code == WarnBudget {
			ws = append(ws, w.prefixed(prefix))
		}
	}
	return ws
}

// finish gives the selections the first round's record, warnings and
// skipped widths.
func (sc *screened) finish(sels []*Selection) {
	if sc == nil {
		return
	}
	for t, sel := range sels {
		sel.Screen = sc.record
		sel.Warnings = append(sc.warns[t], sel.Warnings...)
		sel.Skipped = append(sc.skipped[t], sel.Skipped...)
	}
}

// kept are the points of chooser c the second round searches, of those
// within margin of its best score (an RMSECV, or with a shared kernel a
// mean 1 − Q², both positive): its best screenKeep, and the best of every
// other kernel. The best is always kept.
func (s *selector) kept(c *chooser, margin float64) []int {
	type scored struct {
		p     int
		score float64
	}
	var ps []scored
	for _, p := range c.grid[:c.next] {
		if v, ok := s.score(c, p); ok {
			ps = append(ps, scored{p, v})
		}
	}
	slices.SortStableFunc(ps, func(a, b scored) int { return cmp.Compare(a.score, b.score) })
	var out []int
	families := map[string]bool{}
	for i, q := range ps {
		if i > 0 && q.score > (1+margin)*ps[0].score {
			break
		}
		name := s.points[q.p].kernel.Name()
		if i < screenKeep || !families[name] {
			out = append(out, q.p)
		}
		families[name] = true
	}
	return out
}

// scored reports whether some target has results at point p.
func (s *selector) scored(p int) bool {
	for _, r := range s.results[p] {
		if r != nil {
			return true
		}
	}
	return false
}

// learnsRelevance reports whether a screen of the search s0 on a sample
// of rows learns feature weights: one target, standardised features,
// more than one of them, an RBF kernel in the grid (whose gradient gives
// them), and a sample of at most a third of the rows: the check's sample
// of as many rows fits beside it, and most of the rows whose
// cross-validation chooses among the weighed points did not teach the
// weights.
func (so *selectConfig) learnsRelevance(s0 *selector, rows int) bool {
	if so.Isotropic || so.RawFeatures || len(s0.ys) != 1 || s0.d < 2 || 3*rows > s0.n {
		return false
	}
	for _, g := range s0.points {
		if g.kernel.Name() == (RBF{}).Name() {
			return true
		}
	}
	return false
}

// weighed learns feature weights on the screen's sample, the search s
// over it done: the gradient outer product of s's best RBF point refitted
// there (docs/scale.md, "Per-feature scales"), then the search again on
// the sample with the features weighed (settings first). It returns the
// weights, and the weighed search where it scored better than s (nil:
// the second round stays unweighed), its passes added to s's. The
// weighed search's score is optimistic, the weights being learned on the
// same rows; the check on a second sample (check) is the guard.
func (s *selector) weighed(first selectConfig, learn bool) ([]float64, *selector, error) {
	if !learn {
		return nil, nil, nil
	}
	rel, err := s.relevance()
	if rel == nil || err != nil {
		return nil, nil, err
	}
	first.Relevance = rel
	w, scanned, err := newSelector(s.ctx, s.x, s.ys, first)
	if err == nil {
		err = w.search(scanned)
		s.passes += w.passes
	}
	switch {
	case err != nil:
		return rel, nil, err
	case !(w.choosers[0].bestScore < s.choosers[0].bestScore):
		return rel, nil, nil
	}
	return rel, w, nil
}

// check searches the best point of the search s on the screen's first
// sample and the best of its weighed search w (the features weighed by
// rel) on rows idx of s0, a second sample disjoint from the first, with
// the first sample's settings. It returns their choices there, and adds
// the passes it made to s's.
func (s *selector) check(s0 *selector, idx []int, first selectConfig, rel []float64, w *selector) (*RelevanceCheck, error) {
	xs, yss := s0.subset(idx)
	first.Kernels, first.Widths = []Kernel{s.points[s.choosers[0].best].kernel}, nil
	first.scaled, first.scaledBy = []Kernel{w.points[w.choosers[0].best].kernel}, rel
	c, _, err := newSelector(s.ctx, xs, yss, first)
	if err != nil {
		return nil, err
	}
	err = c.search(nil)
	s.passes += c.passes
	if err != nil {
		return nil, err
	}
	var choice [2]SelectionRow
	for p := range choice {
		r := c.results[p][0]
		if r == nil || r.choice < 0 {
			return nil, fmt.Errorf("%w: %s has no RMSECV on the check's sample", ErrBreakdown, c.points[p].label())
		}
		choice[p] = r.rows[r.choice]
	}
	return &RelevanceCheck{Rows: len(idx), Unweighed: choice[0], Weighed: choice[1]}, nil
}

// relevance returns the diagonal of the gradient outer product of the
// best RBF point of the search s, refitted to its rows at its choice of
// m, as weights (the largest 1, none below relevanceFloor); nil where no
// RBF point has a choice.
func (s *selector) relevance() ([]float64, error) {
	c := s.choosers[0]
	best, bestScore := -1, math.Inf(1)
	for _, p := range c.grid[:c.next] {
		if s.points[p].kernel.Name() != (RBF{}).Name() {
			continue
		}
		if v, ok := s.score(c, p); ok && v < bestScore && s.results[p][0].choice > 0 {
			best, bestScore = p, v
		}
	}
	if best < 0 {
		return nil, nil
	}
	g, choice := s.points[best], s.results[best][0].choice
	o := s.options(g, choice, 0)
	o.DoF, o.Progress = DoFNone, nil
	f, err := newFitter(s.x, s.ys[0], o, &s.buf)
	if err != nil {
		return nil, err
	}
	f.passes = &s.passes
	if err := f.fit(s.ctx); err != nil {
		return nil, err
	}
	m, err := f.model(s.ctx)
	if err != nil {
		return nil, err
	}
	alpha, err := m.Alpha(min(choice, m.valid))
	if err != nil {
		return nil, err
	}
	return gop.Weights(gop.RBF(m.x, m.n, m.d, alpha, g.width(), gopRows), relevanceFloor), nil
}
