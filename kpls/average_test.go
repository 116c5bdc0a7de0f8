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
