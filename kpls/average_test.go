package kpls

import (
	"context"
	"errors"
	"math"
	"testing"
)

// TestSelectAverage: Selection.Mean holds the best grid point's model
// and one for every other grid point whose choice scores within the
// margin, and its Predict is the mean of the predictions of plain Fits
// at those (kernel, width, m), each to all rows, read off the table by
// hand (1e-10); a margin of 0 keeps the best alone, and the margin needs
// cross-validation.
func TestSelectAverage(t *testing.T) {
	ctx := context.Background()
	x, y := gaussData(90, 3, 21)
	z, _ := gaussData(15, 3, 22)
	so := SelectOptions{Options: Options{Seed: 4, Components: 6}, Widths: []float64{0.5, 1.5, 4, 12}, MaxComponents: 6, AverageWithin: 0.25}
	sel, err := Select(ctx, x, y, so)
	if err != nil {
		t.Fatal(err)
	}
	var want [][]float64
	for _, c := range sel.Choices {
		if c.RMSECV > 1.25*sel.Best.RMSECV {
			continue
		}
		m, err := Fit(ctx, x, y, Options{Kernel: c.Kernel, Components: max(c.M, 1), DoF: DoFNone})
		if err != nil {
			t.Fatal(err)
		}
		p, err := m.Predict(ctx, z, c.M)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, p)
	}
	if sel.Mean == nil {
		t.Fatal("no mean with a margin")
	}
	if ms := sel.Mean.Members(); len(want) < 2 || len(ms) != len(want) || ms[0] != sel.Model {
		t.Fatalf("%d models averaged, %d grid points within the margin (want at least 2, the best first)", len(ms), len(want))
	}
	got, err := sel.Mean.Predict(ctx, z)
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		var mean float64
		for _, p := range want {
			mean += p[i] / float64(len(want))
		}
		if d := math.Abs(got[i] - mean); d > 1e-10*math.Max(1, math.Abs(mean)) {
			t.Errorf("row %d: average %v, by hand %v", i, got[i], mean)
		}
	}
	so.AverageWithin = 0
	one, err := Select(ctx, x, y, so)
	if err != nil {
		t.Fatal(err)
	}
	if one.Mean != nil {
		t.Errorf("no margin: %d models averaged", len(one.Mean.Members()))
	}
	for _, bad := range []SelectOptions{
		{Options: Options{Criterion: GCV}, AverageWithin: 0.05},
		{AverageWithin: -1},
		{AverageWithin: math.NaN()},
	} {
		if _, err := Select(ctx, x, y, bad); !errors.Is(err, ErrBadOption) {
			t.Errorf("%+v: %v", bad.AverageWithin, err)
		}
	}
}

// TestSelectAverageDoF: the best of a mean of several models is fitted
// without DoF unless Options.DoF is set, and with the DoF asked for
// otherwise: its DoF at the chosen m then match the exact DoF of a plain
// Fit there (within four standard errors), as they do when no other
// grid point is within the margin. Predictions are those of a plain Fit
// either way.
func TestSelectAverageDoF(t *testing.T) {
	ctx := context.Background()
	x, y := gaussData(90, 3, 21)
	z, _ := gaussData(15, 3, 22)
	base := SelectOptions{Options: Options{Seed: 4, Components: 6}, Widths: []float64{0.5, 1.5, 4, 12}, MaxComponents: 6}
	for _, c := range []struct {
		name   string
		dof    DoFMethod
		within float64
		want   DoFMethod // the best's DoF method
	}{
		{"default, several members", "", 0.25, DoFNone},
		{"approx asked, several members", DoFApprox, 0.25, DoFApprox},
		{"default, the best alone", "", 1e-12, DoFApprox},
	} {
		so := base
		so.DoF, so.AverageWithin = c.dof, c.within
		sel, err := Select(ctx, x, y, so)
		if err != nil {
			t.Fatal(err)
		}
		members := len(sel.Mean.Members())
		if (c.within > 0.1) != (members > 1) {
			t.Fatalf("%s: %d members", c.name, members)
		}
		b := sel.Best
		if got := sel.Model.Options().DoF; got != c.want {
			t.Errorf("%s: the best is fitted with DoF %q, want %q", c.name, got, c.want)
		}
		exact, err := Fit(ctx, x, y, Options{Kernel: b.Kernel, Components: max(b.M, 1), DoF: DoFExact})
		if err != nil {
			t.Fatal(err)
		}
		st := exact.Stats()[b.M]
		switch {
		case c.want == DoFNone && b.DoF != float64(b.M+1):
			t.Errorf("%s: the best's DoF %v, want the naive m + 1 = %d of DoFNone", c.name, b.DoF, b.M+1)
		case c.want == DoFNone && !math.IsNaN(sel.Mean.Stats().DoF):
			t.Errorf("%s: the mean's DoF %v, want NaN (its members' are not computed)", c.name, sel.Mean.Stats().DoF)
		case c.want != DoFNone && !(math.Abs(b.DoF-st.DoF) <= 4*b.DoFSE+1e-9):
			t.Errorf("%s: the best's DoF %v ± %v, exact %v", c.name, b.DoF, b.DoFSE, st.DoF)
		}
		got, err := sel.Model.Predict(ctx, z, b.M)
		if err != nil {
			t.Fatal(err)
		}
		want, err := exact.Predict(ctx, z, b.M)
		if err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if d := math.Abs(got[i] - want[i]); d > 1e-9*math.Max(1, math.Abs(want[i])) {
				t.Errorf("%s: row %d predicts %v, a plain fit %v", c.name, i, got[i], want[i])
			}
		}
	}
}
