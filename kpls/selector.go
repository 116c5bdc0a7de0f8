package kpls

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/internal/kernelop"
)

// selector runs the search for one Select or SelectTargets call.
type selector struct {
	ctx       context.Context
	x         *mat.Dense
	ys        [][]float64 // the targets' responses
	tss       []float64   // each target's total sum of squares about its mean
	n, d      int
	by        scorer
	folds     int
	repeats   int     // k-fold assignments cross-validation pools (0: not CV)
	avgWithin float64 // CrossValidation.AverageWithin
	avgBy     Averaging
	// dofAsked is whether SelectOptions.DoF was set: a mean's best member is
	// then fitted with those DoF, else without (selectTargets).
	dofAsked       bool
	seed           uint64
	start, maxComp int
	// race is the margin the search races its points by, zero for none
	// (raced).
	race float64
	opts config
	// passes counts the passes over a kernel matrix so far (every
	// fitter of the search adds to it); budget bounds them.
	passes, budget int
	// buf is the memory of one kernel matrix, for the fits to all rows
	// and the fold fits alike: one grid point's fitters use it at a
	// time, whatever the width.
	buf   kernelBuffer
	split [][]foldIndex // each repeat's cross-validation folds, split once

	// points are the grid points any target visits, in the order they
	// were added; results[p][t] is target t's outcome at point p.
	points    []gridPoint
	results   [][]*pointResult
	choosers  []*chooser
	sels      []*Selection // each target's
	evaluated int          // points evaluated so far (progress)
	// Progress counts the points of every search of one selection on its
	// rows (a small set's unweighed, then weighed): before are the points
	// the searches before this one evaluated, after how many searches
	// of as many points follow it.
	before, after int
	// rival is the other search of a small set's two (unweighed and
	// weighed) on the same rows and folds, when this one won: its points
	// may join this one's mean.
	rival *selector

	// full are the DoF criteria's fits to all rows at grid point fullAt,
	// one per target, kept so that more components refit on their kernel
	// matrix.
	full   []*fitter
	fullAt int
	// cv is the fit to all rows whose kernel matrix the folds' batch
	// runs on.
	cv    *fitter
	batch *foldBatch
	// rides[p][t] is target t's fit to all rows at grid point p, run in
	// the folds' batch and cut to its choice (keepRide), kept while the
	// point may join a mean; nil elsewhere.
	rides [][]*ride
	// wx are the rows standardised once with the weights of all rows
	// (weighted cross-validation's folds, as the batch's folds share the
	// scaling of all rows); nil until needed, and with RawFeatures.
	wx []float64
}

// ride is a fit to all rows that ran in the folds' batch: its steps up
// to the grid point's choice and what the model needs of the kernel
// matrix they ran on.
type ride struct {
	kr      *krylov
	kstats  kernelop.Stats
	storage Storage
	warn    *Warning // the kernel matrix's storage warning, if any
}

// ridesAlong reports whether the folds' batch carries each target's fit
// to all rows: with cross-validation's batch (no weights), when the
// search may average, since the members of a mean (and its best, unless
// DoF were asked for) are fitted without DoF, which is all such a fit
// gives.
func (s *selector) ridesAlong() bool {
	return s.opts.Weights == nil && s.avgWithin > 0 && !s.dofAsked // a margin: cross-validation's batch
}

// ridesCheaply reports whether one more vector in the folds' block
// products was measured to cost little on storage of kind k over n rows,
// from rideMinRows rows on:
//   - dense storage reads the matrix once for the block and does the
//     arithmetic from the cache (kin8nm's select 10 % faster);
//   - hybrid and matrix-free storage compute their entries once for the
//     block, and a vector more is two multiply–adds next to an exp
//     (kin8nm's select 15 % faster on hybrid with half the triangle
//     cached, 13 % with nearly all of it, 22 % on matrix-free).
//
// A smaller matrix stays in the cache, or is cheap to recompute, and a
// block's cost is its arithmetic: the ride made concrete's and meats'
// default selects 12 % slower on dense storage than fitting the members
// apart, and meats' 15 % slower on matrix-free storage. float32 storage
// does the arithmetic of every vector over each chunk (two vectors a pass
// on AVX-512): there the ride cost protein's default select as much as
// the members' own fits saved, and about 1 GiB more memory, with the
// pairs too (246 s either way; docs/scale.md). The linear kernel's features fit all rows in a
// few cheap products of their own. A matrix spread over MPI ranks is
// hybrid or matrix-free on each rank, and rides as one process does
// (untimed).
func ridesCheaply(k kernelop.Kind, n int) bool {
	switch k {
	case kernelop.KindDense, kernelop.KindHybrid, kernelop.KindMatrixFree:
		return n >= rideMinRows
	}
	return false
}

