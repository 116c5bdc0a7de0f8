package kpls

import (
	"math/rand/v2"
	"slices"

	"github.com/kpls-go/kpls/internal/ard"
)

// WeighedSearch is a small set's second search of the grid, with the
// standardised features weighed by the length scales of a Gaussian
// process with one scale per feature (automatic relevance
// determination), fitted by its marginal likelihood to at most ardRows
// rows of the set. The selection's best point is that of the search,
// unweighed or weighed, whose best point has the smaller RMSECV; its
// mean may take points of both; its Table and Choices hold both
// searches' rows, the weighed ones marked Scaled.
type WeighedSearch struct {
	// Relevance are the feature weights, min ℓ / ℓ_j (the largest 1, none
	// below 0.01), learned on Rows rows (a seeded sample of the set where
	// it has more than ardRows).
	Relevance []float64
	Rows      int
	// Unweighed and Weighed are each search's best point, Chosen whether
	// the weighed one won (and Model is its).
	Unweighed, Weighed SelectionRow
	Chosen             bool
}

// ardRows bounds the rows the Gaussian process learns the weights on:
// each of its steps factorises and inverts that many rows' kernel
// matrix (internal/ard's BenchmarkFit: 1.1 s for 500 rows, 8 s for
// 1,000 on this machine's two cores). On the panel, 1,000 rows against
// 500 took 7.6 % off concrete_noise5's held-out error, 1.1–1.3 % off
// concrete's and kin8nm3000's and 0.5 % off carprices'; friedman1's
// rose 0.1 % (docs/scale.md, "Per-feature scales on small sets"). A
// variable for tests.
var ardRows = 1000

// ardMinRows is the fewest rows a search learns weights on: fewer
// rows cannot tell a scale per feature from noise. ardMaxFeatures is
// the most features: each of the Gaussian process's steps costs
// rows² × features more, and its steps grow with the features (cox2's
// 255 features: 5–6 s a select, against 0.2 s isotropic; 500 features
// on 300 rows took 7 s).
const (
	ardMinRows     = 50
	ardMaxFeatures = 256
)

// learnsARD reports whether the search s0, which did not screen, learns
// feature weights with a Gaussian process and searches its grid again
// with them: one target, cross-validation without weights, standardised
// features not weighed already, 2 to ardMaxFeatures of them, an RBF kernel in the grid, and fewer
// rows than a screen samples from (a screened search learns its weights
// on the sample).
func (so *selectConfig) learnsARD(s0 *selector) bool {
	if so.Isotropic || so.RawFeatures || so.Relevance != nil || so.scaled != nil || len(s0.ys) != 1 || s0.d < 2 || s0.d > ardMaxFeatures || s0.n < ardMinRows || s0.n >= screenFrom ||
		s0.by.criterion() != CV || so.Weights != nil || so.Comm != nil {
		return false
	}
	rbf := false
	for _, g := range s0.points {
		if b := behaviourOf(g.kernel); b == nil || b.inputs() == inputGram {
			return false
		}
		rbf = rbf || g.kernel.Name() == (RBF{}).Name()
	}
	return rbf
}

// ard returns feature weights for the search s from a Gaussian process
// with one length scale per feature, fitted to at most ardRows of its
// rows standardised as a fit to all of them standardises them, and the
// rows it was fitted to.
func (s *selector) ard() ([]float64, int, error) {
	idx := make([]int, s.n)
	for i := range idx {
		idx[i] = i
	}
	if s.n > ardRows {
		idx = rand.New(rand.NewPCG(s.seed, 0xa5d)).Perm(s.n)[:ardRows]
	}
	all := slices.Clone(s.x.RawMatrix().Data)
	sc, _, err := learnScaling(all, s.n, s.d, nil, s.opts.FeatureNames)
	if err != nil {
		return nil, 0, err
	}
	xs, yss := s.subset(idx)
	sc.apply(xs.RawMatrix().Data, len(idx), s.d)
	r, err := ard.Fit(s.ctx, xs, yss[0])
	if err != nil {
		return nil, 0, err
	}
	return r.Weights(relevanceFloor), len(idx), nil
}

// weighedSearch searches the grid of s (searched, unweighed) again with
// the features weighed by a Gaussian process's scales, and returns the
// search whose best point has the smaller RMSECV, holding both
// searches' rows and passes, with its record. Where the weights cannot
// be learned or searched it returns s and a warning.
func (s *selector) weighedSearch(so selectConfig) (*selector, error) {
	rel, rows, err := s.ard()
	if err != nil {
		if s.ctx.Err() != nil {
			return s, s.ctx.Err()
		}
		s.warnAll(warnf(WarnRelevance, "the features' weights could not be learned (%v): the search kept them equal", err))
		return s, nil
	}
	weighed := so
	weighed.Relevance = rel
	w, scanned, err := newSelector(s.ctx, s.x, s.ys, weighed)
	if err == nil {
		// One budget of passes for the selection: the weighed search
		// counts on from the unweighed one's passes.
		w.passes, w.before = s.passes, s.evaluated
		err = w.search(scanned)
		s.passes = w.passes
	}
	if err != nil {
		if s.ctx.Err() != nil {
			return s, s.ctx.Err()
		}
		s.warnAll(warnf(WarnRelevance, "the grid could not be searched with the features weighed (%v): the search kept them equal", err))
		return s, nil
	}
	rec := &WeighedSearch{Relevance: rel, Rows: rows, Unweighed: s.sels[0].Best, Weighed: w.sels[0].Best}
	rec.Chosen = w.choosers[0].bestScore < s.choosers[0].bestScore
	win, rival := s, w
	if rec.Chosen {
		win, rival = w, s
	}
	win.rival = rival
	win.passes = s.passes
	for t, sel := range win.sels {
		unw, wei := s.sels[t], w.sels[t]
		sel.Table = append(slices.Clone(unw.Table), wei.Table...)
		sel.Choices = append(slices.Clone(unw.Choices), wei.Choices...)
		sel.Skipped = append(slices.Clone(unw.Skipped), wei.Skipped...)
		sel.Weighed = rec
	}
	return win, nil
}

// warnAll adds w to every target's warnings.
func (s *selector) warnAll(w Warning) {
	for _, sel := range s.sels {
		sel.Warnings = append(sel.Warnings, w)
	}
}
