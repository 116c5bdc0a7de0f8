//go:build mpi

package mpi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRanksReproduceOneProcess builds the command twice, as a new user
// would (plain, and with the mpi tag), and runs fit, predict (with bands,
// which multiply by the kernel matrix) and select under mpirun with 1, 2
// and 3 ranks. Every output, RSS and DoF per m, the model file's
// coefficients for every m, predictions and their standard errors, and
// every RMSECV of the search with its choice, must equal the one-process
// run to 1e-10. The select runs with --relevance off: over ranks it learns
// no feature weights, which one process does on a small set. It lives beside the binding, below the library, so it reads
// the model files through the plain command.
func TestRanksReproduceOneProcess(t *testing.T) {
	dir := t.TempDir()
	plain, withMPI := buildCommands(t, dir)
	train, test := filepath.Join(dir, "train.csv"), filepath.Join(dir, "test.csv")
	writeData(t, train, 700, 1)
	writeData(t, test, 50, 2)

	fitArgs := []string{"fit", "--data", train, "--target", "y", "--width", "3", "--components", "12", "--json"}
	ref := runJSON(t, nil, plain, append(fitArgs, "--model", filepath.Join(dir, "ref.kpls"))...)
	refPred := runJSON(t, nil, plain, "predict", "--model", filepath.Join(dir, "ref.kpls"), "--data", test, "--bands", "--json")
	// Given widths: the default search extends them to 40 on these data, where
	// the kernel matrix is so ill-conditioned that the approximate DoF of
	// the final fit moves by 5e-10 of itself with the order of the sums, far
	// below its standard error; the fit above checks the DoF at a width
	// where the spectrum is not that flat.
	selArgs := []string{"select", "--data", train, "--target", "y", "--widths", "1.5,3,6", "--json", "--average-within", "0", "--relevance", "off"}
	refSel := runJSON(t, nil, plain, selArgs...)

	for _, ranks := range []int{1, 2, 3} {
		t.Run(fmt.Sprint("ranks=", ranks), func(t *testing.T) {
			model := filepath.Join(dir, fmt.Sprintf("r%d.kpls", ranks))
			got := runJSON(t, mpirun(ranks), withMPI, append(fitArgs, "--model", model)...)
			compareTables(t, "fit", got["path"], ref["path"], "rss", "dof")
			compareModelFiles(t, plain, model, filepath.Join(dir, "ref.kpls"), test, int(ref["valid_components"].(float64)))
			pred := runJSON(t, mpirun(ranks), withMPI, "predict", "--model", model, "--data", test, "--bands", "--json")
			compareTables(t, "predict", pred["predictions"], refPred["predictions"], "yhat", "se")
			if ranks == 2 {
				sel := runJSON(t, mpirun(ranks), withMPI, selArgs...)
				compareTables(t, "select", sel["table"], refSel["table"], "rmsecv")
				compareTables(t, "select's choice", []any{sel["best"]}, []any{refSel["best"]}, "kernel", "width", "m", "rss", "dof")
			}
		})
	}
}

// TestStandardInput checks that data read from standard input, which
// mpirun gives to rank 0 alone, reaches every rank: a 2-rank fit of
// --data - equals the plain command's fit of the file.
func TestStandardInput(t *testing.T) {
	dir := t.TempDir()
	plain, withMPI := buildCommands(t, dir)
	train := filepath.Join(dir, "train.csv")
	writeData(t, train, 300, 3)
	args := []string{"fit", "--target", "y", "--width", "3", "--components", "8", "--json"}
	want := runJSON(t, nil, plain, append(args, "--data", train)...)
	in, err := os.Open(train)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	full := append(append(mpirun(2), withMPI), append(args, "--data", "-")...)
	cmd := exec.Command(full[0], full[1:]...)
	cmd.Stdin = in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %v\n%s", full, err, stderr.String())
	}
	var got map[string]any
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("not one JSON document: %v\n%s", err, out)
	}
	compareTables(t, "fit of standard input", got["path"], want["path"], "rss", "dof")
}

