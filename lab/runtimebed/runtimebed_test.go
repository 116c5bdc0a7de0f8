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

	"github.com/kpls-go/kpls/kpls"
	"github.com/kpls-go/kpls/lab/sim"
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
	if err := Plot(path, ps); err != nil {
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
	if err := Plot(path, nil); err == nil {
		t.Error("empty plot accepted")
	}
}
