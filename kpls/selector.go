package kpls

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// selector runs the search for one Select call.
type selector struct {
	ctx            context.Context
	x              *mat.Dense
	y              []float64
	n, d           int
	crit           Criterion
	folds          int
	seed           uint64
	start, maxComp int
	opts           Options
	// passes counts the passes over a kernel matrix so far (every
	// fitter of the search adds to it); budget bounds them.
	passes, budget int
	// buf is the memory of one kernel matrix, for the fits to all rows
	// and the fold fits alike: one fitter owns it at a time, whatever
	// the width.
	buf     kernelBuffer
	split   []foldIndex // the cross-validation folds, split once
	stopped string      // why the last fit that limited the components stopped

	// full is the DoF criteria's fit to all rows at grid point fullAt,
	// kept so that more components refit on its kernel matrix; model is
	// its last result.
	full   *fitter
	fullAt int
	model  *Model
	// cv is the fit to all rows whose kernel matrix the folds' batch
	// runs on, at grid point cvAt.
	cv    *fitter
	cvAt  int
	batch *foldBatch

	best      gridPoint   // the best grid point so far
	bestModel *Model      // the DoF criteria's fit at best
	fitted    map[int]int // components fitted per grid point
}

// options are the options of a fit at grid point g with comp components:
// the kernel is g's, and the criterion is the fit's own default (Select
// records its choice itself).
func (s *selector) options(g gridPoint, comp int) Options {
	o := s.opts
	o.Kernel, o.Components, o.Criterion = g.kernel, comp, ""
	return o
}

// limit is the largest number of components at grid point g.
func (s *selector) limit(g gridPoint) int {
	o := Options{Kernel: g.kernel}
	if s.crit == CV {
		// The folds train on fewer rows.
		return min(s.maxComp, o.maxComponents(s.n-(s.n+s.folds-1)/s.folds, s.d))
	}
	return min(s.maxComp, o.maxComponents(s.n, s.d))
}

// point scores every m at grid point g and returns its rows, the index of
// its choice among them (−1 if none) and its warnings. It doubles the
// components while the choice is not clearly behind the largest m fitted
// (cross-validation: behind; the DoF criteria's first local minimum:
// any m past it), within what the data allow and the budget.
func (s *selector) point(g gridPoint) ([]SelectionRow, int, []Warning, error) {
	label := kernelLabel(g.kernel)
	limit := s.limit(g)
	comp := min(s.start, limit)
	for {
		var rows []SelectionRow
		var warns []Warning
		var broke bool
		var err error
		if s.crit == CV {
			rows, broke, err = s.crossValidate(g, comp)
		} else {
			rows, broke, warns, err = s.fitAll(g, comp)
		}
		if err != nil {
			return nil, -1, nil, err
		}
		for i := range warns {
			warns[i] = warns[i].prefixed(label)
		}
		choice, scanWarn := s.choose(rows, label)
		warns = append(warns, scanWarn...)
		last := len(rows) - 1
		settled := choice < last && (s.crit != CV || last-choice >= behind(choice))
		if !settled && !broke && comp < limit && s.passes < s.budget {
			comp = min(2*comp, limit)
			continue
		}
		switch {
		case choice == last && choice > 0:
			why := fmt.Sprintf("the largest m fitted (limit %d)", limit)
			if broke {
				why = "the last valid component (a fit stopped at " + s.stopped + ")"
			} else if comp < limit {
				why = "the largest m fitted: " + s.budgetSpent()
			}
			warns = append(warns, warnf(WarnChoiceAtEdge, "%s: the %s choice m = %d is %s: a larger m might score better", label, s.crit, choice, why))
		case !settled && !broke && comp < limit:
			warns = append(warns, warnf(WarnBudget, "%s: the %s choice m = %d has only %d larger m fitted after it: %s", label, s.crit, choice, last-choice, s.budgetSpent()))
		}
		return rows, choice, warns, nil
	}
}