// rideMinRows is the smallest matrix the fits to all rows ride on
// (ridesCheaply): from 2,048 rows a dense triangle (16 MiB) no longer
// stays in this machine's 32 MiB cache between products. A variable for
// tests.
var rideMinRows = 2048

// pointResult is one target's outcome at one grid point.
type pointResult struct {
	rows   []SelectionRow // m = 0..the components fitted there
	choice int            // index of the criterion's choice in rows, −1 if none
	warns  []Warning
	model  *Model // the DoF criteria's fit to all rows (nil with CV, or once not the best)
	// oof are the out-of-fold predictions of the choice, one per row
	// (averaged over the repeats): what stacking weighs (nil unless the
	// search averages by stacking).
	oof []float64
}

// pointRun is what one fit or cross-validation at a grid point gives a
// target before the search decides whether to extend its components.
type pointRun struct {
	rows    []SelectionRow
	broke   bool   // a fit stopped before the components asked for
	stopped string // why the fit that limited the components stopped
	warns   []Warning
	model   *Model
	// oof holds the out-of-fold predictions of every m fitted, row by
	// row: oof[i·oofStride+m] (with stacking only).
	oof       []float64
	oofStride int
}

// stacks reports whether the search keeps the folds' predictions at each
// point's choice for stacking (AverageStacked; the folds' batch only).
func (s *selector) stacks() bool {
	return s.avgWithin > 0 && s.avgBy == AverageStacked && s.opts.Weights == nil
}

// options are the options of target t's fit at grid point g with comp
// components: the kernel is g's, the target's name is its own, and the
// criterion is the fit's own default (Select records its choice itself).
func (s *selector) options(g gridPoint, comp, t int) config {
	o := targetOptions(s.opts, t)
	o.Kernel, o.Components, o.Criterion, o.Relevance = g.kernel, comp, "", g.relevance
	return o
}

// limit is the largest number of components at grid point g.
func (s *selector) limit(g gridPoint) int {
	return min(s.maxComp, maxComponents(g.kernel, s.by.trainRows(s.n), s.d))
}

// evaluate scores every m at grid point g for the targets ts, and records
// each target's rows, choice and warnings in s.results. It doubles the
// components while a target's choice is not clearly behind the largest m
// fitted (cross-validation: behind; the DoF criteria's first local
// minimum: any m past it), within what the data allow and the budget.
// The targets share every kernel matrix and product; each one's rows are
// those a search for it alone would have fitted.
func (s *selector) evaluate(g gridPoint, ts []int) error {
	label := g.label()
	limit := s.limit(g)
	comp := min(s.start, limit)
	s.cv, s.batch, s.full = nil, nil, nil
	for len(ts) > 0 {
		runs, err := s.by.run(s, g, comp, ts)
		if err != nil {
			return err
		}
		var more []int
		next := 0
		for i, t := range ts {
			if r, done := s.conclude(runs[i], label, comp, limit, s.raced(t, runs[i].rows)); done {
				s.results[g.id][t] = r
				s.keepRide(g, t, r)
			} else {
				more = append(more, t)
				next = max(next, s.by.next(s, runs[i].rows, comp))
			}
		}
		ts, comp = more, min(next, limit)
	}
	return nil
}

