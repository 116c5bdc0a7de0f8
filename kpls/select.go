package kpls

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/internal/kernelop"
)

// Defaults of SelectOptions.
const (
	// DefaultCriterion is how Select chooses when SelectOptions.Criterion
	// is empty: measured on held-out data (README, "Choosing a model"),
	// k-fold cross-validation came closest to cross-validated kernel ridge.
	DefaultCriterion = CV
	// DefaultFolds is the number of cross-validation folds.
	DefaultFolds = 5
	// maxWidthSteps bounds how often Select extends the default widths
	// past the edge the best one sits at.
	maxWidthSteps = 3
	// DefaultMaxComponents bounds how far Select extends the components
	// when a choice sits at the largest m fitted.
	DefaultMaxComponents = 100
)

// SelectOptions configure Select. The zero value searches the RBF widths
// d/8, d/4, d/2, d and 2d (d features) and the linear kernel by 5-fold
// cross-validation, extending the components up to DefaultMaxComponents
// while a choice sits at the largest m fitted, and the widths by factors
// of 2 (up to three times) while the best sits at the narrowest or widest.
type SelectOptions struct {
	// Kernels to search; nil means RBF{} and Linear{}. A kernel with a
	// width (RBF, Laplacian, Matern) whose width is zero is searched over
	// Widths; one with its width set is a single grid point.
	Kernels []Kernel
	// Widths for the kernels whose width is zero; nil means the kernel's
	// default width (see each kernel) times 1/4, 1/2, 1, 2 and 4 (for RBF:
	// d/8, d/4, d/2, d and 2d), extended past the edge the best one sits
	// at. Given widths are searched as given. Each must be positive and
	// finite, and appear once.
	Widths []float64
	// Criterion chooses; empty means DefaultCriterion. CV is k-fold
	// cross-validation (RMSECV); GCV, AIC, BIC and GMDL use the DoF of
	// Options.DoF and need no refits.
	Criterion Criterion
	// Folds is the number of cross-validation folds (2..n); zero means
	// DefaultFolds. Seed seeds their random assignment.
	Folds int
	Seed  uint64
	// MaxComponents bounds the components when a choice sits at the
	// largest m fitted (the search doubles them); zero means
	// DefaultMaxComponents, capped by what the data allow. Options.
	// Components is where the search starts.
	MaxComponents int
}

