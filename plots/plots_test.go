package plots

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/kpls"
)

// checkPNG checks that path holds a PNG of the expected pixel size.
func checkPNG(t *testing.T, path string, wantW, wantH int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() == 0 {
		t.Fatalf("%s is empty", path)
	}
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	b := img.Bounds()
	if wantW > 0 && b.Dx() != wantW || wantH > 0 && b.Dy() != wantH {
		t.Errorf("%s is %d×%d pixels, want %d×%d", path, b.Dx(), b.Dy(), wantW, wantH)
	}
}

// checkSVG checks that path holds an SVG document.
func checkSVG(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b[:min(len(b), 512)]), "<svg") {
		t.Errorf("%s does not look like SVG", path)
	}
	d := xml.NewDecoder(bytes.NewReader(b))
	for {
		_, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s is not well-formed XML: %v", path, err)
		}
	}
}

// px is the pixel count of l inches at DPI.
func px(inches float64) int { return int(inches*DPI + 0.5) }

// sincFit fits the paper's sinc simulation (small n, for speed).
func sincFit(t *testing.T, width float64, method kpls.DoFMethod) (*kpls.Model, []float64, []float64) {
	t.Helper()
	x := make([]float64, 60)
	y := make([]float64, 60)
	for i := range x {
		x[i] = -math.Pi + 2*math.Pi*float64(i)/59 + 0.01
		y[i] = math.Sin(x[i])/x[i] + 0.1*math.Sin(17*float64(i))
	}
	m, err := kpls.Fit(context.Background(), kpls.Data{X: mat.NewDense(len(x), 1, append([]float64(nil), x...)), Y: mat.NewVecDense(len(y), y)}, kpls.Options{Kernel: kpls.RBF{Width: width}, Components: 12, DoF: method, RawFeatures: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return m, x, y
}

func TestDoFVersusM(t *testing.T) {
	dir := t.TempDir()
	var panels []DoFPanel
	for _, w := range []float64{0.1, 1} {
		ex, _, _ := sincFit(t, w, kpls.DoFExact)
		lz, _, _ := sincFit(t, w, kpls.DoFLanczos)
		panels = append(panels, DoFPanel{Width: w, Series: []Series{{"exact", ex.Stats()}, {"lanczos", lz.Stats()}}})
	}
	p := filepath.Join(dir, "dof.png")
	if err := DoFVersusM(p, panels); err != nil {
		t.Fatal(err)
	}
	checkPNG(t, p, 0, 0)
	p2 := filepath.Join(dir, "dof2.png")
	if err := DoFAndCriterionVersusM(p2, "gmdl", panels); err != nil {
		t.Fatal(err)
	}
	checkPNG(t, p2, 0, 0)
	s := filepath.Join(dir, "dof.svg")
	if err := DoFVersusM(s, panels); err != nil {
		t.Fatal(err)
	}
	checkSVG(t, s)
}

func TestDoFVersusMGaps(t *testing.T) {
	// NaN DoF (unreliable) must become gaps; an all-NaN series must not
	// break the plot.
	st := []kpls.Stats{{M: 0, DoF: 1}, {M: 1, DoF: 2.5}, {M: 2, DoF: math.NaN()}, {M: 3, DoF: 4.2}}
	nan := []kpls.Stats{{M: 0, DoF: math.NaN()}, {M: 1, DoF: math.NaN()}}
	p := filepath.Join(t.TempDir(), "gaps.png")
	if err := DoFVersusM(p, []DoFPanel{{Width: 1, Series: []Series{{"a", st}, {"b", nan}}}, {Title: "only NaN", Series: []Series{{"b", nan}}}}); err != nil {
		t.Fatal(err)
	}
	checkPNG(t, p, 0, 0)
}

// selection selects over four widths (and, with linear, the linear
// kernel) by criterion c.
func selection(t *testing.T, c kpls.Criterion, linear bool) *kpls.Selection {
	t.Helper()
	x := make([]float64, 80)
	y := make([]float64, 80)
	for i := range x {
		x[i] = -3 + 6*float64(i)/79
		y[i] = (x[i]-1)*(x[i]+2)*(x[i]-1.5)*math.Exp(-x[i]*x[i]/10) + 0.3*math.Cos(11*float64(i))
	}
	kernels := []kpls.Kernel{kpls.RBF{}}
	if linear {
		kernels = append(kernels, kpls.Linear{})
	}
	sel, err := kpls.Select(context.Background(), kpls.Data{X: mat.NewDense(len(x), 1, x), Y: mat.NewVecDense(len(y), y)}, kpls.SelectOptions{Components: 12, DoF: kpls.DoFLanczos, RawFeatures: true, Kernels: kernels, Widths: []float64{0.05, 0.3, 1, 3}, MaxComponents: 12, By: c}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return sel
}

func TestCriterionPlots(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		crit   kpls.Criterion
		linear bool
	}{{kpls.GMDL, false}, {kpls.AIC, false}, {kpls.BIC, true}, {kpls.CV, true}} {
		sel := selection(t, c.crit, c.linear)
		p := filepath.Join(dir, string(c.crit)+"_lines.png")
		if err := CriterionVersusM(p, sel); err != nil {
			t.Fatal(err)
		}
		checkPNG(t, p, px(7.5), px(4.5))
		h := filepath.Join(dir, string(c.crit)+"_heat.png")
		if err := CriterionHeatmap(h, sel); err != nil {
			t.Fatal(err)
		}
		checkPNG(t, h, px(7), 0)
	}
	s := filepath.Join(dir, "heat.svg")
	if err := CriterionHeatmap(s, selection(t, kpls.GMDL, false)); err != nil {
		t.Fatal(err)
	}
	checkSVG(t, s)
}

// The marks are kpls.Select's choices: every grid point's ring sits on
// its Selection.Choices row and the cross on Selection.Best, also when
// a choice is not the criterion's first local minimum (plots computes
// none of its own).
func TestMarksAreTheSelections(t *testing.T) {
	sel := selection(t, kpls.BIC, true)
	crit, groups, best, err := groupRows(sel)
	if err != nil {
		t.Fatal(err)
	}
	if crit != kpls.BIC || len(groups) != 5 || groups[4].label() != "linear" {
		t.Fatalf("criterion %s, %d groups", crit, len(groups))
	}
	marked := 0
	for _, c := range sel.Choices {
		for _, g := range groups {
			if g.kernel == c.Kernel.Name() && g.width == c.Width() {
				if g.chosen < 0 || g.rows[g.chosen].M != c.M {
					t.Errorf("%s: ring at %d, Select chose m = %d", g.label(), g.chosen, c.M)
				}
				marked++
			}
		}
	}
	if marked == 0 || marked != len(sel.Choices) {
		t.Fatalf("%d of %d choices marked", marked, len(sel.Choices))
	}
	if b := groups[best]; best < 0 || b.kernel != sel.Best.Kernel.Name() || b.width != sel.Best.Width() || b.rows[b.chosen].M != sel.Best.M {
		t.Errorf("cross at group %d, Select's best is %s %g m = %d", best, sel.Best.Kernel.Name(), sel.Best.Width(), sel.Best.M)
	}
	// A choice moved by hand moves the ring: the choice is read, not
	// recomputed.
	moved := *sel
	moved.Choices = append([]kpls.SelectionRow(nil), sel.Choices...)
	moved.Choices[0] = sel.Table[0] // m = 0 of the first grid point
	if _, groups, _, err := groupRows(&moved); err != nil || groups[0].chosen != 0 {
		t.Errorf("moved choice: ring at %d, %v", groups[0].chosen, err)
	}
}

func TestBand1D(t *testing.T) {
	m, x, y := sincFit(t, 0.5, kpls.DoFExact)
	grid := linspace(-4, 4, 101)
	m5, err := m.At(5)
	if err != nil {
		t.Fatal(err)
	}
	bands, err := m5.Predict(context.Background(), mat.NewDense(len(grid), 1, grid), kpls.PredictOptions{Uncertainty: kpls.ConfidenceBand, Level: 0.98})
	if err != nil {
		t.Fatal(err)
	}
	if got := bandLabel(bands); got != "98 % confidence band" {
		t.Errorf("band label %q", got)
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "band.png")
	truth := func(v float64) float64 { return math.Sin(v) / v }
	if err := Band1D(p, x, y, grid, bands, truth, "sinc"); err != nil {
		t.Fatal(err)
	}
	checkPNG(t, p, px(6), 0)
	// Unsorted grid, a NaN band in the middle and no truth.
	rev := make([]float64, len(grid))
	rb := newBand(len(grid))
	for i := range grid {
		j := len(grid) - 1 - i
		rev[i] = grid[j]
		rb.Yhat[i], rb.SE[i], rb.Lower[i], rb.Upper[i] = bands.Yhat[j], bands.SE[j], bands.Lower[j], bands.Upper[j]
	}
	rb.Lower[50], rb.Upper[50], rb.SE[50] = math.NaN(), math.NaN(), math.NaN()
	if err := Band1D(filepath.Join(dir, "band2.svg"), x, y, rev, rb, nil, "reversed"); err != nil {
		t.Fatal(err)
	}
	checkSVG(t, filepath.Join(dir, "band2.svg"))
}

func TestBand1DNoBand(t *testing.T) {
	// Every band unreliable: the curve alone, no shading, no error.
	grid := linspace(0, 1, 11)
	bands := newBand(len(grid))
	for i, g := range grid {
		bands.Yhat[i], bands.SE[i], bands.Lower[i], bands.Upper[i] = g*g, math.NaN(), math.NaN(), math.NaN()
	}
	bands.Yhat[3] = math.NaN()
	p := filepath.Join(t.TempDir(), "noband.png")
	if err := Band1D(p, []float64{0.5}, []float64{0.3}, grid, bands, math.Sqrt, "no band"); err != nil {
		t.Fatal(err)
	}
	checkPNG(t, p, px(6), 0)
	if got := bandLabel(bands); got != "confidence band" {
		t.Errorf("label %q", got)
	}
}

func TestObservedVsPredicted(t *testing.T) {
	y := []float64{1, 2, 3, 4, 5}
	yhat := []float64{1.1, 1.8, 3.3, 3.9, 5.2}
	p := filepath.Join(t.TempDir(), "ovp.png")
	if err := ObservedVsPredicted(p, y, yhat); err != nil {
		t.Fatal(err)
	}
	checkPNG(t, p, px(5), px(5))
	// A constant response (zero spread) must still draw.
	if err := ObservedVsPredicted(p, []float64{2, 2}, []float64{2, 2}); err != nil {
		t.Fatal(err)
	}
}

func TestBadInputs(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "x.png")
	good := []kpls.Stats{{M: 0, DoF: 1}, {M: 1, DoF: 2}}
	band := newBand(2)
	band.Yhat[1] = 1
	rows := []kpls.SelectionRow{{Kernel: kpls.RBF{Width: 1}, Stats: kpls.Stats{M: 0, GMDL: 3}}, {Kernel: kpls.RBF{Width: 1}, Stats: kpls.Stats{M: 1, GMDL: 2}}}
	table := func(c kpls.Criterion, rows ...kpls.SelectionRow) *kpls.Selection {
		return &kpls.Selection{Criterion: c, Table: rows}
	}
	cases := []struct {
		name string
		err  error
		run  func() error
	}{
		{"no panels", ErrInput, func() error { return DoFVersusM(p, nil) }},
		{"panel without series", ErrInput, func() error { return DoFVersusM(p, []DoFPanel{{Width: 1}}) }},
		{"empty series", ErrInput, func() error { return DoFVersusM(p, []DoFPanel{{Series: []Series{{"a", nil}}}}) }},
		{"bad extension", ErrFormat, func() error {
			return DoFVersusM(filepath.Join(dir, "x.gif"), []DoFPanel{{Series: []Series{{"a", good}}}})
		}},
		{"no extension", ErrFormat, func() error { return ObservedVsPredicted(filepath.Join(dir, "x"), []float64{1}, []float64{1}) }},
		{"bad criterion", ErrInput, func() error { return DoFAndCriterionVersusM(p, "loo", []DoFPanel{{Series: []Series{{"a", good}}}}) }},
		{"no selection", ErrInput, func() error { return CriterionVersusM(p, nil) }},
		{"empty table", ErrInput, func() error { return CriterionVersusM(p, table(kpls.GMDL)) }},
		{"empty table heat", ErrInput, func() error { return CriterionHeatmap(p, table(kpls.GMDL)) }},
		{"duplicate m", ErrInput, func() error { return CriterionHeatmap(p, table(kpls.GMDL, append(rows, rows[0])...)) }},
		{"negative m", ErrInput, func() error {
			return CriterionVersusM(p, table(kpls.GMDL, kpls.SelectionRow{Kernel: kpls.RBF{Width: 1}, Stats: kpls.Stats{M: -1}}))
		}},
		{"NaN width", ErrInput, func() error {
			return CriterionHeatmap(p, table(kpls.GMDL, kpls.SelectionRow{Kernel: kpls.RBF{Width: math.NaN()}}))
		}},
		{"bad criterion heat", ErrInput, func() error { return CriterionHeatmap(p, table("r2", rows...)) }},
		{"no criterion", ErrInput, func() error { return CriterionHeatmap(p, table("", rows...)) }},
		{"choice not in table", ErrInput, func() error {
			s := table(kpls.GMDL, rows...)
			s.Choices = []kpls.SelectionRow{{Kernel: kpls.RBF{Width: 1}, Stats: kpls.Stats{M: 5}}}
			return CriterionVersusM(p, s)
		}},
		{"train lengths", ErrInput, func() error { return Band1D(p, []float64{1, 2}, []float64{1}, []float64{0, 1}, band, nil, "") }},
		{"grid lengths", ErrInput, func() error { return Band1D(p, nil, nil, []float64{0, 1, 2}, band, nil, "") }},
		{"empty grid", ErrInput, func() error { return Band1D(p, nil, nil, nil, nil, nil, "") }},
		{"NaN grid", ErrInput, func() error { return Band1D(p, nil, nil, []float64{0, math.NaN()}, band, nil, "") }},
		{"NaN training", ErrInput, func() error {
			return Band1D(p, []float64{math.Inf(1)}, []float64{0}, []float64{0, 1}, band, nil, "")
		}},
		{"ovp lengths", ErrInput, func() error { return ObservedVsPredicted(p, []float64{1, 2}, []float64{1}) }},
		{"ovp empty", ErrInput, func() error { return ObservedVsPredicted(p, nil, nil) }},
		{"ovp NaN", ErrInput, func() error { return ObservedVsPredicted(p, []float64{1, math.NaN()}, []float64{1, 2}) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.run()
			if !errors.Is(err, c.err) {
				t.Errorf("error %v, want %v", err, c.err)
			}
		})
	}
	if err := Band1D(filepath.Join(dir, "missing", "dir", "x.png"), nil, nil, []float64{0, 1}, band, nil, ""); err == nil {
		t.Error("writing into a missing directory succeeded")
	}
}

func TestIntTicks(t *testing.T) {
	for _, tk := range (intTicks{}).Ticks(-0.5, 25.5) {
		if tk.Label == "-0" || tk.Value != math.Trunc(tk.Value) {
			t.Errorf("tick %+v", tk)
		}
	}
}

// linspace returns n points evenly spaced from a to b.
func linspace(a, b float64, n int) []float64 {
	g := make([]float64, n)
	for i := range g {
		g[i] = a + (b-a)*float64(i)/float64(n-1)
	}
	return g
}

// newBand is a prediction of n points with room for its band.
func newBand(n int) *kpls.Prediction {
	return &kpls.Prediction{Yhat: make([]float64, n), SE: make([]float64, n), Lower: make([]float64, n), Upper: make([]float64, n)}
}