// conclude returns a target's outcome at a grid point from its run with
// comp components, and whether it is final (false: fit more). A raced
// run is final, its choice row marked.
func (s *selector) conclude(r pointRun, label string, comp, limit int, raced bool) (*pointResult, bool) {
	warns := r.warns
	for i := range warns {
		warns[i] = warns[i].prefixed(label)
	}
	choice, scanWarn := s.choose(r.rows, label)
	warns = append(warns, scanWarn...)
	last := len(r.rows) - 1
	settled := s.by.settled(choice, last) || s.flat(r.rows, choice)
	if !settled && !raced && !r.broke && comp < limit && s.passes < s.budget {
		return nil, false
	}
	switch {
	case settled:
	case raced && choice >= 0:
		r.rows[choice].Raced = true
	case choice == last && choice > 0:
		why := fmt.Sprintf("the largest m fitted (limit %d)", limit)
		if r.broke {
			why = "the last valid component (a fit stopped at " + r.stopped + ")"
		} else if comp < limit {
			why = "the largest m fitted: " + s.budgetSpent()
		}
		warns = append(warns, warnf(WarnChoiceAtEdge, "%s: the %s choice m = %d is %s: a larger m might score better", label, s.by.criterion(), choice, why))
	case !settled && !r.broke && comp < limit:
		warns = append(warns, warnf(WarnBudget, "%s: the %s choice m = %d has only %d larger m fitted after it: %s", label, s.by.criterion(), choice, last-choice, s.budgetSpent()))
	}
	res := &pointResult{rows: r.rows, choice: choice, warns: warns, model: r.model}
	if r.oof != nil && choice >= 0 {
		res.oof = make([]float64, s.n)
		for i := range res.oof {
			res.oof[i] = r.oof[i*r.oofStride+choice]
		}
	}
	return res, true
}

// flat reports whether cross-validation's RMSECV, fitted at rows from
// fineGrowthRows rows on, has flattened at choice: the last behind(last)
// components improved the least RMSECV by less than flatGain of it. The
// choice is then settled wherever it sits: more components would buy
// less than that (protein's weighed Laplacian points improved by
// 0.005–0.015 % over their last 50 components). Below fineGrowthRows
// the components double, which looks past a flat stretch to a later
// minimum.
func (s *selector) flat(rows []SelectionRow, choice int) bool {
	last := len(rows) - 1
	back := behind(last)
	if s.by.criterion() != CV || s.n < fineGrowthRows || s.opts.Weights != nil || choice < 0 || last < back {
		return false
	}
	before := leastRMSECV(rows[:last+1-back])
	return before-rows[choice].RMSECV < flatGain*rows[choice].RMSECV
}

// raced reports whether target t's point, its rows fitted so far, is out
// of the race: its least RMSECV more than s.race above the least of its
// chooser's best point so far over the same m, and that gap no smaller
// than at half the m, once m is at least half the best point's choice.
// A point that starts slower and catches up (a wider width, whose first
// components explain less) closes the gap, and runs on: compared at
// four components, a width that ended 17 % ahead of the lead was 63 %
// behind it (TestRaceAgainstTheFullSearch). Only a chooser of one
// target races.
func (s *selector) raced(t int, rows []SelectionRow) bool {
	if s.race == 0 {
		return false
	}
	var c *chooser
	for _, ch := range s.choosers {
		if slices.Contains(ch.targets, t) {
			c = ch
		}
	}
	if c == nil || len(c.targets) != 1 || c.best < 0 {
		return false
	}
	best := s.results[c.best][t]
	lead := best.rows
	gap := func(m int) float64 { return leastRMSECV(rows[:m+1]) / leastRMSECV(lead[:min(m+1, len(lead))]) }
	m := len(rows) - 1
	return 2*m >= best.choice && gap(m) > 1+s.race && gap(m) >= gap(m/2)
}

// leastRMSECV is the least RMSECV of rows (+Inf if none is a number).
func leastRMSECV(rows []SelectionRow) float64 {
	least := math.Inf(1)
	for _, r := range rows {
		if r.RMSECV < least {
			least = r.RMSECV
		}
	}
	return least
}

// budgetSpent says that the search's budget stopped it.
func (s *selector) budgetSpent() string {
	return fmt.Sprintf("the search spent its budget of %d passes over the kernel matrix (SelectOptions.MaxPasses)", s.budget)
}

// choose returns the criterion's choice among one grid point's rows: the
// smallest RMSECV, or the first local minimum of a DoF criterion, with a
// warning when that scan stopped at an unknown DoF.
func (s *selector) choose(rows []SelectionRow, label string) (int, []Warning) {
	choice, last := s.by.choose(scores(rows, s.by.criterion()))
	if last >= 0 {
		return choice, []Warning{warnf(WarnScanStopped, "%s: the %s scan stopped at m = %d: the DoF of m = %d is unknown", label, s.by.criterion(), last, last+1)}
	}
	return choice, nil
}

