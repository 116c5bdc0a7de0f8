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
	// buf is the memory of one kernel matrix, for the fits to all rows
	// and the fold fits alike: one fitter owns it at a time, whatever
	// the width.
	buf     kernelBuffer
	split   []fold // the cross-validation folds, split once
	stopped string // why the last fit that limited the components stopped

	// full is the DoF criteria's fit to all rows at grid point fullAt,
	// kept so that more components refit on its kernel matrix; model is
	// its last result.
	full   *fitter
	fullAt int
	model  *Model
	// foldFits are the fold fits at grid point foldsAt, kept with their
	// Krylov steps so that more components continue them.
	foldFits []*fitter
	foldsAt  int
	// foldSSE[f][c] is fold f's sum of squared held-out errors with c
	// components, for the c its fit has had so far: a grown fit's first
	// components are the same, so only the new ones are predicted.
	foldSSE [][]float64

	best      gridPoint   // the best grid point so far
	bestModel *Model      // the DoF criteria's fit at best
	fitted    map[int]int // components fitted per grid point
}

func (s *selector) options(g gridPoint, comp int) Options {
	o := s.opts
	o.Kernel, o.Components = g.kernel, comp
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
// its choice among them (−1 if none) and its warnings.
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
		atEdge := choice == len(rows)-1
		if atEdge && !broke && comp < limit {
			comp = min(2*comp, limit)
			continue
		}
		if atEdge && choice > 0 {
			why := fmt.Sprintf("the largest m fitted (limit %d)", limit)
			if broke {
				why = "the last valid component (a fit stopped at " + s.stopped + ")"
			}
			warns = append(warns, warnf(WarnChoiceAtEdge, "%s: the %s choice m = %d is %s: a larger m might score better", label, s.crit, choice, why))
		}
		return rows, choice, warns, nil
	}
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
// cross-validation: one fit per fold, every m read from it. It returns
// the rows (up to the components valid in every fold) and whether a fold
// broke down before comp.
func (s *selector) crossValidate(g gridPoint, comp int) ([]SelectionRow, bool, error) {
	folds := s.foldRows()
	press := make([]float64, comp+1)
	valid := comp
	if s.foldFits == nil || s.foldsAt != g.id {
		s.foldFits, s.foldsAt = make([]*fitter, s.folds), g.id
		s.foldSSE = make([][]float64, s.folds)
	}
	for f := 0; f < s.folds; f++ {
		s.opts.report(StageCV, g.width(), f, s.folds)
		m, err := s.foldFit(g, f, folds[f], comp)
		if err != nil {
			return nil, false, fmt.Errorf("fold %d: %w", f+1, err)
		}
		if m.valid < valid {
			valid, s.stopped = m.valid, m.stop.Message
		}
		sse, err := s.heldOut(m, f, folds[f])
		if err != nil {
			return nil, false, fmt.Errorf("fold %d: %w", f+1, err)
		}
		for c := 0; c <= min(m.valid, comp); c++ {
			press[c] += sse[c]
		}
	}
	return s.cvRows(g, press, valid), valid < comp, nil
}

// foldFit fits fold f at grid point g to comp components: from scratch
// the first time, by growing its fit after that.
func (s *selector) foldFit(g gridPoint, f int, fd fold, comp int) (*Model, error) {
	ft := s.foldFits[f]
	if ft == nil {
		o := s.options(g, comp)
		o.DoF = DoFNone
		o.Progress = nil
		var err error
		if ft, err = newFitter(fd.xtr, fd.ytr, o, &s.buf); err != nil {
			return nil, err
		}
		if err := ft.fit(s.ctx); err != nil {
			return nil, err
		}
		s.foldFits[f] = ft
	} else {
		// More components: the fold's kernel matrix is rebuilt (the
		// buffer has served other folds since) and its steps go on.
		if err := ft.setComponents(comp); err != nil {
			return nil, err
		}
		if err := ft.grow(s.ctx); err != nil {
			return nil, err
		}
	}
	return ft.model(s.ctx)
}

// heldOut adds the held-out squared errors of fold f's components that
// are new since the last call and returns them for every m so far.
func (s *selector) heldOut(m *Model, f int, fd fold) ([]float64, error) {
	from := len(s.foldSSE[f])
	pred, err := m.predictFrom(s.ctx, fd.xte, from)
	if err != nil {
		return nil, err
	}
	cols := m.valid + 1 - from
	sse := append(s.foldSSE[f], make([]float64, max(cols, 0))...)
	for i, v := range fd.yte {
		for c := from; c <= m.valid; c++ {
			e := v - pred[i*cols+c-from]
			sse[c] += e * e
		}
	}
	s.foldSSE[f] = sse
	return sse, nil
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
	s.foldFits, s.foldSSE, s.full = nil, nil, nil // their Krylov steps are not needed any more
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

// fold is one cross-validation split of the rows.
type fold struct {
	xtr, xte *mat.Dense
	ytr, yte []float64
}

// foldRows splits the rows into s.folds seeded folds (contiguous blocks of
// one random permutation), once for every grid point and growth step.
func (s *selector) foldRows() []fold {
	if s.split != nil {
		return s.split
	}
	n := s.n
	perm := rand.New(rand.NewPCG(s.seed, 0x6376)).Perm(n)
	s.split = make([]fold, s.folds)
	for f := range s.split {
		lo, hi := f*n/s.folds, (f+1)*n/s.folds
		train := append(append([]int(nil), perm[:lo]...), perm[hi:]...)
		fd := &s.split[f]
		fd.xtr, fd.ytr = rowsOf(s.x, s.y, train)
		fd.xte, fd.yte = rowsOf(s.x, s.y, perm[lo:hi])
	}
	return s.split
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