// budgetSpent says that the search's budget stopped it.
func (s *selector) budgetSpent() string {
	return fmt.Sprintf("the search spent its budget of %d passes over the kernel matrix (SelectOptions.MaxPasses)", s.budget)
}

// choose returns the criterion's choice among one grid point's rows: the
// smallest RMSECV, or the first local minimum of a DoF criterion, with a
// warning when that scan stopped at an unknown DoF.
func (s *selector) choose(rows []SelectionRow, label string) (int, []Warning) {
	score := make([]float64, len(rows))
	for i, r := range rows {
		score[i] = r.Score(s.crit)
	}
	if s.crit == CV {
		return argmin(score), nil
	}
	choice := FirstLocalMin(score)
	if last := lastValid(score); last < len(score)-1 && choice == last {
		return choice, []Warning{warnf(WarnScanStopped, "%s: the %s scan stopped at m = %d: the DoF of m = %d is unknown", label, s.crit, last, last+1)}
	}
	return choice, nil
}

// fitAll fits grid point g to all rows with comp components and returns
// the rows of the table, whether the fit broke down before comp, and its
// warnings. The kernel matrix is built once per grid point and kept for
// refits with more components.
func (s *selector) fitAll(g gridPoint, comp int) ([]SelectionRow, bool, []Warning, error) {
	f := s.full
	if f != nil && s.fullAt == g.id {
		if err := f.setComponents(comp); err != nil {
			return nil, false, nil, err
		}
	} else {
		var err error
		if f, err = newFitter(s.x, s.y, s.options(g, comp), &s.buf); err != nil {
			return nil, false, nil, err
		}
		f.passes = &s.passes
		s.full, s.fullAt = f, g.id
	}
	if err := f.fit(s.ctx); err != nil {
		s.full = nil
		return nil, false, nil, err
	}
	m, err := f.model(s.ctx)
	if err != nil {
		s.full = nil
		return nil, false, nil, err
	}
	s.model = m
	rows := make([]SelectionRow, len(m.stats))
	for i, st := range m.stats {
		rows[i] = SelectionRow{Kernel: g.kernel, Stats: st, RMSECV: math.NaN(), Q2: math.NaN()}
	}
	s.stopped = m.stop.Message
	return rows, m.valid < m.opts.Components, append([]Warning(nil), m.warns...), nil
}

// crossValidate scores m = 0..comp at grid point g by k-fold
// cross-validation: the folds' fits run in lock-step on one kernel matrix
// over all rows (foldBatch), every m's held-out predictions read from
// the same products. It returns the rows (up to the components valid in
// every fold) and whether a fold broke down before comp. More components
// continue the folds' steps on the same matrix.
func (s *selector) crossValidate(g gridPoint, comp int) ([]SelectionRow, bool, error) {
	if s.cv == nil || s.cvAt != g.id {
		o := s.options(g, comp)
		o.DoF = DoFNone
		o.Progress = nil
		f, err := newFitter(s.x, s.y, o, &s.buf)
		if err != nil {
			return nil, false, err
		}
		f.passes = &s.passes
		b, err := newFoldBatch(s.n, s.y, s.foldIndices(), comp)
		if err != nil {
			return nil, false, err
		}
		s.cv, s.cvAt, s.batch = f, g.id, b
	} else {
		s.batch.grow(comp)
	}
	op, err := s.cv.operator(s.ctx)
	if err != nil {
		return nil, false, err
	}
	width := g.width()
	err = s.batch.run(s.ctx, &s.cv.opts, op, func(done, total int) { s.opts.report(StageCV, width, done, total) })
	if err != nil {
		return nil, false, err
	}
	press := make([]float64, comp+1)
	valid := comp
	for f, fs := range s.batch.seqs {
		if fs.kr.steps == 0 {
			return nil, false, fmt.Errorf("fold %d: %w: %s", f+1, ErrBreakdown, fs.kr.stop.Message)
		}
		v := min(comp, fs.kr.steps)
		if v < valid {
			valid, s.stopped = v, fs.kr.stop.Message
		}
		pred := fs.predictions(v)
		for i, row := range fs.test {
			for c := 0; c <= v; c++ {
				e := s.y[row] - pred[i*(v+1)+c]
				press[c] += e * e
			}
		}
	}
	return s.cvRows(g, press, valid), valid < comp, nil
}