// fitAll fits grid point g to all rows with comp components for the
// targets ts and returns their runs. The kernel matrix is built once per
// grid point, shared by the targets' fits and kept for refits with more
// components.
func (s *selector) fitAll(g gridPoint, comp int, ts []int) ([]pointRun, error) {
	if s.full == nil || s.fullAt != g.id {
		s.full, s.fullAt = make([]*fitter, len(s.ys)), g.id
	}
	var prev *fitter // a fitter at g with the kernel matrix
	for _, f := range s.full {
		if f != nil && f.op != nil {
			prev = f
		}
	}
	runs := make([]pointRun, len(ts))
	for i, t := range ts {
		f := s.full[t]
		if f != nil {
			if err := f.setComponents(comp); err != nil {
				return nil, err
			}
		} else {
			var err error
			if f, err = newFitter(s.x, s.ys[t], s.options(g, comp, t), &s.buf); err != nil {
				return nil, s.targetError(t, err)
			}
			f.passes = &s.passes
			f.adopt(prev)
			s.full[t] = f
		}
		if err := f.fit(s.ctx); err != nil {
			s.full = nil
			return nil, s.targetError(t, err)
		}
		m, err := f.model(s.ctx)
		if err != nil {
			s.full = nil
			return nil, s.targetError(t, err)
		}
		prev = f
		rows := make([]SelectionRow, len(m.stats))
		for i, st := range m.stats {
			rows[i] = SelectionRow{Kernel: g.kernel, Stats: st, RMSECV: math.NaN(), Q2: math.NaN(), Scaled: g.relevance != nil}
		}
		runs[i] = pointRun{rows: rows, broke: m.valid < m.opts.Components, stopped: m.stop.Message,
			warns: append([]Warning(nil), m.warns...), model: m}
	}
	return runs, nil
}

// targetError names target t in err when there are several.
func (s *selector) targetError(t int, err error) error {
	return targetError(s.opts, t, len(s.ys), err)
}

// crossValidate scores m = 0..comp at grid point g by k-fold
// cross-validation for the targets ts: the fits of every fold and target
// run in lock-step on one kernel matrix over all rows (foldBatch), every
// m's held-out predictions read from the same products. A target's rows
// go up to the components valid in all its folds. More components
// continue the steps on the same matrix.
func (s *selector) crossValidate(g gridPoint, comp int, ts []int) ([]pointRun, error) {
	if s.opts.Weights != nil {
		return s.crossValidateWeighted(g, comp, ts)
	}
	fresh := s.cv == nil
	if fresh {
		o := s.options(g, comp, ts[0])
		o.DoF = DoFNone
		o.Progress = nil
		f, err := newFitter(s.x, s.ys[ts[0]], o, &s.buf)
		if err != nil {
			return nil, s.targetError(ts[0], err)
		}
		f.passes = &s.passes
		b := &foldBatch{n: s.n}
		for _, t := range ts {
			for r := range s.repeats {
				if err := b.add(t, s.ys[t], s.foldIndices(r), comp); err != nil {
					return nil, s.targetError(t, err)
				}
			}
		}
		s.cv, s.batch = f, b
	} else {
		s.batch.grow(comp, ts)
	}
	op, err := s.cv.operator(s.ctx)
	if err != nil {
		return nil, err
	}
	if fresh && s.ridesAlong() && ridesCheaply(op.Kind(), s.n) {
		for _, t := range ts {
			s.batch.addFull(t, s.ys[t], comp)
		}
	}
	err = s.batch.run(s.ctx, &s.cv.opts, op, func(done, total int) { s.opts.report(StageCV, g.kernel, done, total) })
	if err != nil {
		return nil, err
	}
	runs := make([]pointRun, len(ts))
	for i, t := range ts {
		if runs[i], err = s.foldsPress(g, comp, t); err != nil {
			return nil, s.targetError(t, err)
		}
	}
	return runs, nil
}

