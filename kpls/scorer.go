package kpls

// scorer is how a search scores its grid, with everything that differs
// between its two ways: k-fold cross-validation (cvScorer), which refits
// on folds, chooses the smallest RMSECV and averages the best points, and
// a DoF criterion (criterionScorer), which fits each grid point once to
// all rows and chooses the first local minimum. The selector asks it
// instead of testing which one it is.
type scorer interface {
	// criterion names the score in tables, choices and messages.
	criterion() Criterion
	// trainRows is how many of n rows each fit trains on.
	trainRows(n int) int
	// run scores m = 0..comp at grid point g for the targets ts.
	run(s *selector, g gridPoint, comp int, ts []int) ([]pointRun, error)
	// choose returns the choice among one grid point's scores (by m),
	// and the last m whose score is known when the scan stopped there
	// (−1 otherwise).
	choose(score []float64) (choice, stoppedAt int)
	// settled says whether a choice with last the largest m fitted needs
	// no more components.
	settled(choice, last int) bool
	// next is the number of components to fit next at a grid point
	// whose choice among rows (fitted with comp) is not settled.
	next(s *selector, rows []SelectionRow, comp int) int
	// finalComp is the components of the chosen point's fit to all rows
	// that has comp fitted at its choice.
	finalComp(choice, comp int) int
	// rmsecv is the RMSECV a chosen model records at choice, 0 if none.
	rmsecv(r *pointResult, choice int) float64
	// finish completes sel, whose best model m is fitted to all rows.
	finish(sel *Selection, m *Model)
}

// cvScorer scores by k-fold cross-validation, repeated.
type cvScorer struct{ folds, repeats int }

func (cvScorer) criterion() Criterion { return CV }

// trainRows: the folds train on fewer rows.
func (c cvScorer) trainRows(n int) int { return n - (n+c.folds-1)/c.folds }

func (cvScorer) run(s *selector, g gridPoint, comp int, ts []int) ([]pointRun, error) {
	return s.crossValidate(g, comp, ts)
}

func (cvScorer) choose(score []float64) (int, int) { return argmin(score), -1 }

// settled: RMSECV is noisy, and a minimum needs behind(choice) larger m
// after it.
func (cvScorer) settled(choice, last int) bool {
	return choice < last && last-choice >= behind(choice)
}

// next: doubling looks far past a choice, which finds the later minima
// of curves with several (spectra: meats' best m of 34 lies past a local
// minimum at 17), so it is the rule wherever steps are cheap: at fewer
// than fineGrowthRows rows and for weighted folds (refitted from the
// start). With more rows, the engine continues its steps and fits only
// what the choice still needs to be clearly behind, and at least an
// eighth more: on kin8nm that is 0.8 of the time (docs/scale.md).
func (c cvScorer) next(s *selector, rows []SelectionRow, comp int) int {
	if s.opts.Weights != nil || s.n < fineGrowthRows {
		return 2 * comp
	}
	choice, _ := c.choose(scores(rows, CV))
	return max(choice+behind(choice), comp+max(3, comp/8))
}

// finalComp: cross-validation chose m without the DoF, and the model to
// all rows needs them (σ̂) only up to its choice.
func (cvScorer) finalComp(choice, _ int) int { return choice }

func (cvScorer) rmsecv(r *pointResult, choice int) float64 {
	if r != nil && choice < len(r.rows) {
		return r.rows[choice].RMSECV
	}
	return 0
}

// finish gives the best grid point's rows the statistics of its fit to
// all rows, and the predictor's RMSECV the best point's.
func (cvScorer) finish(sel *Selection, m *Model) {
	fullStats(sel, m)
	sel.PredictorRMSECV = sel.Best.RMSECV
}

// criterionScorer scores by a DoF criterion of one fit to all rows.
type criterionScorer struct{ c Criterion }

func (c criterionScorer) criterion() Criterion { return c.c }

func (criterionScorer) trainRows(n int) int { return n }

func (criterionScorer) run(s *selector, g gridPoint, comp int, ts []int) ([]pointRun, error) {
	return s.fitAll(g, comp, ts)
}

// choose: the first local minimum, which stops where a DoF is unknown.
func (criterionScorer) choose(score []float64) (int, int) {
	choice := firstLocalMin(score)
	if last := lastValid(score); last < len(score)-1 && choice == last {
		return choice, last
	}
	return choice, -1
}

// settled: any m past the first local minimum.
func (criterionScorer) settled(choice, last int) bool { return choice < last }

// next: the fits to all rows refit from the start, and doubling looks
// far past a choice.
func (criterionScorer) next(_ *selector, _ []SelectionRow, comp int) int { return 2 * comp }

func (criterionScorer) finalComp(_, comp int) int { return comp }

func (criterionScorer) rmsecv(*pointResult, int) float64 { return 0 }

func (criterionScorer) finish(*Selection, *Model) {}

// scores are the rows' scores by c.
func scores(rows []SelectionRow, c Criterion) []float64 {
	score := make([]float64, len(rows))
	for i, r := range rows {
		score[i] = r.Score(c)
	}
	return score
}
