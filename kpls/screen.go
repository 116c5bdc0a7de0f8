package kpls

import (
	"context"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"
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
	// sample's best score (relative). Each kernel's best stays because
	// stacking gains from different kernels (kin8nm: the three best,
	// all RBF, were 1.6 % worse held out than the full search; with the
	// best Laplacian for the third, level). docs/scale.md, "Screening
	// the grid on a sample".
	screenKeep   = 2
	screenMargin = 0.15
)

// screenRows is the sample the search screens its grid on for n rows,
// zero for none: not with weights, a precomputed kernel matrix or MPI
// (the rows are spread over the ranks), nor where it would keep the
// whole grid.
func (so *selectConfig) screenRows(n int) int {
	if so.ScreenRows < 0 || so.Weights != nil || so.Comm != nil {
		return 0
	}
	for _, k := range so.Kernels {
		if b := behaviourOf(k); b == nil || b.inputs() == inputGram {
			return 0
		}
	}
	rows := so.ScreenRows
	if rows == 0 {
		if n < screenFrom {
			return 0
		}
		rows = max(screenMinRows, n/screenFraction)
	}
	if rows >= n {
		return 0
	}
	return rows
}

// screen runs the first round of s's search: the search on a seeded
// sample of its rows, without averaging or final fits. It returns the
// configuration of the second round (the kept points as the grid) and
// what it did, or so itself and nil when the search does not screen.
func screen(ctx context.Context, s0 *selector, so selectConfig) (selectConfig, *Screen, error) {
	n, d := s0.n, s0.d
	rows := so.screenRows(n)
	if rows == 0 {
		return so, nil, nil
	}
	sample := rand.New(rand.NewPCG(so.Seed, 0x5c7ee2)).Perm(n)[:rows]
	slices.Sort(sample)
	xs := mat.NewDense(rows, d, nil)
	yss := make([][]float64, len(s0.ys))
	for t := range yss {
		yss[t] = make([]float64, rows)
	}
	for i, r := range sample {
		xs.SetRow(i, s0.x.RawRowView(r))
		for t, y := range s0.ys {
			yss[t][i] = y[r]
		}
	}
	first := so
	first.AverageWithin, first.AverageBy = 0, AverageNone
	first.Progress = nil
	s, scanned, err := newSelector(ctx, xs, yss, first)
	if err != nil {
		return so, nil, err
	}
	if err := s.search(scanned); err != nil {
		return so, nil, err
	}
	keep := map[int]bool{}
	for _, c := range s.choosers {
		for _, p := range s.kept(c) {
			keep[p] = true
		}
	}
	if len(keep) == len(s.points) {
		return so, nil, nil
	}
	sc := &Screen{Rows: rows, Passes: s.passes}
	var kernels []Kernel
	for p, g := range s.points {
		if !s.scored(p) {
			continue
		}
		if keep[p] {
			kernels = append(kernels, g.kernel)
			sc.Kept = append(sc.Kept, g.kernel)
		} else {
			sc.Dropped = append(sc.Dropped, g.kernel)
		}
	}
	second := so
	second.Kernels, second.Widths = kernels, nil
	return second, sc, nil
}

// kept are the points of chooser c the second round searches, of those
// within screenMargin of its best score: its best screenKeep, and the
// best of every other kernel.
func (s *selector) kept(c *chooser) []int {
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
	slices.SortStableFunc(ps, func(a, b scored) int {
		switch {
		case a.score < b.score:
			return -1
		case a.score > b.score:
			return 1
		}
		return 0
	})
	var out []int
	families := map[string]bool{}
	for i, q := range ps {
		if q.score > (1+screenMargin)*ps[0].score {
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