// cvRows turns the folds' PRESS into the table's rows for m = 0..valid.
func (s *selector) cvRows(g gridPoint, press []float64, valid int) []SelectionRow {
	var mean, tss float64
	for _, v := range s.y {
		mean += v
	}
	mean /= float64(s.n)
	for _, v := range s.y {
		tss += (v - mean) * (v - mean)
	}
	rows := make([]SelectionRow, valid+1)
	nan := math.NaN()
	for i := range rows {
		rows[i] = SelectionRow{Kernel: g.kernel, Stats: Stats{M: i, RSS: nan, DoF: nan, DoFSE: nan, DoFClipped: nan,
			Sigma: nan, AIC: nan, BIC: nan, GMDL: nan, GCV: nan, YhatSq: nan},
			RMSECV: math.Sqrt(press[i] / float64(s.n)), Q2: 1 - press[i]/tss}
	}
	return rows
}

// final fits the chosen grid point to all rows with the components its
// search reached, unless the DoF criteria's fit there is at hand, and
// records the choice.
func (s *selector) final(g gridPoint, choice, comp int, fitted *Model) (*Model, error) {
	s.cv, s.batch, s.full = nil, nil, nil // their Krylov steps are not needed any more
	var m *Model
	if fitted != nil && fitted.valid >= choice {
		m = fitted
	} else {
		// Cross-validation chose m without the DoF: the model to all rows
		// needs them (σ̂, bands) only up to its choice.
		if s.crit == CV {
			comp = choice
		}
		f, err := newFitter(s.x, s.y, s.options(g, max(comp, 1)), &s.buf)
		if err != nil {
			return nil, err
		}
		f.passes = &s.passes
		if err := f.fit(s.ctx); err != nil {
			return nil, err
		}
		if m, err = f.model(s.ctx); err != nil {
			return nil, err
		}
		if m.valid < choice {
			m.warns = append(m.warns, warnf(WarnFewerComponents, "the fit to all rows has %d valid components, fewer than the %d chosen: it predicts with %d", m.valid, choice, m.valid))
			choice = m.valid
		}
	}
	// The buffer belongs to the next Select; the model rebuilds its
	// kernel matrix if bands are asked for.
	m.chosen = &Choice{Criterion: s.crit, M: choice}
	return m, nil
}

// foldIndex is one cross-validation split of the rows.
type foldIndex struct {
	train, test []int
}

// foldIndices splits the rows into s.folds seeded folds (contiguous
// blocks of one random permutation), once for every grid point and
// growth step.
func (s *selector) foldIndices() []foldIndex {
	if s.split != nil {
		return s.split
	}
	n := s.n
	perm := rand.New(rand.NewPCG(s.seed, 0x6376)).Perm(n)
	s.split = make([]foldIndex, s.folds)
	for f := range s.split {
		lo, hi := f*n/s.folds, (f+1)*n/s.folds
		s.split[f] = foldIndex{
			train: append(append([]int(nil), perm[:lo]...), perm[hi:]...),
			test:  perm[lo:hi],
		}
	}
	return s.split
}

// argmin returns the index of the smallest non-NaN value, −1 if none.
func argmin(v []float64) int {
	best := -1
	for i, x := range v {
		if !math.IsNaN(x) && (best < 0 || x < v[best]) {
			best = i
		}
	}
	return best
}

// lastValid is the last index before the first NaN, −1 if v[0] is NaN.
func lastValid(v []float64) int {
	for i, x := range v {
		if math.IsNaN(x) {
			return i - 1
		}
	}
	return len(v) - 1
}
