package main

import (
	"encoding/json"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kpls-go/kpls/cmd/cli"
)

// checkPNG fails unless path is a PNG image of a sensible size.
func checkPNG(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cfg, err := png.DecodeConfig(f)
	if err != nil || cfg.Width < 200 || cfg.Height < 200 {
		t.Errorf("%s: %dx%d, %v", path, cfg.Width, cfg.Height, err)
	}
}

// TestDoFCompareOnData runs `kpls-lab dof --data` and checks its report
// against the truth it carries: the exact DoF of a linear smoother with
// m = 0 is 1 (the intercept), the relative errors are those of the values
// printed, approx is close to exact on this small, smooth case, and the
// files exist.
func TestDoFCompareOnData(t *testing.T) {
	p := writeFile(t, "small.csv", smallCSV(60))
	dir := t.TempDir()
	code, out, stderr := labRun(t, "dof", "--data", p, "--widths", "0.5,2", "--components", "4", "--out", dir, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc []struct {
		Case       string
		Components int
		DoF        map[string][]*float64
		MaxRel     map[string]float64 `json:"max_rel_error"`
		Selected   map[string]map[string]int
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if len(doc) != 2 || !strings.Contains(doc[0].Case, "w=0.5") || !strings.Contains(doc[1].Case, "w=2") {
		t.Fatalf("cases: %+v", doc)
	}
	for _, c := range doc {
		ex := c.DoF["exact"]
		if c.Components != 4 || len(ex) != 5 || ex[0] == nil || math.Abs(*ex[0]-1) > 1e-12 {
			t.Fatalf("%s: components %d, exact %v", c.Case, c.Components, ex)
		}
		for _, meth := range []string{"lanczos", "approx"} {
			worst := 0.0
			for m := 1; m <= c.Components; m++ {
				worst = math.Max(worst, math.Abs(*c.DoF[meth][m]-*ex[m]) / *ex[m])
			}
			if math.Abs(worst-c.MaxRel[meth]) > 1e-12 {
				t.Errorf("%s %s: max error reported %g, the values give %g", c.Case, meth, c.MaxRel[meth], worst)
			}
		}
		if c.MaxRel["approx"] > 0.02 {
			t.Errorf("%s: approx off by %.2g", c.Case, c.MaxRel["approx"])
		}
		if len(c.Selected["exact"]) != 3 {
			t.Errorf("%s: selections %v", c.Case, c.Selected)
		}
	}
	for _, f := range []string{"dof_compare.md", "dof_compare.csv", "dof_small_csv.svg"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	checkPNG(t, filepath.Join(dir, "dof_small_csv.png"))
	md, _ := os.ReadFile(filepath.Join(dir, "dof_compare.md"))
	if !strings.Contains(string(md), "| small.csv w=0.5 | 1..4 |") {
		t.Errorf("report:\n%s", md)
	}
}

// TestBench runs a tiny runtime experiment: every size, method and
// backend asked for is timed, and the exponent matches the times printed.
func TestBench(t *testing.T) {
	dir := t.TempDir()
	code, out, stderr := labRun(t, "bench", "--sizes", "60,120,240", "--reps", "1", "--probes", "8", "--dof", "approx,lanczos", "--out", dir, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc benchJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if len(doc.Points) != 6 || len(doc.Exponents) != 2 {
		t.Fatalf("points %d, exponents %d", len(doc.Points), len(doc.Exponents))
	}
	for _, p := range doc.Points {
		if !(p.Seconds > 0) || p.N < 60 {
			t.Errorf("point %+v", p)
		}
	}
	// The least-squares slope of log t on log n, from the printed points.
	for _, x := range doc.Exponents {
		var lx, ly []float64
		for _, p := range doc.Points {
			if p.DoF == x.DoF {
				lx, ly = append(lx, math.Log(float64(p.N))), append(ly, math.Log(p.Seconds))
			}
		}
		var mx, my, sxy, sxx float64
		for i := range lx {
			mx, my = mx+lx[i]/float64(len(lx)), my+ly[i]/float64(len(lx))
		}
		for i := range lx {
			sxy += (lx[i] - mx) * (ly[i] - my)
			sxx += (lx[i] - mx) * (lx[i] - mx)
		}
		if want := sxy / sxx; math.Abs(float64(x.Exponent)-want) > 1e-9 || x.NMin != 60 || x.NMax != 240 {
			t.Errorf("%s: exponent %g over %d..%d, the points give %g over 60..240", x.DoF, float64(x.Exponent), x.NMin, x.NMax, want)
		}
	}
	checkPNG(t, filepath.Join(dir, "runtime.png"))
	if b, err := os.ReadFile(filepath.Join(dir, "runtime.csv")); err != nil || strings.Count(string(b), "\n") != 7 {
		t.Errorf("runtime.csv: %v\n%s", err, b)
	}
}

func TestPlotCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("draws every figure")
	}
	dir := t.TempDir()
	code, out, stderr := labRun(t, "plot", "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	files := strings.Fields(out)
	if len(files) < 9 {
		t.Fatalf("files: %v", files)
	}
	for _, f := range files {
		if strings.HasSuffix(f, ".png") {
			checkPNG(t, f)
		}
	}
}

func TestReportUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"dof"},
		{"dof", "--compare", "--data", "x.csv"},
		{"dof", "--compare", "--components", "0"},
		{"dof", "--compare", "--n", "5"},
		{"dof", "--data", "x.csv", "--widths", "-1"},
		{"bench", "--sizes", "5"},
		{"bench", "--sizes", "100,abc"},
		{"bench", "--backends", "nope"},
		{"bench", "--probes", "1"},
		{"bench", "--dof", "magic"},
		{"bench", "--width", "0"},
		{"plot", "extra"},
	} {
		code, _, stderr := labRun(t, args...)
		if code != cli.ExitUsage || !strings.Contains(stderr, "kpls-lab") {
			t.Errorf("kpls-lab %q: exit %d, stderr %q; want exit 2 with a message", args, code, stderr)
		}
	}
	code, _, stderr := labRun(t, "dof", "--data", filepath.Join(t.TempDir(), "missing.csv"))
	if code != cli.ExitError || !strings.Contains(stderr, "missing.csv") {
		t.Errorf("missing file: exit %d, %q", code, stderr)
	}
}
