package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kpls-go/kpls/cmd/cli"
)

// TestEval runs `kpls-lab eval` on random splits and on split files: every
// method on every split, the oracle scored against itself, the summary
// the medians of the splits.
func TestEval(t *testing.T) {
	p := writeFile(t, "s.csv", smallCSV(60))
	code, out, stderr := labRun(t, "eval", "--data", p, "--splits", "2", "--methods", "gcv,bic", "--max-components", "8", "--oracle-components", "8", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc evalJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if doc.N != 60 || doc.D != 2 || doc.Target != "y" || len(doc.Splits) != 2 {
		t.Fatalf("n %d, d %d, target %q, %d splits", doc.N, doc.D, doc.Target, len(doc.Splits))
	}
	for _, sp := range doc.Splits {
		var methods []string
		for _, m := range sp.Methods {
			methods = append(methods, m.Method)
			if !(m.RMSE > 0) {
				t.Errorf("split %d, %s: RMSE %v", sp.Split, m.Method, m.RMSE)
			}
		}
		if !slices.Equal(methods, []string{"gcv", "bic", "oracle"}) || sp.NTest != 15 || sp.NTrain != 45 {
			t.Errorf("split %d: methods %q, %d train, %d test", sp.Split, methods, sp.NTrain, sp.NTest)
		}
	}
	if len(doc.Summary) != 3 || doc.Summary[2].Method != "oracle" || doc.Summary[2].RatioToOracle != 1 {
		t.Errorf("summary %+v", doc.Summary)
	}
	want := (float64(doc.Splits[0].Methods[0].RMSE) + float64(doc.Splits[1].Methods[0].RMSE)) / 2
	if got := float64(doc.Summary[0].MedianRMSE); math.Abs(got-want) > 1e-15*want {
		t.Errorf("gcv median RMSE %g, the splits give %g", got, want)
	}
	if !strings.Contains(stderr, "kpls-lab eval: split 1, oracle") {
		t.Errorf("stderr does not log the splits:\n%s", stderr)
	}

	// The same split read from files: the table on stdout.
	dir := t.TempDir()
	var train, test strings.Builder
	for i := range 60 {
		if i%4 == 0 {
			test.WriteString(fmtF(float64(i)) + "\n")
		} else {
			train.WriteString(fmtF(float64(i)) + "\n")
		}
	}
	os.WriteFile(filepath.Join(dir, "split-0.train"), []byte(train.String()), 0o644)
	os.WriteFile(filepath.Join(dir, "split-0.test"), []byte(test.String()), 0o644)
	code, out, stderr = labRun(t, "eval", "--data", p, "--split-dir", dir, "--methods", "gcv", "--max-components", "8", "--oracle-components", "8")
	if code != 0 || !strings.Contains(out, "1 splits") || !strings.Contains(out, "median RMSE") {
		t.Errorf("exit %d: %s\n%s", code, stderr, out)
	}
}

func TestEvalErrors(t *testing.T) {
	p := writeFile(t, "s.csv", smallCSV(30))
	overlap := t.TempDir()
	os.WriteFile(filepath.Join(overlap, "split-0.train"), []byte("0\n1\n2\n3\n"), 0o644)
	os.WriteFile(filepath.Join(overlap, "split-0.test"), []byte("3\n4\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
		code int
	}{
		{[]string{"eval"}, "--data is required", cli.ExitUsage},
		{[]string{"eval", "--data", p, "--splits", "0"}, "--splits", cli.ExitUsage},
		{[]string{"eval", "--data", p, "--test-fraction", "1"}, "--test-fraction", cli.ExitUsage},
		{[]string{"eval", "--data", p, "--methods", "gcv,gcv"}, "appears twice", cli.ExitUsage},
		{[]string{"eval", "--data", p, "--methods", "loo"}, "loo", cli.ExitUsage},
		{[]string{"eval", "--data", p, "--split-dir", t.TempDir()}, "no split-0.train", cli.ExitError},
		{[]string{"eval", "--data", p, "--split-dir", overlap}, "row 3 is in both", cli.ExitError},
		{[]string{"eval", "--data", filepath.Join(t.TempDir(), "missing.csv")}, "missing.csv", cli.ExitError},
	} {
		code, out, stderr := labRun(t, c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) || out != "" {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q", c.args, code, stderr, c.code, c.want)
		}
	}
}

// TestEvalAverages: cv-avgK and cv-inD are reported per split; averaging
// within a margin of 0 takes the best grid point alone, so it equals the
// cv method's held-out RMSE (the same model, refitted without DoF), and
// averaging more points gives another number.
func TestEvalAverages(t *testing.T) {
	p := writeFile(t, "s.csv", smallCSV(80))
	code, out, stderr := labRun(t, "eval", "--data", p, "--splits", "2", "--methods", "cv", "--widths", "0.5,2,8",
		"--max-components", "8", "--oracle-components", "8", "--average", "3", "--average-within", "0", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc evalJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	for _, sp := range doc.Splits {
		rmse := map[string]float64{}
		for _, m := range sp.Methods {
			rmse[m.Method] = float64(m.RMSE)
		}
		cv, in0, avg3 := rmse["cv"], rmse["cv-in0"], rmse["cv-avg3"]
		if cv == 0 || in0 == 0 || avg3 == 0 {
			t.Fatalf("split %d: methods %v", sp.Split, rmse)
		}
		if math.Abs(in0-cv) > 1e-9*cv {
			t.Errorf("split %d: cv-in0 %v, cv %v", sp.Split, in0, cv)
		}
		if avg3 == cv {
			t.Errorf("split %d: the mean of 3 points equals the best point's RMSE %v", sp.Split, cv)
		}
	}
	for _, args := range [][]string{{"--average", "1"}, {"--average-within", "-0.1"}} {
		if code, _, stderr := labRun(t, append([]string{"eval", "--data", p}, args...)...); code != 2 || !strings.Contains(stderr, args[0]) {
			t.Errorf("%q: exit %d: %s", args, code, stderr)
		}
	}
}