// foldsPress sums target t's held-out squared errors over its folds (of
// every repeat) for m = 0..comp into the table's rows.
func (s *selector) foldsPress(g gridPoint, comp, t int) (pointRun, error) {
	press := make([]float64, comp+1)
	valid, stopped := comp, ""
	y := s.ys[t]
	var oof []float64
	if s.stacks() {
		oof = make([]float64, s.n*(comp+1))
	}
	for _, fs := range s.batch.seqs {
		if fs.target != t || fs.fold < 0 {
			continue
		}
		if fs.kr.steps == 0 {
			return pointRun{}, fmt.Errorf("fold %d: %w: %s", fs.fold+1, ErrBreakdown, fs.kr.stop.Message)
		}
		v := min(comp, fs.kr.steps)
		if v < valid {
			valid, stopped = v, fs.kr.stop.Message
		}
		pred := fs.predictions(v)
		for i, row := range fs.test {
			for c := 0; c <= v; c++ {
				e := y[row] - pred[i*(v+1)+c]
				press[c] += e * e
			}
			if oof != nil {
				// Each repeat predicts every row once: the mean over them.
				acc := oof[row*(comp+1) : row*(comp+1)+v+1]
				for c := range acc {
					acc[c] += pred[i*(v+1)+c] / float64(s.repeats)
				}
			}
		}
	}
	return pointRun{rows: s.cvRows(g, press, valid, t), broke: valid < comp, stopped: stopped, oof: oof, oofStride: comp + 1}, nil
}

// crossValidateWeighted is crossValidate with frequency weights: every
// fold is a weighted fit of its own to its training rows (a kernel matrix
// per fold, not the batch's one product for all folds), and its held-out
// rows add w_i e_i² to PRESS. The folds split the distinct rows, so the
// copies of one row never sit on both sides (docs/design.md §5).
func (s *selector) crossValidateWeighted(g gridPoint, comp int, ts []int) ([]pointRun, error) {
	runs := make([]pointRun, len(ts))
	for i, t := range ts {
		press := make([]float64, comp+1)
		valid, stopped := comp, ""
		for r := range s.repeats {
			for k, fold := range s.foldIndices(r) {
				p, v, why, err := s.weightedFold(g, comp, t, fold)
				if err != nil {
					return nil, s.targetError(t, fmt.Errorf("fold %d: %w", k+1, err))
				}
				if v < valid {
					valid, stopped = v, why
				}
				for c := 0; c <= valid; c++ {
					press[c] += p[c]
				}
			}
		}
		runs[i] = pointRun{rows: s.cvRows(g, press, valid, t), broke: valid < comp, stopped: stopped}
	}
	return runs, nil
}

// weightedFold fits target t's fold to its training rows with their
// weights and returns the weighted squared errors Σw e² of its held-out
// rows for m = 0..v, v the components it reached, and why it stopped.
func (s *selector) weightedFold(g gridPoint, comp, t int, fold foldIndex) ([]float64, int, string, error) {
	d := s.d
	rows, err := s.weightedRows()
	if err != nil {
		return nil, 0, "", err
	}
	xs := make([]float64, 0, len(fold.train)*d)
	for _, i := range fold.train {
		xs = append(xs, rows[i*d:(i+1)*d]...)
	}
	o := s.options(g, comp, t)
	o.DoF, o.Progress, o.RawFeatures = DoFNone, nil, true
	o.Weights = pick(s.opts.Weights, fold.train)
	f, err := newFitter(mat.NewDense(len(fold.train), d, xs), pick(s.ys[t], fold.train), o, &s.buf)
	if err != nil {
		return nil, 0, "", err
	}
	f.passes = &s.passes
	if err := f.fit(s.ctx); err != nil {
		return nil, 0, "", err
	}
	m, err := f.model(s.ctx)
	if err != nil {
		return nil, 0, "", err
	}
	zs := make([]float64, 0, len(fold.test)*d)
	for _, i := range fold.test {
		zs = append(zs, rows[i*d:(i+1)*d]...)
	}
	pred, err := m.predictAll(s.ctx, mat.NewDense(len(fold.test), d, zs))
	if err != nil {
		return nil, 0, "", err
	}
	v := m.valid
	press := make([]float64, v+1)
	for j, row := range fold.test {
		w, y := s.opts.Weights[row], s.ys[t][row]
		for c := 0; c <= v; c++ {
			e := y - pred[j*(v+1)+c]
			press[c] += w * e * e
		}
	}
	return press, v, m.stop.Message, nil
}

