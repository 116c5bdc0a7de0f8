package main

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
)

// TestFitWeights: `fit --weights w` on rows with integer weights (zeros
// among them) reports the RSS, DoF and σ̂ of the fit to the rows repeated
// that many times (1e-9), its model predicts what that fit's does, and
// the document counts N and the rows of weight 0; a negative weight is an
// error naming its line and column; select --weights saves fit's model at
// the width and m it chose.
func TestFitWeights(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	var wcsv, rcsv strings.Builder
	wcsv.WriteString("a,b,w,y\n")
	rcsv.WriteString("a,b,y\n")
	var total float64
	zeros := 0
	for range 50 {
		a, b := 4*rng.Float64()-2, 4*rng.Float64()-2
		y := math.Sin(2*a) + 0.5*b + 0.2*rng.NormFloat64()
		w := rng.IntN(4)
		total += float64(w)
		if w == 0 {
			zeros++
		}
		wcsv.WriteString(fmtF(a) + "," + fmtF(b) + "," + fmtF(float64(w)) + "," + fmtF(y) + "\n")
		for range w {
			rcsv.WriteString(fmtF(a) + "," + fmtF(b) + "," + fmtF(y) + "\n")
		}
	}
	weighted := writeFile(t, "weighted.csv", wcsv.String())
	rep := writeFile(t, "repeated.csv", rcsv.String())
	test := writeFile(t, "test.csv", noisyCSV(20, 0.2, 5))
	dir := t.TempDir()
	type fitDoc struct {
		N        int
		Features []string
		Path     []struct{ RSS, DoF, Sigma float64 }
		Weights  *struct {
			Column string
			Total  float64
			Zero   int `json:"zero_rows"`
		}
	}
	fit := func(data, model string, args ...string) fitDoc {
		t.Helper()
		code, out, stderr := kplsRun(t, append([]string{"fit", "--data", data, "--target", "y", "--width", "1", "--components", "4", "--dof", "exact", "--json", "--model", model}, args...)...)
		if code != 0 {
			t.Fatalf("fit %s: exit %d: %s", data, code, stderr)
		}
		var d fitDoc
		if err := json.Unmarshal([]byte(out), &d); err != nil {
			t.Fatal(err)
		}
		return d
	}
	mw, mr := filepath.Join(dir, "w.kpls"), filepath.Join(dir, "r.kpls")
	dw := fit(weighted, mw, "--weights", "w")
	dr := fit(rep, mr)
	if dw.Weights == nil || dw.Weights.Column != "w" || dw.Weights.Total != total || dw.Weights.Zero != zeros || strings.Join(dw.Features, ",") != "a,b" {
		t.Errorf("weights %+v, features %q: want column w, N = %v, %d of weight 0, features a,b", dw.Weights, dw.Features, total, zeros)
	}
	code, out, _ := kplsRun(t, "inspect", "--json", mw)
	var info struct {
		Version int
		Models  []struct {
			WeightTotal float64 `json:"weight_total"`
		}
	}
	if code != 0 || json.Unmarshal([]byte(out), &info) != nil || info.Version != 5 || len(info.Models) != 1 || info.Models[0].WeightTotal != total {
		t.Errorf("inspect of the weighted model: exit %d, %+v, want version 5 and N = %v", code, info, total)
	}
	close := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }
	if len(dr.Path) != 5 || len(dw.Path) != len(dr.Path) {
		t.Fatalf("path rows: weighted %d, repeated %d, want 5 (m = 0..4)", len(dw.Path), len(dr.Path))
	}
	for m := range dr.Path {
		a, b := dw.Path[m], dr.Path[m]
		if !close(a.RSS, b.RSS) || !close(a.DoF, b.DoF) || !close(a.Sigma, b.Sigma) {
			t.Errorf("m=%d: weighted %+v, repeated %+v", m, a, b)
		}
	}
	predict := func(model string) []float64 {
		code, out, stderr := kplsRun(t, "predict", "--model", model, "--data", test, "--json", "--level", "0.9")
		if code != 0 {
			t.Fatalf("predict: exit %d: %s", code, stderr)
		}
		var d struct{ Predictions []struct{ Yhat, SE float64 } }
		if err := json.Unmarshal([]byte(out), &d); err != nil {
			t.Fatal(err)
		}
		var v []float64
		for _, p := range d.Predictions {
			v = append(v, p.Yhat, p.SE)
		}
		return v
	}
	pw, pr := predict(mw), predict(mr)
	for i := range pr {
		if !close(pw[i], pr[i]) {
			t.Errorf("prediction %d: weighted %v, repeated %v", i/2, pw[i], pr[i])
		}
	}
	bad := writeFile(t, "bad.csv", strings.Replace(wcsv.String(), "\n", "\n0.1,0.2,-1,0.3\n", 1))
	if code, _, stderr := kplsRun(t, "fit", "--data", bad, "--target", "y", "--weights", "w"); code == 0 || !strings.Contains(stderr, `line 2, column "w"`) {
		t.Errorf("a negative weight: exit %d: %s", code, stderr)
	}
	// select takes them too: its model is fit's at the chosen width and m.
	ms := filepath.Join(dir, "s.kpls")
	code, out, stderr := kplsRun(t, "select", "--data", weighted, "--target", "y", "--weights", "w", "--kernels", "rbf", "--widths", "0.5,1,2", "--average-within", "0", "--json", "--model", ms)
	if code != 0 {
		t.Fatalf("select --weights: exit %d: %s", code, stderr)
	}
	var sd struct {
		Best struct {
			Width float64
			M     int
		}
		Weights *struct{ Total float64 }
	}
	if err := json.Unmarshal([]byte(out), &sd); err != nil || sd.Weights == nil || sd.Weights.Total != total {
		t.Fatalf("select --weights: %v, weights %+v", err, sd.Weights)
	}
	mf := filepath.Join(dir, "f.kpls")
	fit(weighted, mf, "--weights", "w", "--width", fmtF(sd.Best.Width), "--components", fmtF(float64(max(sd.Best.M, 1))))
	code, o1, _ := kplsRun(t, "predict", "--model", ms, "--data", test, "--json", "--components", fmtF(float64(sd.Best.M)))
	code2, o2, _ := kplsRun(t, "predict", "--model", mf, "--data", test, "--json", "--components", fmtF(float64(sd.Best.M)))
	var p1, p2 struct{ Predictions []struct{ Yhat float64 } }
	if code != 0 || code2 != 0 || json.Unmarshal([]byte(o1), &p1) != nil || json.Unmarshal([]byte(o2), &p2) != nil {
		t.Fatalf("predict: exit %d, %d", code, code2)
	}
	for i := range p1.Predictions {
		if !close(p1.Predictions[i].Yhat, p2.Predictions[i].Yhat) {
			t.Errorf("row %d: select's model %v, fit's %v", i, p1.Predictions[i].Yhat, p2.Predictions[i].Yhat)
		}
	}
}
