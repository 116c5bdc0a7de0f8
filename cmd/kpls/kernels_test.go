package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/kpls"
)

// TestKernelsThroughTheCommand fits every built-in kernel from the
// command line with its defaults alone, saves it, checks the JSON and the
// model file's kernel, and predicts with the file as the library does.
func TestKernelsThroughTheCommand(t *testing.T) {
	train := writeFile(t, "train.csv", smallCSV(40))
	pred := writeFile(t, "new.csv", "a,b\n-1.5,0.1\n0.25,-0.7\n")
	sqrt2 := math.Sqrt(2)
	for _, c := range []struct {
		args []string
		want kpls.Kernel
	}{
		{[]string{"--kernel", "rbf"}, kpls.RBF{Width: 1}},
		{[]string{"--kernel", "linear"}, kpls.Linear{}},
		{[]string{"--kernel", "polynomial"}, kpls.Polynomial{Degree: 3, Offset: 1}},
		{[]string{"--kernel", "polynomial", "--degree", "2", "--offset", "0.5"}, kpls.Polynomial{Degree: 2, Offset: 0.5}},
		{[]string{"--kernel", "laplacian"}, kpls.Laplacian{Width: sqrt2}},
		{[]string{"--kernel", "matern32", "--width", "3"}, kpls.Matern{Nu: 1.5, Width: 3}},
		{[]string{"--kernel", "MATERN52"}, kpls.Matern{Nu: 2.5, Width: sqrt2}},
	} {
		model := filepath.Join(t.TempDir(), "model.json")
		args := append([]string{"fit", "--data", train, "--components", "2", "--json", "--model", model}, c.args...)
		code, out, stderr := kplsRun(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, stderr)
		}
		var doc struct {
			Kernel struct {
				Name          string
				Width, Offset *float64
				Degree        *int
			}
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		if doc.Kernel.Name != c.want.Name() {
			t.Errorf("%v: JSON kernel %q", c.args, doc.Kernel.Name)
		}
		if w, ok := kpls.WidthOf(c.want); ok && (doc.Kernel.Width == nil || math.Abs(*doc.Kernel.Width-w) > 1e-15*w) {
			t.Errorf("%v: JSON width %v, want %g", c.args, doc.Kernel.Width, w)
		}
		f, err := os.Open(model)
		if err != nil {
			t.Fatal(err)
		}
		m, err := readModel(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		got := m.Options().Kernel
		if gw, ok := kpls.WidthOf(got); ok {
			// √2 is written in decimal and read back: equal to the ulp.
			w, _ := kpls.WidthOf(c.want)
			if math.Abs(gw-w) > 1e-15*w {
				t.Errorf("%v: the file's width %g, want %g", c.args, gw, w)
			}
			got = kpls.WithWidth(got, w)
		}
		if got != c.want {
			t.Errorf("%v: the file's kernel is %#v, want %#v", c.args, m.Options().Kernel, c.want)
		}
		code, out, stderr = kplsRun(t, "predict", "--model", model, "--data", pred, "--json")
		if code != 0 {
			t.Fatalf("%v predict: exit %d: %s", c.args, code, stderr)
		}
		var p struct{ Predictions []struct{ Yhat float64 } }
		if err := json.Unmarshal([]byte(out), &p); err != nil || len(p.Predictions) != 2 {
			t.Fatalf("%v: %v\n%s", c.args, err, out)
		}
		lib, err := predictAt(m, mat.NewDense(2, 2, []float64{-1.5, 0.1, 0.25, -0.7}), m.Chosen().M)
		if err != nil {
			t.Fatal(err)
		}
		for i := range lib {
			if math.Abs(p.Predictions[i].Yhat-lib[i]) > 1e-12*math.Max(1, math.Abs(lib[i])) {
				t.Errorf("%v row %d: CLI %g, library %g", c.args, i, p.Predictions[i].Yhat, lib[i])
			}
		}
	}
	for _, bad := range [][]string{
		{"--kernel", "rbf", "--degree", "2"},
		{"--kernel", "polynomial", "--degree", "0"},
		{"--kernel", "polynomial", "--offset", "-1"},
		{"--kernel", "linear", "--width", "2"},
		{"--kernel", "laplacian", "--gamma", "2"},
		{"--kernel", "precomputed"},
	} {
		code, _, stderr := kplsRun(t, append([]string{"fit", "--data", train}, bad...)...)
		if code != 2 || !strings.Contains(stderr, "--") {
			t.Errorf("%v: exit %d, stderr %q", bad, code, stderr)
		}
	}
}

// TestSelectKernels selects over several kernels from the command line:
// each width kernel on its own default grid.
func TestSelectKernels(t *testing.T) {
	train := writeFile(t, "train.csv", smallCSV(40))
	sqrt2 := math.Sqrt(2)
	code, out, stderr := kplsRun(t, "select", "--data", train, "--kernels", "laplacian,matern52,polynomial", "--criterion", "gcv", "--json", "--max-components", "6")
	if code != 0 {
		t.Fatalf("select: exit %d: %s", code, stderr)
	}
	type point struct {
		Kernel string
		Width  float64
	}
	var sel struct {
		Table, Skipped []point
	}
	if err := json.Unmarshal([]byte(out), &sel); err != nil {
		t.Fatal(err)
	}
	// Every default width is either fitted or skipped (past the turn of
	// its kernel's score).
	widths := map[string]map[float64]bool{}
	for _, r := range append(sel.Table, sel.Skipped...) {
		if widths[r.Kernel] == nil {
			widths[r.Kernel] = map[float64]bool{}
		}
		widths[r.Kernel][r.Width] = true
	}
	for _, k := range []string{"laplacian", "matern52"} {
		for _, f := range []float64{0.25, 0.5, 1, 2, 4} {
			if !widths[k][f*sqrt2] {
				t.Errorf("%s widths searched or skipped %v, want the 5 defaults around √2", k, widths[k])
				break
			}
		}
	}
	if len(widths["polynomial"]) != 1 || !widths["polynomial"][0] {
		t.Errorf("polynomial rows %v", widths["polynomial"])
	}
}
