package main

import (
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// twoTargetCSV has two features and two targets of different shapes, so
// that their selections differ.
func twoTargetCSV(n int) string {
	var b strings.Builder
	b.WriteString("a,b,y1,y2\n")
	for i := range n {
		a := float64(i)/float64(n)*4 - 2
		bb := math.Sin(float64(3 * i))
		y1 := math.Sin(a) + 0.3*bb + 0.05*math.Cos(float64(7*i))
		y2 := a*a - bb + 0.1*math.Sin(float64(11*i))
		b.WriteString(strings.Join([]string{fmtF(a), fmtF(bb), fmtF(y1), fmtF(y2)}, ",") + "\n")
	}
	return b.String()
}

// predictYhat runs predict --format csv and returns the named column.
func predictYhat(t *testing.T, model, data, column string, extra ...string) []float64 {
	t.Helper()
	code, out, stderr := kplsRun(t, append([]string{"predict", "--model", model, "--data", data, "--format", "csv"}, extra...)...)
	if code != 0 {
		t.Fatalf("predict %s: exit %d: %s", model, code, stderr)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	col := -1
	for j, h := range recs[0] {
		if h == column {
			col = j
		}
	}
	if col < 0 {
		t.Fatalf("no column %q in %q", column, recs[0])
	}
	var v []float64
	for _, r := range recs[1:] {
		f, err := strconv.ParseFloat(r[col], 64)
		if err != nil {
			t.Fatal(err)
		}
		v = append(v, f)
	}
	return v
}

// TestSeveralTargetsThroughTheCommand: fit and select with --target y1,y2
// write one model file; predict returns one prediction per target. Each
// target's JSON summary and predictions equal those of a run with that
// target alone (the oracle: separate commands, separate kernel matrices),
// to 1e-10.
func TestSeveralTargetsThroughTheCommand(t *testing.T) {
	data := writeFile(t, "train.csv", twoTargetCSV(90))
	query := writeFile(t, "query.csv", "b,a,y2\n0.1,-1.5,2.2\n-0.7,0.25,0.8\n0.3,1.9,3.5\n")
	dir := t.TempDir()
	for _, cmd := range [][]string{
		{"fit", "--width", "2", "--components", "6"},
		{"select", "--widths", "1,4", "--components", "4", "--relevance", "off"},
	} {
		both := filepath.Join(dir, cmd[0]+"-both.kpls")
		code, out, stderr := kplsRun(t, append(cmd, "--data", data, "--target", "y1,y2", "--model", both, "--json")...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", cmd[0], code, stderr)
		}
		var doc struct {
			Targets []struct {
				Target     string
				Components int // M, the components fitted
				Training   struct{ RMSE float64 }
			}
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Targets) != 2 {
			t.Fatalf("%s: %v, %d documents:\n%s", cmd[0], err, len(doc.Targets), out)
		}
		for i, target := range []string{"y1", "y2"} {
			one := filepath.Join(dir, cmd[0]+"-"+target+".kpls")
			code, out, stderr := kplsRun(t, append(cmd, "--data", data, "--target", target, "--features", "a,b", "--model", one, "--json")...)
			if code != 0 {
				t.Fatalf("%s %s: exit %d: %s", cmd[0], target, code, stderr)
			}
			var single struct {
				Target     string
				Components int
				Training   struct{ RMSE float64 }
			}
			if err := json.Unmarshal([]byte(out), &single); err != nil {
				t.Fatal(err)
			}
			got := doc.Targets[i]
			if got.Components < 1 || got.Components != single.Components {
				t.Errorf("%s target %d: components %d, alone %d", cmd[0], i, got.Components, single.Components)
			}
			if got.Target != target || math.Abs(got.Training.RMSE-single.Training.RMSE) > 1e-10*math.Max(1, single.Training.RMSE) {
				t.Errorf("%s target %d: %q RMSE %v, alone %q %v", cmd[0], i, got.Target, got.Training.RMSE, single.Target, single.Training.RMSE)
			}
			alone := predictYhat(t, one, query, "yhat")
			joint := predictYhat(t, both, query, target+":yhat")
			for r := range alone {
				if math.Abs(joint[r]-alone[r]) > 1e-10*math.Max(1, math.Abs(alone[r])) {
					t.Errorf("%s %s row %d: %v from the joint file, %v alone", cmd[0], target, r, joint[r], alone[r])
				}
			}
		}
	}
	// The JSON of predict holds one document per target, and compares the
	// target column the file has (y2) and only that one.
	code, out, stderr := kplsRun(t, "predict", "--model", filepath.Join(dir, "fit-both.kpls"), "--data", query, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var pd struct {
		Targets []struct {
			M           *int // the m each target's model predicts with
			Predictions []struct{ Yhat float64 }
			Target      *struct{ Name string }
		}
	}
	if err := json.Unmarshal([]byte(out), &pd); err != nil || len(pd.Targets) != 2 {
		t.Fatalf("%v:\n%s", err, out)
	}
	if pd.Targets[0].M == nil || pd.Targets[1].M == nil || strings.Contains(out, `"components"`) {
		t.Errorf(`every target's document says "m" and none "components":\n%s`, out)
	}
	if pd.Targets[0].Target != nil || pd.Targets[1].Target == nil || pd.Targets[1].Target.Name != "y2" || len(pd.Targets[1].Predictions) != 3 {
		t.Errorf("targets compared: %s", out)
	}
	// The text form has a section per target.
	code, out, _ = kplsRun(t, "predict", "--model", filepath.Join(dir, "fit-both.kpls"), "--data", query)
	if code != 0 || !strings.Contains(out, `target "y1" (1 of 2)`) || !strings.Contains(out, `target "y2" (2 of 2)`) {
		t.Errorf("exit %d:\n%s", code, out)
	}
	// --components above one model's valid count names that target.
	code, _, stderr = kplsRun(t, "predict", "--model", filepath.Join(dir, "fit-both.kpls"), "--data", query, "--components", "50")
	if code != 2 || !strings.Contains(stderr, `of target "y1"`) {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

// TestKeepComponents: --keep-components keeps the saved model to
// components 0..M (at least the chosen m), so that the file is smaller
// and predicts as the whole model does with every m it keeps, and refuses
// more; without --model it is a usage error.
func TestKeepComponents(t *testing.T) {
	data := writeFile(t, "train.csv", smallCSV(80))
	query := writeFile(t, "query.csv", "a,b\n0.1,-1.5\n-0.7,0.25\n")
	dir := t.TempDir()
	all, kept, chosen := filepath.Join(dir, "all.kpls"), filepath.Join(dir, "kept.kpls"), filepath.Join(dir, "chosen.kpls")
	for _, c := range []struct {
		path string
		keep []string
	}{{all, nil}, {kept, []string{"--keep-components", "9"}}, {chosen, []string{"--keep-components", "chosen"}}} {
		args := append([]string{"fit", "--data", data, "--width", "2", "--components", "12", "--criterion", "bic", "--model", c.path}, c.keep...)
		if code, _, stderr := kplsRun(t, args...); code != 0 {
			t.Fatalf("%q: exit %d: %s", c.keep, code, stderr)
		}
	}
	sizes := map[string]int64{}
	for _, p := range []string{all, kept, chosen} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		sizes[p] = fi.Size()
	}
	if !(sizes[chosen] <= sizes[kept] && sizes[kept] < sizes[all]) {
		t.Errorf("file sizes: chosen %d, kept 9 %d, all %d", sizes[chosen], sizes[kept], sizes[all])
	}
	for _, m := range []string{"0", "5", "9"} {
		want := predictYhat(t, all, query, "yhat", "--components", m)
		got := predictYhat(t, kept, query, "yhat", "--components", m)
		for r := range want {
			if math.Float64bits(got[r]) != math.Float64bits(want[r]) {
				t.Errorf("m = %s row %d: kept %v, whole %v", m, r, got[r], want[r])
			}
		}
	}
	want := predictYhat(t, all, query, "yhat")
	got := predictYhat(t, chosen, query, "yhat")
	for r := range want {
		if got[r] != want[r] {
			t.Errorf("chosen m, row %d: kept %v, whole %v", r, got[r], want[r])
		}
	}
	if code, _, stderr := kplsRun(t, "predict", "--model", kept, "--data", query, "--components", "10"); code != 2 || !strings.Contains(stderr, "0..9") {
		t.Errorf("m = 10 of a model kept to 9: exit %d: %s", code, stderr)
	}
	if code, _, stderr := kplsRun(t, "fit", "--data", data, "--keep-components", "3"); code != 2 || !strings.Contains(stderr, "add --model") {
		t.Errorf("without --model: exit %d: %s", code, stderr)
	}
	if code, _, stderr := kplsRun(t, "fit", "--data", data, "--components", "5", "--keep-components", "8", "--model", all); code != 2 || !strings.Contains(stderr, "more than the 5") {
		t.Errorf("more than asked for: exit %d: %s", code, stderr)
	}
}
