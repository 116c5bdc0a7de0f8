package kpls

import (
	"context"
	"encoding/json"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Defaults of SelectOptions.
const (
	// DefaultCriterion is how Select chooses when SelectOptions.Criterion
	// is empty: measured on held-out data (README, "Choosing a model"),
	// k-fold cross-validation came closest to cross-validated kernel ridge.
	DefaultCriterion = CV
	// DefaultFolds is the number of cross-validation folds.
	DefaultFolds = 5
	// DefaultMaxPasses is the search's budget when SelectOptions.MaxPasses
	// is zero: passes over the kernel matrix (a build, or one product with
	// a block of vectors). The default select on kin8nm makes about 450.
	DefaultMaxPasses = 3000
	// widthGain is the relative improvement of the best score below which
	// an extension of the widths past the edge is not followed by
	// another: the score is flat there. (A threshold of one standard
	// error of RMSECV over the folds stopped slow, steady slopes too
	// early: 2.5 % worse held-out on a panel split; docs/scale.md.)
	widthGain = 1e-3
)

// behind is how many components past a cross-validation choice the
// search fits before it takes the minimum as clearly behind: RMSECV is
// noisy, and a minimum with only a few larger m fitted after it is often
// not the minimum.
func behind(choice int) int { return max(3, (choice+3)/4) }

// SelectOptions configure Select. The zero value searches the RBF widths
// d/8, d/4, d/2, d and 2d (d features) and the linear kernel by 5-fold
// cross-validation. It extends the components (doubling them) while a
// choice is not clearly behind the largest m fitted, and the widths by
// factors of 2 while the best sits at the narrowest or widest and
// improves there, with no fixed count of either: what bounds them is
// what the data allow and a budget of passes over the kernel matrix
// (MaxPasses), which the Selection reports.
type SelectOptions struct {
	// Options are the settings every fit of the search shares, with
	// three read as Select's own: Criterion chooses (empty means
	// DefaultCriterion; CV is k-fold cross-validation, GCV, AIC, BIC and
	// GMDL use the DoF of Options.DoF and need no refits), Seed seeds
	// the folds' random assignment as well as the DoF probes, and
	// Components is where the search starts. Kernel, if set, is the one
	// kernel searched, as Kernels: {Kernel}; setting both is an error.
	Options
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
	// Folds is the number of cross-validation folds (2..n); zero means
	// DefaultFolds.
	Folds int
	// MaxComponents bounds the components the search extends to; zero
	// means what the data allow.
	MaxComponents int
	// MaxPasses is the search's budget of passes over the kernel matrix:
	// a build, or one product with a block of vectors, counts one (the
	// cost per pass is about the same whatever the block's width up to a
	// few vectors). Past it the search extends neither widths nor
	// components, and warns (WarnBudget). Zero means DefaultMaxPasses.
	MaxPasses int
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
	// Passes is how many passes over a kernel matrix the search made
	// (see SelectOptions.MaxPasses), the final fit's included.
	Passes int
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
// buffer is reused across the grid.
func Select(ctx context.Context, x mat.Matrix, y []float64, so SelectOptions) (*Selection, error) {
	s, grid, scanned, err := newSelector(ctx, x, y, so)
	if err != nil {
		return nil, err
	}
	sel, err := s.search(grid, scanned)
	if err != nil {
		return nil, err
	}
	m, err := s.final(s.best, sel.Best.M, s.fitted[s.best.id], s.bestModel)
	if err != nil {
		return nil, err
	}
	sel.Model, sel.Passes = m, s.passes
	if s.crit == CV {
		fullStats(sel, m)
	}
	for _, w := range m.warns {
		sel.Warnings = append(sel.Warnings, w.prefixed(sel.Best.label()+" (chosen model)"))
	}
	return sel, nil
}

// newSelector checks Select's options against the data and sets up the
// search with its grid.
func newSelector(ctx context.Context, x mat.Matrix, y []float64, so SelectOptions) (*selector, []gridPoint, map[string]bool, error) {
	opts := so.Options
	crit, err := ParseCriterion(string(so.Criterion))
	if err != nil {
		return nil, nil, nil, err
	}
	if so.Criterion == "" {
		crit = DefaultCriterion
	}
	if opts.Kernel != nil {
		if so.Kernels != nil {
			return nil, nil, nil, fmt.Errorf("%w: both Kernel and Kernels are set: give the kernels to search in one of them", ErrBadOption)
		}
		so.Kernels = []Kernel{opts.Kernel}
	}
	xs, n, d, err := denseRows(x, "x")
	if err != nil {
		return nil, nil, nil, err
	}
	grid, scanned, err := so.grid(n, d)
	if err != nil {
		return nil, nil, nil, err
	}
	folds := so.Folds
	if folds == 0 {
		folds = DefaultFolds
	}
	if crit == CV && (folds < 2 || folds > n) {
		return nil, nil, nil, fmt.Errorf("%w: %d folds for %d rows", ErrBadOption, folds, n)
	}
	maxComp := so.MaxComponents
	if maxComp < 0 {
		return nil, nil, nil, fmt.Errorf("%w: %d maximum components", ErrComponents, maxComp)
	}
	if maxComp == 0 {
		maxComp = math.MaxInt // what the data allow (limit)
	}
	budget := so.MaxPasses
	if budget < 0 {
		return nil, nil, nil, fmt.Errorf("%w: a budget of %d passes", ErrBadOption, budget)
	}
	if budget == 0 {
		budget = DefaultMaxPasses
	}
	start := opts.Components
	if start == 0 {
		start = DefaultComponents
	}
	if start < 0 {
		return nil, nil, nil, fmt.Errorf("%w: %d components", ErrComponents, start)
	}
	s := &selector{ctx: ctx, x: mat.NewDense(n, d, xs), y: y, n: n, d: d, crit: crit, folds: folds, seed: opts.Seed,
		start: start, maxComp: max(maxComp, start), budget: budget, opts: opts, fitted: map[int]int{}}
	return s, grid, scanned, nil
}

// search scores every grid point, extending the default widths past the
// edge the best one sits at, and records the best in s.
func (s *selector) search(grid []gridPoint, scanned map[string]bool) (*Selection, error) {
	sel := &Selection{Criterion: s.crit}
	bestScore := math.Inf(1)
	// With the default widths, a winner at the narrowest or widest one
	// extends the grid of its kernel by a factor of 2 that way, until the
	// best is inside, the score is flat at the edge, or the budget is
	// spent.
	first, why := len(grid), ""
	for gi := 0; gi < len(grid); gi++ {
		g := grid[gi]
		s.opts.report(StageSelect, g.width(), gi, len(grid))
		rows, choice, warns, err := s.point(g)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", kernelLabel(g.kernel), err)
		}
		sel.Table = append(sel.Table, rows...)
		sel.Warnings = append(sel.Warnings, warns...)
		s.fitted[g.id] = len(rows) - 1
		before := bestScore
		if choice >= 0 {
			c := rows[choice]
			sel.Choices = append(sel.Choices, c)
			if sc := c.Score(s.crit); sc < bestScore {
				bestScore, s.best, sel.Best = sc, g, c
				if s.crit != CV {
					// The fit to all rows at g is complete; later grid
					// points reuse only the kernel buffer, not the model.
					s.bestModel = s.model
				}
			}
		}
		if gi < len(grid)-1 || len(scanned) == 0 || !scanned[s.best.kernel.Name()] {
			continue
		}
		w, ok := widerGrid(grid, s.best)
		switch {
		case !ok:
		case gi >= first && s.best.id == g.id && !(bestScore < before-widthGain*math.Abs(before)):
			why = fmt.Sprintf("the %s score improves by less than %.1g relative there", s.crit, widthGain)
		case s.passes >= s.budget:
			why = s.budgetSpent()
		default:
			grid = append(grid, gridPoint{WithWidth(s.best.kernel, w), len(grid)})
		}
	}
	if why != "" {
		sel.Warnings = append(sel.Warnings, warnf(WarnWidthAtEdge, "the best %s width %g is at the edge of the grid after %d extensions: %s", s.best.kernel.Name(), s.best.width(), len(grid)-first, why))
	}
	if math.IsInf(bestScore, 1) {
		return nil, fmt.Errorf("%w: no grid point has a usable %s score", ErrBreakdown, s.crit)
	}
	return sel, nil
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
	best := kernelLabel(sel.Best.Kernel)
	for i := range sel.Table {
		r := &sel.Table[i]
		if kernelLabel(r.Kernel) == best && r.M <= m.valid {
			r.Stats = m.stats[r.M]
		}
	}
	sel.Best.Stats = m.stats[sel.Best.M]
	for i := range sel.Choices {
		if c := &sel.Choices[i]; kernelLabel(c.Kernel) == best {
			c.Stats = sel.Best.Stats
		}
	}
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
