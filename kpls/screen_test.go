package kpls

import (
	"context"
	"slices"
	"testing"
)

// TestScreenAgainstTheFullSearch: a search screened on 150 of 600 rows
// scores the points it keeps exactly as the full search does (the same
// folds, on all rows), so where the full search's best is clearly ahead
// both choose it; and the points it drops score worse in the full search
// than the best by more than the averaging margin.
func TestScreenAgainstTheFullSearch(t *testing.T) {
	ctx := context.Background()
	x, y := gaussData(600, 3, 7)
	grid := SelectOptions{Kernels: []Kernel{RBF{}, Laplacian{}, Linear{}}, Widths: []float64{0.25, 1, 4, 16}}
	full := grid
	full.ScreenRows = -1
	all, err := Select(ctx, Data{X: x, Y: vec(y)}, full, nil)
	if err != nil {
		t.Fatal(err)
	}
	if all.Screen != nil {
		t.Fatalf("ScreenRows −1 screened: %+v", all.Screen)
	}
	screened := grid
	screened.ScreenRows = 150
	sel, err := Select(ctx, Data{X: x, Y: vec(y)}, screened, nil)
	if err != nil {
		t.Fatal(err)
	}
	sc := sel.Screen
	if sc == nil || sc.Rows != 150 || sc.Passes == 0 || len(sc.Kept) == 0 || len(sc.Dropped) == 0 {
		t.Fatalf("screen %+v, want 150 rows, passes and points both kept and dropped", sc)
	}
	if len(sc.Kept)+len(sc.Dropped) != len(all.Choices) {
		t.Errorf("kept %d + dropped %d points, the full search scored %d", len(sc.Kept), len(sc.Dropped), len(all.Choices))
	}
	rowsOf := func(s *Selection, k Kernel) []SelectionRow {
		var out []SelectionRow
		for _, r := range s.Table {
			if kernelLabel(r.Kernel) == kernelLabel(k) {
				out = append(out, r)
			}
		}
		return out
	}
	for _, k := range sc.Kept {
		a, b := rowsOf(all, k), rowsOf(sel, k)
		if len(a) == 0 || !slices.EqualFunc(a, b, func(p, q SelectionRow) bool { return p.M == q.M && p.RMSECV == q.RMSECV }) {
			t.Errorf("%s: screened rows %d, full search's %d, or their RMSECV differ", kernelLabel(k), len(b), len(a))
		}
	}
	if kernelLabel(sel.Best.Kernel) != kernelLabel(all.Best.Kernel) || sel.Best.M != all.Best.M || sel.Best.RMSECV != all.Best.RMSECV {
		t.Errorf("screened best %s m = %d (%g), full search's %s m = %d (%g)", kernelLabel(sel.Best.Kernel), sel.Best.M, sel.Best.RMSECV, kernelLabel(all.Best.Kernel), all.Best.M, all.Best.RMSECV)
	}
	for _, k := range sc.Dropped {
		for _, c := range all.Choices {
			if kernelLabel(c.Kernel) == kernelLabel(k) && !(c.RMSECV > (1+DefaultAverageWithin)*all.Best.RMSECV) {
				t.Errorf("dropped %s: RMSECV %g in the full search, within %g of the best %g", kernelLabel(k), c.RMSECV, DefaultAverageWithin, all.Best.RMSECV)
			}
		}
	}
}

// TestScreenWhen: by default a search screens from screenFrom rows on,
// never with weights, and a ScreenRows of n or more searches every point.
func TestScreenWhen(t *testing.T) {
	for _, c := range []struct {
		so      selectConfig
		n, want int
	}{
		{selectConfig{}, screenFrom - 1, 0},
		{selectConfig{}, screenFrom, screenMinRows},
		{selectConfig{}, 8 * 4000, 4000},
		{selectConfig{ScreenRows: 500}, 1000, 500},
		{selectConfig{ScreenRows: 1000}, 1000, 0},
		{selectConfig{ScreenRows: -1}, 50000, 0},
		{selectConfig{config: config{Weights: make([]float64, 50000)}}, 50000, 0},
		{selectConfig{Kernels: []Kernel{Precomputed{}}}, 50000, 0},
	} {
		if got := c.so.screenRows(c.n); got != c.want {
			t.Errorf("%+v at n = %d: %d rows, want %d", c.so, c.n, got, c.want)
		}
	}
}