// Selection is the outcome of model selection over a grid of kernels and
// numbers of components.
type Selection struct {
	Criterion Criterion
	// Table holds every (kernel, width, m) cell, grid points in order and
	// m from 0 to the components fitted there. With CV, the statistics of
	// the fit to all rows are known only for the chosen grid point; the
	// other rows carry NaN there and their RMSECV and Q².
	Table []SelectionRow
	// Choices holds each grid point's choice: the first local minimum of
	// the criterion over m (CV: the smallest RMSECV).
	Choices []SelectionRow
	// Best is the winning row: the choice with the lowest score.
	Best SelectionRow
	// Model is fitted to all rows at the best grid point; it records the
	// choice (Model.Chosen), which predictions use by default.
	Model *Model
	// Warnings collects each grid point's warnings, prefixed by it.
	Warnings []Warning
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
func (r SelectionRow) label() string { return kernelLabel(r.Kernel) }

// MarshalJSON writes the row with its kernel as an object.
func (r SelectionRow) MarshalJSON() ([]byte, error) {
	type plain SelectionRow // without this method
	k, err := KernelJSON(r.Kernel)
	if err != nil {
		k, _ = json.Marshal(r.Kernel.Name())
	}
	return json.Marshal(struct {
		Kernel json.RawMessage `json:"kernel"`
		plain
	}{k, plain(r)})
}

// gridPoint is one kernel of the search; id tells grid points apart (a
// Func kernel cannot be compared).
type gridPoint struct {
	kernel Kernel
	id     int
}

func (g gridPoint) width() float64 {
	w, _ := WidthOf(g.kernel)
	return w
}

// Select chooses the kernel, the RBF width and the number of components:
// for every grid point it fits once per fold (CV) or once to all rows
// (the DoF-based criteria), reads every m from that run, and extends the
// components while the choice sits at the largest m fitted. One n×n
// buffer is reused across the grid. opts.Kernel, opts.Width and
// opts.Gamma must be unset; opts.Components is where the search starts.
func Select(ctx context.Context, x mat.Matrix, y []float64, so SelectOptions, opts Options) (*Selection, error) {
	crit, err := ParseCriterion(string(so.Criterion))
	if err != nil {
		return nil, err
	}
	if so.Criterion == "" {
		crit = DefaultCriterion
	}
	if opts.Kernel != nil {
		return nil, fmt.Errorf("%w: give the kernels and widths in SelectOptions, not in the options", ErrBadOption)
	}
	xs, n, d, err := denseRows(x, "x")
	if err != nil {
		return nil, err
	}
	grid, scanned, err := so.grid(n, d)
	if err != nil {
		return nil, err
	}
	folds := so.Folds
	if folds == 0 {
		folds = DefaultFolds
	}
	if crit == CV && (folds < 2 || folds > n) {
		return nil, fmt.Errorf("%w: %d folds for %d rows", ErrBadOption, folds, n)
	}
	maxComp := so.MaxComponents
	if maxComp < 0 {
		return nil, fmt.Errorf("%w: %d maximum components", ErrComponents, maxComp)
	}
	if maxComp == 0 {
		maxComp = DefaultMaxComponents
	}
	start := opts.Components
	if start == 0 {
		start = DefaultComponents
	}
	if start < 0 {
		return nil, fmt.Errorf("%w: %d components", ErrComponents, start)
	}
	maxComp = max(maxComp, start)
	xm := mat.NewDense(n, d, xs)
	s := &selector{ctx: ctx, x: xm, y: y, n: n, d: d, crit: crit, folds: folds, seed: so.Seed, start: start, maxComp: maxComp, opts: opts}
	sel := &Selection{Criterion: crit}
	bestScore := math.Inf(1)
	var best gridPoint
	fitted := map[int]int{} // components fitted per grid point
	var bestModel *Model    // the DoF criteria's fit at the best grid point
	// With the default widths, a winner at the narrowest or widest one
	// extends the grid of its kernel by a factor of 2 that way, up to
	// maxWidthSteps times, so that the grid reaches the best width.
	extend := len(scanned) > 0
	steps := 0
	for gi := 0; gi < len(grid); gi++ {
		g := grid[gi]
		opts.report("select", g.width(), gi, len(grid))
		rows, choice, warns, err := s.point(g)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", kernelLabel(g.kernel), err)
		}
		sel.Table = append(sel.Table, rows...)
		sel.Warnings = append(sel.Warnings, warns...)
		fitted[g.id] = len(rows) - 1
		if choice >= 0 {
			c := rows[choice]
			sel.Choices = append(sel.Choices, c)
			if sc := c.Score(crit); sc < bestScore {
				bestScore, best, sel.Best = sc, g, c
				if crit != CV {
					// The fit to all rows at g is complete; later grid
					// points reuse only the kernel buffer, not the model.
					bestModel = s.model
				}
			}
		}
		if gi == len(grid)-1 && extend && scanned[best.kernel.Name()] && steps < maxWidthSteps {
			lo, hi := widthRange(grid, best)
			switch best.width() {
			case lo:
				grid = append(grid, gridPoint{WithWidth(best.kernel, lo/2), len(grid)})
				steps++
			case hi:
				grid = append(grid, gridPoint{WithWidth(best.kernel, hi*2), len(grid)})
				steps++
			}
		}
	}
	if steps == maxWidthSteps && scanned[best.kernel.Name()] {
		if lo, hi := widthRange(grid, best); best.width() == lo || best.width() == hi {
			sel.Warnings = append(sel.Warnings, warnf(WarnWidthAtEdge, "the best %s width %g is still at the edge of the grid after %d extensions", best.kernel.Name(), best.width(), steps))
		}
	}
	if math.IsInf(bestScore, 1) {
		return nil, fmt.Errorf("%w: no grid point has a usable %s score", ErrBreakdown, crit)
	}
	m, err := s.final(best, sel.Best.M, fitted[best.id], bestModel)
	if err != nil {
		return nil, err
	}
	sel.Model = m
	if crit == CV {
		// The table's rows of the best grid point get the full fit's
		// statistics.
		for i := range sel.Table {
			r := &sel.Table[i]
			if kernelLabel(r.Kernel) == kernelLabel(sel.Best.Kernel) && r.M <= m.valid {
				r.Stats = m.stats[r.M]
			}
		}
		sel.Best.Stats = m.stats[sel.Best.M]
		for i := range sel.Choices {
			if c := &sel.Choices[i]; kernelLabel(c.Kernel) == kernelLabel(sel.Best.Kernel) {
				c.Stats = sel.Best.Stats
			}
		}
	}
	for _, w := range m.warns {
		sel.Warnings = append(sel.Warnings, w.prefixed(sel.Best.label()+" (chosen model)"))
	}
	return sel, nil
}

