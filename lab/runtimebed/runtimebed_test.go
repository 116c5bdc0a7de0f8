package runtimebed

import (
	"bytes"
	"context"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kpls-go/kpls/internal/sim"
	"github.com/kpls-go/kpls/kpls"
	"github.com/kpls-go/kpls/plots"
)

func TestExponentClosedForm(t *testing.T) {
	var ps []Point
	for _, n := range []int{100, 400, 1600} {
		ps = append(ps, Point{Backend: "go", Method: kpls.DoFApprox, N: n, Seconds: 3e-9 * math.Pow(float64(n), 2)})
	}
	if b := Exponent(ps, "go", kpls.DoFApprox, 0, 10000); math.Abs(b-2) > 1e-12 {
		t.Errorf("exponent of t = c·n² is %g", b)
	}
	if b := Exponent(ps, "go", kpls.DoFExact, 0, 10000); !math.IsNaN(b) {
		t.Errorf("exponent without points: %g", b)
	}
}

// Slopes fits over n ≥ 1000 where two sizes reach it, else over all.
func TestSlopes(t *testing.T) {
	var ps []Point
	for _, n := range []int{100, 1000, 4000} {
		// Quadratic from 1000 on, flat below: the fixed cost of small fits.
		sec := 3e-9 * math.Pow(float64(max(n, 1000)), 2)
		ps = append(ps, Point{Backend: "go", Method: kpls.DoFApprox, N: n, Seconds: sec})
	}
	ps = append(ps, Point{Backend: "go", Method: kpls.DoFExact, N: 100, Seconds: 1e-3}, Point{Backend: "go", Method: kpls.DoFExact, N: 200, Seconds: 8e-3})
	got := Slopes(ps)
	if len(got) != 2 || got[0].Method != kpls.DoFApprox || got[1].Method != kpls.DoFExact {
		t.Fatalf("slopes %+v", got)
	}
	if s := got[0]; s.NMin != 1000 || s.NMax != 4000 || math.Abs(s.Exponent-2) > 1e-12 {
		t.Errorf("approx: %+v, want n=1000..4000, exponent 2", s)
	}
	if s := got[1]; s.NMin != 100 || s.NMax != 200 || math.Abs(s.Exponent-3) > 1e-12 {
		t.Errorf("exact: %+v, want n=100..200, exponent 3", s)
	}
	series := Series(ps)
	if len(series) != 2 || len(series[0].N) != 3 || series[1].Label != "exact, go (slope 3.00)" {
		t.Errorf("series %+v", series)
	}
}

func TestRunSmall(t *testing.T) {
	u := sim.Uniform(300, 8, 1)
	x, y := u.Matrix(), u.Y
	ps, err := Run(context.Background(), x, y, Config{Sizes: []int{60, 120}, Reps: 1, Width: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 6 {
		t.Fatalf("%d points, want 2 sizes × 3 methods", len(ps))
	}
	var buf bytes.Buffer
	if err := WriteCSV(&buf, ps); err != nil || strings.Count(buf.String(), "\n") != 7 {
		t.Errorf("csv %q, %v", buf.String(), err)
	}
	path := filepath.Join(t.TempDir(), "runtime.png")
	if err := plots.RuntimeVersusN(path, Series(ps)); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := png.Decode(f); err != nil {
		t.Errorf("not a PNG: %v", err)
	}
	if err := plots.RuntimeVersusN(path, Series(nil)); err == nil {
		t.Error("empty plot accepted")
	}
}