// cvRows turns target t's PRESS over the folds of every repeat into the
// table's rows for m = 0..valid: each repeat holds out every row once.
func (s *selector) cvRows(g gridPoint, press []float64, valid, t int) []SelectionRow {
	tss := s.tss[t]
	rows := make([]SelectionRow, valid+1)
	nan := math.NaN()
	for i := range rows {
		rows[i] = SelectionRow{Kernel: g.kernel, Stats: Stats{M: i, RSS: nan, DoF: nan, DoFSE: nan, DoFClipped: nan,
			Sigma: nan, AIC: nan, BIC: nan, GMDL: nan, GCV: nan, YhatSq: nan},
			RMSECV: math.Sqrt(press[i] / (float64(s.repeats) * s.total())), Q2: 1 - press[i]/(float64(s.repeats)*tss), Scaled: g.relevance != nil}
	}
	return rows
}

// final fits target t at its chosen grid point to all rows with the
// components its search reached, unless the DoF criteria's fit there is
// at hand, and records the choice. prev is the fitter of the target
// finished before at the same grid point, if any, whose kernel matrix
// it shares when both fit the same DoF; final returns its own fitter
// (nil if it fitted nothing). noDoF fits without DoF: a member of a mean
// of several models (selectTargets).
func (s *selector) final(t int, g gridPoint, choice, comp int, fitted *Model, prev *fitter, noDoF bool) (*Model, *fitter, error) {
	s.cv, s.batch, s.full = nil, nil, nil // their Krylov steps are not needed any more
	if fitted != nil && fitted.valid >= choice {
		return s.chosen(fitted, t, g, choice), nil, nil
	}
	o := s.options(g, max(s.by.finalComp(choice, comp), 1), t)
	if noDoF {
		// A mean's members need no DoF: cross-validation chose them,
		// and the mean's bands and intervals take their RMSECV
		// (Mean.NoiseLevel). Their DoF would cost 2m+1 Krylov steps
		// and m block products of probes each, several times the fit.
		o.DoF = DoFNone
	}
	m, err := s.fromRide(t, g, choice, o)
	if m != nil || err != nil {
		if err != nil {
			return nil, nil, err
		}
		return s.chosen(m, t, g, choice), nil, nil
	}
	f, err := newFitter(s.x, s.ys[t], o, &s.buf)
	if err != nil {
		return nil, nil, err
	}
	f.passes = &s.passes
	if prev != nil && prev.opts.DoF == f.opts.DoF {
		// The same DoF, the same storage (storageFor): without DoF a
		// fit may keep float32 where one with DoF may not.
		f.adopt(prev)
	}
	if err := f.fit(s.ctx); err != nil {
		return nil, nil, err
	}
	if m, err = f.model(s.ctx); err != nil {
		return nil, nil, err
	}
	if m.valid < choice {
		m.warns = append(m.warns, warnf(WarnFewerComponents, "the fit to all rows has %d valid components, fewer than the %d chosen: it predicts with %d", m.valid, choice, m.valid))
		choice = m.valid
	}
	// The buffer belongs to the next fit; the model rebuilds its kernel
	// matrix if bands are asked for.
	return s.chosen(m, t, g, choice), f, nil
}

// chosen records in m that the search chose choice components for target
// t at grid point g, with their RMSECV under cross-validation.
func (s *selector) chosen(m *Model, t int, g gridPoint, choice int) *Model {
	m.chosen = &Choice{Criterion: s.by.criterion(), M: choice, RMSECV: s.by.rmsecv(s.results[g.id][t], choice)}
	return m
}

