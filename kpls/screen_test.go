package kpls

import (
	"cmp"
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestScreenAgainstTheFullSearch: a search screened on 150 of 600 rows
// scores the points it keeps exactly as the full search does (the same
// folds, on all rows), so where the full search's best is clearly ahead
// both choose it; and the points it drops score worse in the full search
// than the best by more than the averaging margin.
func TestScreenAgainstTheFullSearch(t *testing.T) {
	ctx := context.Background()
	x, y := gaussData(600, 3, 7)
	grid := SelectOptions{Isotropic: true, Kernels: []Kernel{RBF{}, Laplacian{}, Linear{}}, Widths: []float64{0.25, 1, 4, 16}}
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
	raced := map[string]bool{}
	for _, c := range sel.Choices {
		raced[kernelLabel(c.Kernel)] = c.Raced
	}
	for _, k := range sc.Kept {
		a, b := rowsOf(all, k), rowsOf(sel, k)
		if raced[kernelLabel(k)] && len(b) < len(a) {
			a = a[:len(b)] // the race stopped it (TestRaceAgainstTheFullSearch)
		}
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
// with cross-validation only, never with weights or a precomputed kernel
// matrix, and a ScreenRows of n or more searches every point; a sample
// asked for that cannot be honoured is an error.
func TestScreenWhen(t *testing.T) {
	cv := func(n int) *selector { return &selector{n: n, by: cvScorer{folds: 5, repeats: 1}, folds: 5} }
	gcv := &selector{n: 50000, by: criterionScorer{GCV}}
	weighted := selectConfig{config: config{Weights: make([]float64, 50000)}}
	gram := selectConfig{Kernels: []Kernel{Precomputed{}}}
	for _, c := range []struct {
		so      selectConfig
		s       *selector
		want    int
		wantErr bool
	}{
		{selectConfig{}, cv(screenFrom - 1), 0, false},
		{selectConfig{}, cv(screenFrom), screenMinRows, false},
		{selectConfig{}, cv(8 * 4000), 4000, false},
		{selectConfig{ScreenRows: 500}, cv(1000), 500, false},
		{selectConfig{ScreenRows: 1000}, cv(1000), 0, false},
		{selectConfig{ScreenRows: -1}, cv(50000), 0, false},
		{selectConfig{ScreenRows: 9}, cv(1000), 0, true},
		{selectConfig{}, gcv, 0, false},
		{selectConfig{ScreenRows: 500}, gcv, 0, true},
		{weighted, cv(50000), 0, false},
		{gram, cv(50000), 0, false},
	} {
		got, err := c.so.screenRows(c.s)
		if got != c.want || (err != nil) != c.wantErr {
			t.Errorf("ScreenRows %d, %s at n = %d: %d rows, error %v; want %d rows, an error %v", c.so.ScreenRows, c.s.by.criterion(), c.s.n, got, err, c.want, c.wantErr)
		}
	}
}

// TestScreenGMDL: a DoF criterion is not screened by default (its scores
// are not errors a margin applies to, and GMDL's may be negative), and
// the kernels and widths given are the ones searched.
func TestScreenGMDL(t *testing.T) {
	x, y := gaussData(300, 2, 11)
	so := SelectOptions{Kernels: []Kernel{RBF{}}, Widths: []float64{1, 2, 4}, By: GMDL}
	sel, err := Select(context.Background(), Data{X: x, Y: vec(y)}, so, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sel.Screen != nil || len(sel.Choices) != 3 {
		t.Errorf("screen %+v, %d points scored, want no screen and the 3 widths given", sel.Screen, len(sel.Choices))
	}
	so.ScreenRows = 100
	if _, err := Select(context.Background(), Data{X: x, Y: vec(y)}, so, nil); !errors.Is(err, ErrBadOption) || !strings.Contains(err.Error(), "ScreenRows") {
		t.Errorf("ScreenRows with GMDL: %v, want ErrBadOption naming ScreenRows", err)
	}
}

// TestScreenFallsBack: a sample the search cannot run on (a target that
// is zero but on 3 of 600 rows, constant on a sample of 150) leaves the
// full search, as with no screen, and a warning that says so.
func TestScreenFallsBack(t *testing.T) {
	x, _ := gaussData(600, 2, 12)
	y := make([]float64, 600)
	y[0], y[300], y[599] = 1, 2, 3
	so := SelectOptions{Kernels: []Kernel{RBF{}, Linear{}}, Widths: []float64{1, 4}, ScreenRows: 150}
	sel, err := Select(context.Background(), Data{X: x, Y: vec(y)}, so, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sel.Screen != nil || len(sel.Choices) != 3 {
		t.Errorf("screen %+v with %d points, want the full search of 3", sel.Screen, len(sel.Choices))
	}
	if !slices.ContainsFunc(sel.Warnings, func(w Warning) bool { return w.Code == WarnScreen }) {
		t.Errorf("warnings %v, want one saying the sample could not be searched", sel.Warnings)
	}
}

// TestScreenTargets: two targets screened together (their own choosers,
// then one shared kernel) keep the union of their points, and each
// target's rows at a kept point are the full search's for it.
func TestScreenTargets(t *testing.T) {
	ctx := context.Background()
	x, y1 := gaussData(240, 2, 21)
	_, y2 := sincLike(x)
	y := mat.NewDense(240, 2, nil)
	y.SetCol(0, y1)
	y.SetCol(1, y2)
	for _, shared := range []bool{false, true} {
		grid := SelectOptions{Kernels: []Kernel{RBF{}, Laplacian{}, Linear{}}, Widths: []float64{0.5, 4}, MaxComponents: 30, By: CrossValidation{SharedKernel: shared}}
		full := grid
		full.ScreenRows = -1
		all, err := SelectTargets(ctx, Data{X: x, Y: y}, full, nil)
		if err != nil {
			t.Fatal(err)
		}
		grid.ScreenRows = 80
		sels, err := SelectTargets(ctx, Data{X: x, Y: y}, grid, nil)
		if err != nil {
			t.Fatal(err)
		}
		sc := sels[0].Screen
		if sc == nil || sels[1].Screen != sc || len(sc.Kept) == 0 {
			t.Fatalf("shared %v: screens %+v, %+v, want one record with kept points", shared, sels[0].Screen, sels[1].Screen)
		}
		for ti := range sels {
			for _, k := range sc.Kept {
				var a, b []SelectionRow
				for _, r := range all[ti].Table {
					if kernelLabel(r.Kernel) == kernelLabel(k) {
						a = append(a, r)
					}
				}
				for _, r := range sels[ti].Table {
					if kernelLabel(r.Kernel) == kernelLabel(k) {
						b = append(b, r)
					}
				}
				if len(a) == 0 || !slices.EqualFunc(a, b, func(p, q SelectionRow) bool { return p.M == q.M && p.RMSECV == q.RMSECV }) {
					t.Errorf("shared %v, target %d, %s: screened rows %d, full search's %d, or their RMSECV differ", shared, ti, kernelLabel(k), len(b), len(a))
				}
			}
		}
	}
}

// sincLike is a second target on x's first column: sin(3x)/(3x).
func sincLike(x *mat.Dense) (*mat.Dense, []float64) {
	n, _ := x.Dims()
	y := make([]float64, n)
	for i := range y {
		v := 3*x.At(i, 0) + 1e-9
		y[i] = math.Sin(v) / v
	}
	return x, y
}

// TestRaceAgainstTheFullSearch: a raced search (the second round's, its
// margin set here directly) chooses what the exhaustive search chooses
// on grids whose margins are wide; every point it did not stop has the
// exhaustive search's rows, a point it stopped has a prefix of them and
// is behind the best there by more than the margin; and it makes fewer
// passes where it stops one. The first grid has the best point first, as
// the screen orders them, and two points clearly behind. The second has
// a slow starter after a worse lead: RBF width 8, 63 % behind RBF width 2
// at four components and 17 % ahead at its choice, which a race on the
// gap alone stopped.
func TestRaceAgainstTheFullSearch(t *testing.T) {
	ctx := context.Background()
	x, y := gaussData(600, 3, 7)
	const margin = 0.15
	for _, tc := range []struct {
		kernels []Kernel
		stops   bool
	}{
		{[]Kernel{RBF{Width: 8}, RBF{Width: 0.1}, RBF{Width: 2}, RBF{Width: 64}}, true},
		{[]Kernel{RBF{Width: 2}, RBF{Width: 64}, RBF{Width: 8}}, false},
	} {
		so := (&SelectOptions{Isotropic: true, Kernels: tc.kernels, Components: 4, ScreenRows: -1}).config(&Data{}, nil)
		search := func(race float64) *Selection {
			so.race = race
			sels, err := selectTargets(ctx, x, [][]float64{y}, so)
			if err != nil {
				t.Fatal(err)
			}
			return sels[0]
		}
		full, raced := search(0), search(margin)
		if full.RaceMargin != 0 || raced.RaceMargin != margin {
			t.Fatalf("race margins %g and %g, want 0 and %g", full.RaceMargin, raced.RaceMargin, margin)
		}
		if raced.Best.label() != full.Best.label() || raced.Best.M != full.Best.M || raced.Best.RMSECV != full.Best.RMSECV {
			t.Fatalf("raced best %s m = %d (%g), exhaustive %s m = %d (%g)", raced.Best.label(), raced.Best.M, raced.Best.RMSECV, full.Best.label(), full.Best.M, full.Best.RMSECV)
		}
		rowsOf := func(s *Selection, label string) []SelectionRow {
			var out []SelectionRow
			for _, r := range s.Table {
				if r.label() == label {
					out = append(out, r)
				}
			}
			return out
		}
		stopped := 0
		for i, c := range raced.Choices {
			a, b := rowsOf(full, c.label()), rowsOf(raced, c.label())
			same := func(p, q SelectionRow) bool { return p.M == q.M && p.RMSECV == q.RMSECV }
			if !c.Raced {
				if !slices.EqualFunc(a, b, same) || c.M != full.Choices[i].M {
					t.Errorf("%s: not stopped, but its rows (%d) or choice differ from the exhaustive search's (%d)", c.label(), len(b), len(a))
				}
				continue
			}
			stopped++
			if len(b) >= len(a) || !slices.EqualFunc(a[:len(b)], b, same) {
				t.Errorf("%s: stopped with %d rows, not a prefix of the exhaustive search's %d", c.label(), len(b), len(a))
			}
			lead := rowsOf(full, full.Best.label())
			least := func(rs []SelectionRow) float64 {
				return slices.MinFunc(rs, func(p, q SelectionRow) int { return cmp.Compare(p.RMSECV, q.RMSECV) }).RMSECV
			}
			if behind := least(b) / least(lead[:min(len(b), len(lead))]); !(behind > 1+margin) {
				t.Errorf("%s: stopped %.3f times the best's RMSECV over the same m, within the margin", c.label(), behind)
			}
			t.Logf("%s stopped at m = %d of %d: RMSECV %.4f there; exhaustive choice %.4f, best %.4f", c.label(), len(b)-1, len(a)-1, c.RMSECV, full.Choices[i].RMSECV, full.Best.RMSECV)
		}
		if tc.stops && (stopped == 0 || !(raced.Passes < full.Passes)) {
			t.Errorf("the race stopped %d points, passes %d against %d exhaustive", stopped, raced.Passes, full.Passes)
		}
	}
}