// grid resolves the kernels and widths to search.
// scanned holds the names of the kernels whose default widths are
// searched, which Select may extend.
func (so SelectOptions) grid(n, d int) (grid []gridPoint, scanned map[string]bool, err error) {
	kernels := so.Kernels
	if kernels == nil {
		kernels = []Kernel{RBF{}, Linear{}}
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
			grid = append(grid, gridPoint{r, len(grid)})
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
			grid = append(grid, gridPoint{r, len(grid)})
		}
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
	// and the fold fits alike: one at a time, whatever the width.
	buf     kernelBuffer
	split   []fold            // the cross-validation folds, split once
	model   *Model            // the last full fit, kept for final()
	modelAt int               // the grid point s.model was fitted at
	op      kernelop.Operator // s.model's kernel matrix while it is in buf, else nil
	stopped string            // why the last fit that limited the components stopped
	// foldFits are the fold fits at grid point foldsAt, kept with their
	// Krylov steps so that more components continue them.
	foldFits []*Model
	foldsAt  int
	// foldSSE[f][c] is fold f's sum of squared held-out errors with c
	// components, for the c its fit has had so far: a grown fit's first
	// components are the same, so only the new ones are predicted.
	foldSSE [][]float64
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
		score := make([]float64, len(rows))
		for i, r := range rows {
			score[i] = r.Score(s.crit)
		}
		var choice int
		if s.crit == CV {
			choice = argmin(score)
		} else {
			choice = FirstLocalMin(score)
			if last := lastValid(score); last < len(score)-1 && choice == last {
				warns = append(warns, warnf(WarnScanStopped, "%s: the %s scan stopped at m = %d: the DoF of m = %d is unknown", label, s.crit, last, last+1))
			}
		}
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

// fitAll fits grid point g to all rows with comp components and returns
// the rows of the table, whether the fit broke down before comp, and its
// warnings. The kernel matrix is built once per grid point and kept for
// refits with more components.
func (s *selector) fitAll(g gridPoint, comp int) ([]SelectionRow, bool, []Warning, error) {
	o := s.options(g, comp)
	var m *Model
	if s.model != nil && s.modelAt == g.id && s.op != nil {
		// A refit with more components on the kept kernel matrix.
		m = s.model
		ro, err := o.resolved(s.n, s.d)
		if err != nil {
			return nil, false, nil, err
		}
		m.opts = ro
		err = m.fitOperator(s.ctx, s.op, s.y)
		if errors.Is(err, errFloat32Cut) {
			// More components reach where float32 stops: the kept
			// operator's memory goes to a hybrid one.
			s.op = nil
			s.op, err = m.refitHybrid(s.ctx, &s.buf, s.y)
		}
		if err != nil {
			s.op = nil
			return nil, false, nil, err
		}
	} else {
		var xs []float64
		var err error
		m, xs, err = prepare(s.x, s.y, o)
		if err != nil {
			return nil, false, nil, err
		}
		s.op = nil
		if s.op, err = m.fit(s.ctx, &s.buf, xs, s.y); err != nil {
			s.op = nil
			return nil, false, nil, err
		}
	}
	s.model, s.modelAt = m, g.id
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
	n := s.n
	folds := s.foldRows()
	press := make([]float64, comp+1)
	valid := comp
	var mean, tss float64
	for _, v := range s.y {
		mean += v
	}
	mean /= float64(n)
	for _, v := range s.y {
		tss += (v - mean) * (v - mean)
	}
	o := s.options(g, comp)
	o.DoF = DoFNone
	o.Progress = nil
	if s.foldFits == nil || s.foldsAt != g.id {
		s.foldFits, s.foldsAt = make([]*Model, s.folds), g.id
		s.foldSSE = make([][]float64, s.folds)
	}
	for f := 0; f < s.folds; f++ {
		s.opts.report("cv", g.width(), f, s.folds)
		fd := folds[f]
		xtr, ytr, xte, yte := fd.xtr, fd.ytr, fd.xte, fd.yte
		s.op = nil // the buffer is the fold's now
		m := s.foldFits[f]
		if m == nil {
			var xs []float64
			var err error
			m, xs, err = prepare(xtr, ytr, o)
			if err != nil {
				return nil, false, fmt.Errorf("fold %d: %w", f+1, err)
			}
			m.keepKrylov = true
			if _, err := m.fit(s.ctx, &s.buf, xs, ytr); err != nil {
				return nil, false, fmt.Errorf("fold %d: %w", f+1, err)
			}
			s.foldFits[f] = m
		} else {
			// More components: rebuild the fold's kernel matrix and go on
			// from the steps it has.
			m.opts.Components = comp
			var op kernelop.Operator
			var err error
			if m.kr.stop.Reason == StopNone { // else it cannot go further
				op, err = m.rebuildOperator(s.ctx, &s.buf)
			}
			if err == nil {
				err = m.resumeFit(s.ctx, op, m.kr)
			}
			if err != nil {
				return nil, false, fmt.Errorf("fold %d: %w", f+1, err)
			}
		}
		if m.valid < valid {
			valid, s.stopped = m.valid, m.stop.Message
		}
		from := len(s.foldSSE[f])
		pred, err := m.predictFrom(s.ctx, xte, from)
		if err != nil {
			return nil, false, fmt.Errorf("fold %d: %w", f+1, err)
		}
		cols := m.valid + 1 - from
		sse := append(s.foldSSE[f], make([]float64, max(cols, 0))...)
		for i, v := range yte {
			for c := from; c <= m.valid; c++ {
				e := v - pred[i*cols+c-from]
				sse[c] += e * e
			}
		}
		s.foldSSE[f] = sse
		for c := 0; c <= min(m.valid, comp); c++ {
			press[c] += sse[c]
		}
	}
	rows := make([]SelectionRow, valid+1)
	nan := math.NaN()
	for i := range rows {
		rows[i] = SelectionRow{Kernel: g.kernel, Stats: Stats{M: i, RSS: nan, DoF: nan, DoFSE: nan, DoFClipped: nan,
			Sigma: nan, AIC: nan, BIC: nan, GMDL: nan, GCV: nan, YhatSq: nan},
			RMSECV: math.Sqrt(press[i] / float64(n)), Q2: 1 - press[i]/tss}
	}
	return rows, valid < comp, nil
}

// final fits the chosen grid point to all rows with the components its
// search reached, unless the DoF criteria's fit there is at hand, and
// records the choice.
func (s *selector) final(g gridPoint, choice, comp int, fitted *Model) (*Model, error) {
	s.foldFits, s.foldSSE = nil, nil // their Krylov steps are not needed any more
	var m *Model
	if fitted != nil && fitted.valid >= choice {
		m = fitted
	} else {
		// Cross-validation chose m without the DoF: the model to all rows
		// needs them (σ̂, bands) only up to its choice.
		if s.crit == CV {
			comp = choice
		}
		o := s.options(g, max(comp, 1))
		var xs []float64
		var err error
		m, xs, err = prepare(s.x, s.y, o)
		if err != nil {
			return nil, err
		}
		s.op = nil
		if _, err := m.fit(s.ctx, &s.buf, xs, s.y); err != nil {
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

// TrainingFit returns the root mean squared error and R² of the fit with
// comp components on the training data; NaN outside 0..Components().
func (m *Model) TrainingFit(comp int) (rmse, r2 float64) {
	if comp < 0 || comp > m.valid {
		return math.NaN(), math.NaN()
	}
	rss := m.stats[comp].RSS
	var tss float64
	for _, v := range m.yc {
		tss += v * v
	}
	return math.Sqrt(rss / float64(m.n)), 1 - rss/tss
}