// keepRide keeps target t's fit to all rows at grid point g, cut to the
// choice r concluded there, if the batch carried one that got that far
// and the point may join a mean: its choice within the margin of the
// best so far. It drops the kept fits that the best now leaves outside.
func (s *selector) keepRide(g gridPoint, t int, r *pointResult) {
	if s.batch == nil || r.choice < 0 {
		return
	}
	fs := s.batch.full(t)
	steps := max(r.choice, 1)
	if fs == nil || fs.kr.steps < steps {
		return
	}
	for len(s.rides) <= g.id { // the grid grows as the widths extend
		s.rides = append(s.rides, nil)
	}
	if s.rides[g.id] == nil {
		s.rides[g.id] = make([]*ride, len(s.ys))
	}
	s.rides[g.id][t] = &ride{kr: fs.kr.upTo(steps), kstats: s.cv.kstats, storage: s.cv.storage, warn: s.cv.storageWarn}
	best := math.Inf(1)
	for p := range s.results {
		if res := s.results[p][t]; res != nil && res.choice >= 0 {
			best = min(best, res.rows[res.choice].RMSECV)
		}
	}
	for p, rs := range s.rides {
		if rs == nil || rs[t] == nil {
			continue
		}
		if res := s.results[p][t]; !(res.rows[res.choice].RMSECV <= (1+s.avgWithin)*best) {
			rs[t] = nil
		}
	}
}

// fromRide is the model of target t at grid point g with choice
// components from its fit to all rows in the folds' batch (keepRide),
// with options o, or nil if there is none to that choice.
func (s *selector) fromRide(t int, g gridPoint, choice int, o config) (*Model, error) {
	if g.id >= len(s.rides) || s.rides[g.id] == nil || o.DoF != DoFNone {
		return nil, nil
	}
	rd := s.rides[g.id][t]
	if rd == nil || rd.kr.steps != max(choice, 1) {
		return nil, nil
	}
	f, err := newFitter(s.x, s.ys[t], o, &s.buf)
	if err != nil {
		return nil, err
	}
	f.kr, f.kstats, f.storage, f.storageWarn = rd.kr, rd.kstats, rd.storage, rd.warn
	s.rides[g.id][t] = nil
	return f.model(s.ctx)
}

// fineGrowthRows is the number of rows from which cross-validation
// grows its components by what the choice needs rather than by doubling
// (selector.more).
const fineGrowthRows = 2048

// flatGain is the relative improvement of RMSECV over a point's last
// components below which its curve is flat (selector.flat): the same
// tenth of a percent below which the widths stop extending (widthGain).
const flatGain = widthGain

// foldIndex is one cross-validation split of the rows.
type foldIndex struct {
	train, test []int
}

// foldIndices splits the rows into s.folds seeded folds (contiguous
// blocks of one random permutation) for repeat r, once for every grid
// point and growth step. Repeat 0 is the split of a single k-fold
// cross-validation.
func (s *selector) foldIndices(r int) []foldIndex {
	if s.split == nil {
		s.split = make([][]foldIndex, s.repeats)
	}
	if s.split[r] != nil {
		return s.split[r]
	}
	n := s.n
	perm := rand.New(rand.NewPCG(s.seed, 0x6376+uint64(r))).Perm(n)
	split := make([]foldIndex, s.folds)
	for f := range split {
		lo, hi := f*n/s.folds, (f+1)*n/s.folds
		split[f] = foldIndex{
			train: append(append([]int(nil), perm[:lo]...), perm[hi:]...),
			test:  perm[lo:hi],
		}
	}
	s.split[r] = split
	return split
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

// total is the rows cross-validation counts: N = Σw with weights, else n.
func (s *selector) total() float64 {
	if s.opts.Weights == nil {
		return float64(s.n)
	}
	var sum float64
	for _, w := range s.opts.Weights {
		sum += w
	}
	return sum
}

// weightedRows returns the rows as weighted cross-validation's folds take
// them: standardised once with the weighted means and deviations of all
// rows (unless RawFeatures), as the unweighted batch standardises once.
func (s *selector) weightedRows() ([]float64, error) {
	if s.wx != nil {
		return s.wx, nil
	}
	n, d := s.n, s.d
	s.wx = make([]float64, 0, n*d)
	for i := range n {
		s.wx = append(s.wx, s.x.RawRowView(i)...)
	}
	if !s.opts.RawFeatures {
		sc, _, err := learnScaling(s.wx, n, d, s.opts.Weights, s.opts.FeatureNames)
		if err != nil {
			s.wx = nil
			return nil, err
		}
		sc.apply(s.wx, n, d)
	}
	return s.wx, nil
}