// TestFailedRankEndsTheRun checks that an error on the rank that reads the
// data ends every rank promptly with a message naming the file.
func TestFailedRankEndsTheRun(t *testing.T) {
	dir := t.TempDir()
	_, withMPI := buildCommands(t, dir)
	missing := filepath.Join(dir, "missing.csv")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	args := append(mpirun(2), withMPI, "fit", "--data", missing, "--target", "y")
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("the run did not end within 60 s: %s", out)
	}
	if err == nil {
		t.Fatalf("the run succeeded on a missing file: %s", out)
	}
	if !strings.Contains(string(out), "missing.csv") {
		t.Fatalf("the error does not name the file: %s", out)
	}
}

// mpirun is the launcher's command line for ranks processes of one core's
// worth of goroutines each; as root Open MPI needs to be told.
func mpirun(ranks int) []string {
	args := []string{"mpirun", "--oversubscribe", "-np", fmt.Sprint(ranks), "-x", "GOMAXPROCS=1"}
	if os.Geteuid() == 0 {
		args = append(args, "--allow-run-as-root")
	}
	return args
}

func buildCommands(t *testing.T, dir string) (plain, withMPI string) {
	t.Helper()
	plain, withMPI = filepath.Join(dir, "kpls"), filepath.Join(dir, "kpls-mpi")
	for _, b := range [][]string{{"build", "-o", plain, "../../cmd/kpls"}, {"build", "-tags", "mpi", "-o", withMPI, "../../cmd/kpls"}} {
		if out, err := exec.Command("go", b...).CombinedOutput(); err != nil {
			t.Fatalf("go %v: %v\n%s", b, err, out)
		}
	}
	return plain, withMPI
}

// writeData writes n rows of five Gaussian features and a smooth target
// with noise.
func writeData(t *testing.T, path string, n int, seed uint64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	var b bytes.Buffer
	b.WriteString("a,b,c,d,e,y\n")
	for range n {
		var x [5]float64
		for j := range x {
			x[j] = rng.NormFloat64()
			fmt.Fprintf(&b, "%.17g,", x[j])
		}
		y := math.Sin(x[0]) + x[1]*x[2]/2 + 0.1*rng.NormFloat64()
		fmt.Fprintf(&b, "%.17g\n", y)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func runJSON(t *testing.T, launcher []string, bin string, args ...string) map[string]any {
	t.Helper()
	full := append(append(append([]string(nil), launcher...), bin), args...)
	cmd := exec.Command(full[0], full[1:]...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %v\n%s", full, err, stderr.String())
	}
	var doc map[string]any
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatalf("%v: not one JSON document: %v\n%s", full, err, out)
	}
	return doc
}

// compareTables compares the named numeric fields of two JSON arrays of
// objects to 1e-10 relative.
func compareTables(t *testing.T, what string, got, want any, fields ...string) {
	t.Helper()
	g, ok1 := got.([]any)
	w, ok2 := want.([]any)
	if !ok1 || !ok2 || len(g) != len(w) || len(w) == 0 {
		t.Fatalf("%s: %d rows, want %d", what, len(g), len(w))
	}
	for i := range w {
		gr, wr := g[i].(map[string]any), w[i].(map[string]any)
		for _, f := range fields {
			wv, isNum := wr[f].(float64)
			if !isNum {
				if wr[f] != gr[f] {
					t.Fatalf("%s row %d: %s = %v, want %v", what, i, f, gr[f], wr[f])
				}
				continue
			}
			gv, _ := gr[f].(float64)
			if !(math.Abs(gv-wv) <= 1e-10*math.Max(math.Abs(wv), 1e-300)) {
				t.Fatalf("%s row %d: %s = %v, want %v", what, i, f, gv, wv)
			}
		}
	}
}

// compareModelFiles reads both model files with the plain command and
// compares the predictions and bands they give at every m (the
// coefficients α_m, the scores and the bands' arrays behind them) to 1e-10.
func compareModelFiles(t *testing.T, plain, got, want, data string, comps int) {
	t.Helper()
	for m := 1; m <= comps; m++ {
		args := []string{"predict", "--data", data, "--bands", "--components", fmt.Sprint(m), "--json", "--model"}
		g := runJSON(t, nil, plain, append(args, got)...)
		w := runJSON(t, nil, plain, append(args, want)...)
		compareTables(t, fmt.Sprintf("model file at m=%d", m), g["predictions"], w["predictions"], "yhat", "se")
	}
}
