package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/cmd/cli"
	"github.com/kpls-go/kpls/kpls"
)

// kplsRun runs the command in-process and returns its exit status, stdout
// and stderr.
func kplsRun(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	return kplsRunIn(t, nil, args...)
}

// kplsRunIn is kplsRun with standard input reading stdin (nil: none).
func kplsRunIn(t *testing.T, stdin io.Reader, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := program.Run(context.Background(), args, cli.Env{Stdout: &out, Stderr: &errb, Stdin: stdin})
	if s := errb.String(); strings.Contains(s, "panic") || strings.Contains(s, "goroutine ") || strings.Contains(s, "internal error") {
		t.Errorf("kpls %q: stderr looks like a panic:\n%s", args, s)
	}
	return code, out.String(), errb.String()
}

// writeFile writes content to name in a fresh temporary directory.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// smallCSV is a noisy smooth function of two features, target last.
func smallCSV(n int) string {
	var b strings.Builder
	b.WriteString("a,b,y\n")
	for i := range n {
		a := float64(i)/float64(n)*4 - 2
		bb := math.Sin(float64(3 * i))
		y := math.Sin(a) + 0.3*bb + 0.05*math.Cos(float64(7*i))
		b.WriteString(strings.Join([]string{fmtF(a), fmtF(bb), fmtF(y)}, ",") + "\n")
	}
	return b.String()
}

