package kpls

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Selection is the outcome of model selection over a grid of widths and
// numbers of components.
type Selection struct {
	Criterion Criterion
	// Table holds every (width, m) pair, widths in the order given and m
	// from 0 to the valid components of that width.
	Table []SelectionRow
	// Best is the winning row: for each width the first local minimum of
	// the criterion over m, then the width whose minimum is lowest.
	Best SelectionRow
	// Model is the fitted model for the best width.
	Model *Model
	// Warnings collects each width's fit warnings, prefixed by the width.
	Warnings []string
}

// SelectionRow is one cell of the grid.
type SelectionRow struct {
	Width float64 `json:"width"`
	Stats
}

// Select fits the kernel for every width once, up to opts.Components
// components, and chooses the width and number of components by the
// criterion (GMDL if empty). One n×n buffer is reused across widths.
// opts.Width and opts.Gamma must be unset; the linear kernel has a single
// "width" 0.
func Select(ctx context.Context, x mat.Matrix, y []float64, widths []float64, criterion Criterion, opts Options) (*Selection, error) {
	crit, err := ParseCriterion(string(criterion))
	if err != nil {
		return nil, err
	}
	if opts.Width != 0 || opts.Gamma != 0 {
		return nil, fmt.Errorf("%w: give the widths to Select, not in the options", ErrBadOption)
	}
	if opts.Kernel == Linear {
		widths = []float64{0}
	}
	if len(widths) == 0 {
		return nil, fmt.Errorf("%w: no widths to select from", ErrBadOption)
	}
	for _, w := range widths {
		if opts.Kernel != Linear && !(w > 0) || isNaNOrInf(w) {
			return nil, fmt.Errorf("%w: width %g", ErrWidth, w)
		}
	}
	sel := &Selection{Criterion: crit}
	var k []float64
	bestScore := math.Inf(1)
	for i, w := range widths {
		o := opts
		o.Width = w
		m, xs, err := prepare(x, y, o)
		if err != nil {
			return nil, err
		}
		if k == nil {
			if err := checkKernelSize(m.n); err != nil {
				return nil, err
			}
			k = make([]float64, m.n*m.n)
		}
		o.report("select", w, i, len(widths))
		if err := m.fit(ctx, k, xs, y); err != nil {
			return nil, fmt.Errorf("width %g: %w", w, err)
		}
		for _, wn := range m.warns {
			sel.Warnings = append(sel.Warnings, fmt.Sprintf("width %g: %s", w, wn))
		}
		for _, st := range m.stats {
			sel.Table = append(sel.Table, SelectionRow{Width: w, Stats: st})
		}
		chosen := m.Select(crit)
		if s := m.stats[chosen].Score(crit); s < bestScore || sel.Model == nil {
			bestScore = s
			sel.Best = SelectionRow{Width: w, Stats: m.stats[chosen]}
			sel.Model = m
		}
	}
	// The buffer belonged to the last width; the best model rebuilds its
	// kernel matrix if bands are asked for.
	return sel, nil
}