func fmtF(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

func jsonNum(v float64) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// sincPath is the reference case in kpls/testdata.
func sincPath(t *testing.T) string {
	p := filepath.Join("..", "..", "kpls", "testdata", "reference", "sinc_100.csv")
	if _, err := os.Stat(p); err != nil {
		t.Fatal("reference data missing (they are part of the repository):", err)
	}
	return p
}

func TestFitJSONContract(t *testing.T) {
	p := sincPath(t)
	code, out, stderr := kplsRun(t, "fit", "--data", p, "--width", "1", "--standardize=false", "--components", "12", "--dof", "exact", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("stdout is not one JSON document: %v\n%s", err, out)
	}
	for _, k := range []string{"n", "kernel", "standardize", "dof_method", "lanczos", "components", "valid_components", "warnings", "path", "selected"} {
		if _, ok := doc[k]; !ok {
			t.Errorf("fit JSON lacks %q", k)
		}
	}
	if doc["n"] != 100.0 || doc["standardize"] != false || doc["dof_method"] != "exact" {
		t.Errorf("n %v, standardize %v, dof_method %v", doc["n"], doc["standardize"], doc["dof_method"])
	}
	kern := doc["kernel"].(map[string]any)
	if kern["name"] != "rbf" || kern["width"] != 1.0 {
		t.Errorf("kernel = %v", kern)
	}
	if _, ok := doc["warnings"].([]any); !ok {
		t.Errorf("warnings = %v, want an array", doc["warnings"])
	}
	// "path" is the per-m array, m = 0..M; "components" is M, the
	// number of components fitted (valid_components is the same number).
	comps := doc["path"].([]any)
	valid, ok := doc["components"].(float64)
	if !ok || len(comps) != int(valid)+1 || doc["valid_components"] != valid {
		t.Fatalf("%d path rows, components %v, valid_components %v", len(comps), doc["components"], doc["valid_components"])
	}
	for i, c := range comps {
		row := c.(map[string]any)
		if int(row["m"].(float64)) != i {
			t.Errorf("row %d has m = %v", i, row["m"])
		}
		for _, k := range []string{"rss", "dof", "sigma", "aic", "bic", "gmdl"} {
			if _, ok := row[k]; !ok {
				t.Errorf("row %d lacks %q", i, k)
			}
		}
		// A DoF that could not be computed is null, and so are its criteria.
		if row["dof"] == nil && row["gmdl"] != nil {
			t.Errorf("row %d: dof null but gmdl %v", i, row["gmdl"])
		}
	}
	// Reference (docs/design.md §3, sinc_100.ref.json): DoF(1) = 4.855 at width 1.
	if d := comps[1].(map[string]any)["dof"].(float64); math.Abs(d-4.85494) > 1e-4 {
		t.Errorf("DoF(1) = %g, want 4.85494", d)
	}
	sel := doc["selected"].(map[string]any)
	if sel["criterion"] != string(kpls.DefaultFitCriterion) {
		t.Errorf("selected = %v", sel)
	}
	if m := sel["m"].(float64); m < 0 || m > valid {
		t.Errorf("selected m = %v outside 0..%v", m, valid)
	}
}

func TestFitHumanAndWarningsArray(t *testing.T) {
	// A constant feature is reported as a warning; warnings is an array
	// also when empty.
	var b strings.Builder
	b.WriteString("c,a,y\n")
	for i := range 20 {
		b.WriteString("5," + fmtF(float64(i)) + "," + fmtF(math.Sin(float64(i))) + "\n")
	}
	p := writeFile(t, "const.csv", b.String())
	code, out, stderr := kplsRun(t, "fit", "--data", p, "--components", "3", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc struct{ Warnings []kpls.Warning }
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	// Each warning carries its code into JSON.
	if len(doc.Warnings) == 0 || doc.Warnings[0].Code != kpls.WarnConstantFeature || !strings.Contains(stderr, "constant") {
		t.Errorf("warnings %q, stderr %q: want the constant feature named", doc.Warnings, stderr)
	}

	code, out, _ = kplsRun(t, "fit", "--data", writeFile(t, "s.csv", smallCSV(30)), "--components", "6", "--criterion", "gmdl", "--json")
	if code != 0 || !strings.Contains(out, `"warnings": []`) {
		t.Errorf("exit %d, want \"warnings\": [] in\n%s", code, out)
	}
	code, out, _ = kplsRun(t, "fit", "--data", writeFile(t, "s.csv", smallCSV(30)), "--components", "3")
	if code != 0 || !strings.Contains(out, "gMDL") || !strings.Contains(out, "selected") {
		t.Errorf("exit %d, human output:\n%s", code, out)
	}
}

func TestSelectJSONContract(t *testing.T) {
	p := writeFile(t, "s.csv", smallCSV(40))
	code, out, stderr := kplsRun(t, "select", "--data", p, "--components", "4", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	type point struct {
		Kernel string
		Width  float64
	}
	var doc struct {
		Widths   []float64
		Skipped  []point
		Warnings []kpls.Warning
		Table    []map[string]any
		Best     map[string]any
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	// Default RBF grid for d = 2: d/8, d/4, d/2, d, 2d, each fitted or
	// skipped, then any extensions past an edge, each a factor of 2
	// beyond the grid so far. "widths" lists the widths fitted, of
	// every kernel.
	rbf := map[float64]bool{}
	for _, r := range doc.Table {
		if r["kernel"] == "rbf" {
			rbf[r["width"].(float64)] = true
		}
	}
	for _, p := range doc.Skipped {
		if p.Kernel == "rbf" {
			rbf[p.Width] = true
		}
	}
	for w := range rbf {
		if !slices.Contains(doc.Widths, w) && !slices.ContainsFunc(doc.Skipped, func(p point) bool { return p.Width == w }) {
			t.Errorf("rbf width %g is in the table but not in widths %v", w, doc.Widths)
		}
	}
	want := []float64{0.25, 0.5, 1, 2, 4}
	for _, w := range want {
		if !rbf[w] {
			t.Errorf("rbf widths fitted or skipped %v, want %v among them", rbf, want)
		}
	}
	lo, hi := want[0], want[len(want)-1]
	var more []float64
	for w := range rbf {
		if !slices.Contains(want, w) {
			more = append(more, w)
		}
	}
	slices.SortFunc(more, func(a, b float64) int { return cmp.Compare(math.Abs(math.Log(a)), math.Abs(math.Log(b))) })
	for _, w := range more {
		switch w {
		case lo / 2:
			lo = w
		case hi * 2:
			hi = w
		default:
			t.Errorf("rbf widths %v: %g extends neither edge", rbf, w)
		}
	}
	if doc.Warnings == nil {
		t.Error("warnings missing")
	}
	for _, r := range doc.Table {
		for _, k := range []string{"width", "m", "rss", "dof", "aic", "bic", "gmdl"} {
			if _, ok := r[k]; !ok {
				t.Fatalf("table row lacks %q: %v", k, r)
			}
		}
	}
	for _, k := range []string{"width", "m", "criterion"} {
		if _, ok := doc.Best[k]; !ok {
			t.Errorf("best lacks %q: %v", k, doc.Best)
		}
	}
	if doc.Best["criterion"] != string(kpls.DefaultCriterion) {
		t.Errorf("best = %v", doc.Best)
	}

	code, out, _ = kplsRun(t, "select", "--data", p, "--widths", "0.5,2", "--components", "3", "--criterion", "bic", "--dof", "lanczos", "--grid")
	if code != 0 || !strings.Contains(out, "<= best") {
		t.Errorf("exit %d, human output:\n%s", code, out)
	}
}

func TestFitPredictRoundTrip(t *testing.T) {
	train := writeFile(t, "train.csv", smallCSV(40))
	model := filepath.Join(t.TempDir(), "model.json")
	code, _, stderr := kplsRun(t, "fit", "--data", train, "--width", "2", "--components", "5", "--model", model)
	if code != 0 {
		t.Fatalf("fit: exit %d: %s", code, stderr)
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
	// The prediction file has the columns in another order, no target, and two rows only.
	pred := writeFile(t, "new.csv", "b,a\n0.1,-1.5\n-0.7,0.25\n")
	for _, comp := range []int{-1, 0, 3} {
		args := []string{"predict", "--model", model, "--data", pred, "--json", "--bands"}
		want := m.Chosen().M
		if comp >= 0 {
			args = append(args, "--components", jsonNum(float64(comp)))
			want = comp
		}
		code, out, stderr := kplsRun(t, args...)
		if code != 0 {
			t.Fatalf("predict: exit %d: %s", code, stderr)
		}
		var doc struct {
			M           *int
			Level       float64
			Predictions []struct{ Yhat, SE, Lower, Upper float64 }
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if doc.M == nil || *doc.M != want || doc.Level != 0.98 || len(doc.Predictions) != 2 {
			t.Fatalf("m %v (want %d), level %g, %d predictions:\n%s", doc.M, want, doc.Level, len(doc.Predictions), out)
		}
		lib, err := predictAt(m, mat.NewDense(2, 2, []float64{-1.5, 0.1, 0.25, -0.7}), want)
		if err != nil {
			t.Fatal(err)
		}
		for i, p := range doc.Predictions {
			if math.Abs(p.Yhat-lib[i]) > 1e-12*math.Max(1, math.Abs(lib[i])) {
				t.Errorf("m = %d, row %d: CLI %v, library %v", want, i, p.Yhat, lib[i])
			}
			if !(p.Lower < p.Yhat && p.Yhat < p.Upper && p.SE > 0) {
				t.Errorf("row %d: band %+v", i, p)
			}
		}
	}
	// The training file itself, target included: the target is ignored
	// for prediction and compared in the summary.
	code, out, stderr := kplsRun(t, "predict", "--model", model, "--data", train, "--level", "0.9", "--no-intercept-variance")
	if code != 0 || !strings.Contains(out, "RMSE") || !strings.Contains(out, "90 %") {
		t.Errorf("exit %d: %s\n%s", code, stderr, out)
	}
}

func TestSelectModelPredict(t *testing.T) {
	p := sincPath(t)
	model := filepath.Join(t.TempDir(), "m.json")
	code, _, stderr := kplsRun(t, "select", "--data", p, "--standardize=false", "--widths", "0.1,1", "--model", model, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	code, out, stderr := kplsRun(t, "predict", "--model", model, "--data", p, "--json")
	if code != 0 || !strings.Contains(out, `"predictions"`) {
		t.Fatalf("exit %d: %s", code, stderr)
	}
}

func TestBadInputs(t *testing.T) {
	good := writeFile(t, "good.csv", smallCSV(20))
	dir := t.TempDir()
	model := filepath.Join(dir, "model.json")
	if code, _, stderr := kplsRun(t, "fit", "--data", good, "--components", "3", "--model", model); code != 0 {
		t.Fatalf("fit: %s", stderr)
	}
	nan := writeFile(t, "nan.csv", "a,y\n1,2\n2,NaN\n3,4\n")
	short := writeFile(t, "short.csv", "a,y\n1,2\n2,3\n")
	constant := writeFile(t, "const.csv", "a,y\n1,2\n2,2\n3,2\n4,2\n")
	notModel := writeFile(t, "notmodel.json", `{"hello": 1}`)
	trunc := writeFile(t, "trunc.kpls", "KPLS")
	text := writeFile(t, "text.csv", "a,y\n1,2\n2,x\n3,4\n")
	cases := []struct {
		name string
		args []string
		want string // in stderr
		code int
	}{
		{"missing data", []string{"fit"}, "--data", 2},
		{"unreadable", []string{"fit", "--data", filepath.Join(dir, "nope.csv")}, "nope.csv", 1},
		{"unknown target", []string{"fit", "--data", good, "--target", "zz"}, "zz", 1},
		{"components 0", []string{"fit", "--data", good, "--components", "0"}, "--components", 2},
		{"components too many", []string{"fit", "--data", good, "--components", "500"}, "--components: 500 asked for, the data allow at most", 2},
		{"components not a number", []string{"fit", "--data", good, "--components", "x"}, "-components", 2},
		{"width 0", []string{"fit", "--data", good, "--width", "0"}, "--width", 2},
		{"width negative", []string{"fit", "--data", good, "--width", "-1"}, "--width", 2},
		{"gamma negative", []string{"fit", "--data", good, "--gamma", "-1"}, "--gamma", 2},
		{"width and gamma", []string{"fit", "--data", good, "--width", "1", "--gamma", "1"}, "--gamma", 2},
		{"widths bad", []string{"select", "--data", good, "--widths", "1,-2"}, "--widths", 2},
		{"unknown kernel", []string{"fit", "--data", good, "--kernel", "poly"}, "poly", 2},
		{"unknown dof", []string{"fit", "--data", good, "--dof", "magic"}, "magic", 2},
		{"select dof none", []string{"select", "--data", good, "--dof", "none"}, "--dof", 2},
		{"unknown criterion", []string{"select", "--data", good, "--criterion", "loo"}, "loo", 2},
		{"fit unknown criterion", []string{"fit", "--data", good, "--criterion", "cv"}, "cv", 2},
		{"lanczos 0", []string{"fit", "--data", good, "--lanczos", "0"}, "--lanczos", 2},
		{"unknown backend", []string{"fit", "--data", good, "--backend", "cuda"}, "cuda", 2},
		{"level 1", []string{"predict", "--model", model, "--data", good, "--level", "1"}, "--level", 2},
		{"level 0", []string{"predict", "--model", model, "--data", good, "--level", "0"}, "--level", 2},
		{"level NaN", []string{"predict", "--model", model, "--data", good, "--level", "NaN"}, "--level", 2},
		{"predict components", []string{"predict", "--model", model, "--data", good, "--components", "99"}, "--components", 2},
		{"predict missing model", []string{"predict", "--data", good}, "--model", 2},
		{"not a model", []string{"predict", "--model", notModel, "--data", good}, "not a valid model file", 1},
		{"model is csv", []string{"predict", "--model", good, "--data", good}, "not a valid model file", 1},
		{"model file named kpls", []string{"predict", "--model", trunc, "--data", good}, "--model " + trunc + ": not a valid model file", 1},
		{"model missing", []string{"predict", "--model", filepath.Join(dir, "none.json"), "--data", good}, "none.json", 1},
		{"predict missing column", []string{"predict", "--model", model, "--data", writeFile(t, "p.csv", "a,q\n1,2\n")}, `missing feature "b"`, 1},
		{"NaN", []string{"fit", "--data", nan}, "line 3", 1},
		{"not a number", []string{"fit", "--data", text}, "line 3", 1},
		{"too few rows", []string{"fit", "--data", short}, "too few", 1},
		{"constant target", []string{"fit", "--data", constant}, "constant", 1},
		{"stray argument", []string{"fit", "--data", good, "extra"}, "extra", 2},
		{"unknown flag", []string{"fit", "--nope"}, "nope", 2},
		{"unknown command", []string{"frobnicate"}, "frobnicate", 2},
		{"no command", nil, "Usage", 2},
		{"demo rows", []string{"demo", "--rows", "5"}, "--rows", 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, stderr := kplsRun(t, c.args...)
			if code != c.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, c.code, stderr)
			}
			if !strings.Contains(stderr, c.want) {
				t.Errorf("stderr does not name %q:\n%s", c.want, stderr)
			}
			if out != "" {
				t.Errorf("stdout not empty on error:\n%s", out)
			}
		})
	}
}

func TestHelpListsDefaults(t *testing.T) {
	code, out, _ := kplsRun(t, "--help")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	if n := strings.Count(out, "\n"); n > 30 {
		t.Errorf("kpls --help is %d lines, want at most 30:\n%s", n, out)
	}
	for _, c := range program.Commands {
		if !strings.Contains(out, "\n  "+c.Name+" ") {
			t.Errorf("kpls --help does not list the command %s:\n%s", c.Name, out)
		}
	}
	if code, vout, _ := kplsRun(t, "--version"); code != 0 || !strings.Contains(vout, "github.com/kpls-go/kpls") {
		t.Errorf("kpls --version: exit %d:\n%s", code, vout)
	}
	want := map[string][]string{
		"fit":     {"--data", "--target", "--kernel", "(default rbf)", "--width", "--gamma", "--components", "(default 20)", "--dof", "(default approx)", "--lanczos", "--standardize", "(default true)", "--model", "--json", "--criterion", "(default gcv)", "--backend", "--progress", "(default auto)"},
		"select":  {"--widths", "d/8", "--criterion", "(default cv)", "--folds", "--max-components", "--kernels", "--dof", "--lanczos", "--components", "--json"},
		"predict": {"--model", "--data", "--components", "(default -1)", "--level", "(default 0.98)", "--no-intercept-variance", "(default false)", "--json"},
		"demo":    {"--rows", "(default 2000)", "--seed", "--json"},
		"version": {"--json"},
	}
	for cmd, flags := range want {
		code, out, stderr := kplsRun(t, cmd, "--help")
		if code != 0 || stderr != "" {
			t.Errorf("%s --help: exit %d, stderr %q", cmd, code, stderr)
		}
		for _, f := range flags {
			if !strings.Contains(out, f) {
				t.Errorf("kpls %s --help lacks %q:\n%s", cmd, f, out)
			}
		}
	}
}

func TestVersion(t *testing.T) {
	code, out, _ := kplsRun(t, "version", "--json")
	var v struct{ Go, Backend, SIMD string }
	if code != 0 || json.Unmarshal([]byte(out), &v) != nil || v.Go == "" || v.Backend == "" || v.SIMD == "" {
		t.Errorf("exit %d:\n%s", code, out)
	}
}

func TestInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	code := program.Run(ctx, []string{"fit", "--data", writeFile(t, "s.csv", smallCSV(30))}, cli.Env{Stdout: &out, Stderr: &errb})
	if code != cli.ExitInterrupted || !strings.Contains(errb.String(), "interrupted") {
		t.Errorf("exit %d, stderr %q", code, errb.String())
	}
}

func TestDemoReduced(t *testing.T) {
	code, out, stderr := kplsRun(t, "demo", "--rows", "300", "--test", "40", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc demoJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if doc.Kin8nm.Rows != 300 || len(doc.Kin8nm.Table) == 0 || len(doc.Sinc.DoF) == 0 || len(doc.Kin8nm.Test.Predictions) == 0 {
		t.Errorf("demo JSON incomplete: %+v", doc.Kin8nm)
	}
	if !strings.Contains(stderr, "winner") {
		t.Errorf("with --json the summary goes to stderr; got\n%s", stderr)
	}
	// The sinc part stays out of the regimes where the Krylov space runs
	// out and the DoF fall below 1.
	if len(doc.Sinc.Warnings) != 0 || !(float64(doc.Sinc.Best.DoF) >= 1) {
		t.Errorf("sinc: warnings %q, chosen DoF %v", doc.Sinc.Warnings, doc.Sinc.Best.DoF)
	}
}

func TestProgressLinesAndLinearDefaults(t *testing.T) {
	p := writeFile(t, "s.csv", smallCSV(30))
	code, out, stderr := kplsRun(t, "select", "--data", p, "--kernel", "linear", "--progress", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// The linear kernel on two features allows two components; the
	// default of 10 is capped rather than refused.
	var doc struct{ Components int }
	if err := json.Unmarshal([]byte(out), &doc); err != nil || doc.Components != 2 {
		t.Errorf("components %d, err %v", doc.Components, err)
	}
	if !strings.Contains(stderr, "kpls: ") || !strings.Contains(stderr, "cv") {
		t.Errorf("--progress on a non-terminal should log plain lines to stderr, got %q", stderr)
	}
	if code, _, stderr := kplsRun(t, "fit", "--data", p, "--kernel", "linear", "--width", "1"); code == 0 || !strings.Contains(stderr, "--width") {
		t.Errorf("linear with --width: exit %d, %s", code, stderr)
	}
}

// FuzzFitCSV feeds arbitrary files to fit and predict: any outcome but a
// panic (recovered or not) is fine.
func FuzzFitCSV(f *testing.F) {
	for _, seed := range []string{
		smallCSV(5), "a,y\n1,2\n2,3\n3,5\n", "a,y\n1,2\n", "y\n1\n2\n3\n", "a,b,y\n1,,2\n",
		"\uFEFFa;y\n1;2\n", "a,y\n1e308,1\n-1e308,2\n0,3\n", "a,y\n0,0\n0,0\n0,1\n", "\"a\"\"\",y\n1,2\n3,4\n5,7\n",
	} {
		f.Add(seed, "3")
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, content, comp string) {
		p := filepath.Join(dir, "f.csv")
		m := filepath.Join(dir, "m.json")
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Remove(m)
		var out, errb bytes.Buffer
		if code := program.Run(context.Background(), []string{"fit", "--data", p, "--components", comp, "--model", m}, cli.Env{Stdout: &out, Stderr: &errb}); code == 0 {
			errb.Reset()
			program.Run(context.Background(), []string{"predict", "--model", m, "--data", p, "--json"}, cli.Env{Stdout: &out, Stderr: &errb})
		}
		if s := errb.String(); strings.Contains(s, "internal error") || strings.Contains(s, "goroutine ") {
			t.Fatalf("%q: %s", content, s)
		}
	})
}

// TestSavedModelPredictsWithItsChoice: a model saved by select
// --criterion bic (or fit --criterion aic) predicts with that criterion's
// m, not gMDL's, unless --components says otherwise.
func TestSavedModelPredictsWithItsChoice(t *testing.T) {
	p := writeFile(t, "s.csv", smallCSV(60))
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"select bic", []string{"select", "--data", p, "--criterion", "bic", "--widths", "0.5,2", "--components", "8"}},
		{"select cv", []string{"select", "--data", p, "--criterion", "cv", "--widths", "0.5,2", "--components", "8"}},
		{"fit aic", []string{"fit", "--data", p, "--criterion", "aic", "--width", "1", "--components", "8"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mp := filepath.Join(t.TempDir(), "m.json")
			code, out, stderr := kplsRun(t, append(tc.args, "--model", mp, "--json")...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var doc struct {
				Best     struct{ M int }
				Selected struct {
					M         int
					Criterion string
				}
			}
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatal(err)
			}
			want := doc.Best.M
			if tc.args[0] == "fit" {
				want = doc.Selected.M
				if doc.Selected.Criterion != "aic" {
					t.Errorf("fit records criterion %q", doc.Selected.Criterion)
				}
			}
			m, err := loadModel(mp)
			if err != nil {
				t.Fatal(err)
			}
			if m.Chosen().M != want {
				t.Errorf("model file records m = %d, the command chose %d", m.Chosen().M, want)
			}
			if g := m.ComponentsBy(kpls.GMDL); g == want {
				t.Errorf("gMDL also takes m = %d here: the data cannot tell the recorded choice from gMDL's", g)
			}
			code, out, stderr = kplsRun(t, "predict", "--model", mp, "--data", p, "--json")
			if code != 0 {
				t.Fatalf("predict: exit %d: %s", code, stderr)
			}
			var pd struct{ M *int }
			if err := json.Unmarshal([]byte(out), &pd); err != nil {
				t.Fatal(err)
			}
			if pd.M == nil || *pd.M != want {
				t.Errorf("predict used m = %v, the model was chosen with m = %d", pd.M, want)
			}
		})
	}
}
