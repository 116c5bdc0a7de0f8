package main

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kpls-go/kpls/kpls"
)

// selectAverageDoc is the part of `select --json` the average test reads.
type selectAverageDoc struct {
	N         int
	DoFMethod string `json:"dof_method"`
	Best      struct {
		Kernel string
		Width  float64
		M      int
		Score  float64
		DoF    float64
	}
	Choices []struct {
		Kernel string
		Width  float64
		RMSECV float64
	}
	Average *struct {
		Within  float64
		By      string
		Members []struct {
			Kernel string
			Width  float64
			M      int
			RMSECV float64
			Weight *float64
		}
		RSS        float64
		DoF, Sigma *float64
		Training   struct{ RMSE float64 }
	}
}

// predictDoc is the part of `predict --json` the average test reads.
type predictDoc struct {
	M         *int // left out for a mean
	Intervals bool
	Mean      []struct {
		Kernel string
		Width  float64
		M      int
	}
	Predictions []struct{ Yhat, SE, Lower, Upper float64 }
	Target      struct{ Coverage float64 }
	Warnings    []kpls.Warning
	Noise       *struct {
		S     float64
		Sigma *float64
		From  string
	}
}

// TestSelectAverageWithin: `select --average-within` saves the mean of
// the grid points within the margin of the best RMSECV that stacking
// weighs (each with its weight; --average-by all: every one), the best
// first;
// `predict` on that file gives the mean of what `fit` + `predict` give at
// each member's width and m (1e-9), its 95 % prediction intervals cover
// 92–98 % of 3,000 fresh observations of known noise, and it refuses
// --components; the flag is a usage error below 0 or without cv.
func TestSelectAverageWithin(t *testing.T) {
	dir := t.TempDir()
	train := writeFile(t, "train.csv", noisyCSV(300, 0.3, 11))
	test := writeFile(t, "test.csv", noisyCSV(3000, 0.3, 12))
	model := filepath.Join(dir, "mean.kpls")
	code, out, stderr := kplsRun(t, "select", "--data", train, "--kernels", "rbf", "--widths", "0.25,0.5,1,2,4", "--average-within", "0.5", "--relevance", "off", "--json", "--model", model)
	if code != 0 {
		t.Fatalf("select: exit %d: %s", code, stderr)
	}
	var sel selectAverageDoc
	if err := json.Unmarshal([]byte(out), &sel); err != nil {
		t.Fatal(err)
	}
	a := sel.Average
	if a == nil || len(a.Members) < 2 {
		t.Fatalf("no mean of several models: %s", out)
	}
	if b := a.Members[0]; b.Width != sel.Best.Width || b.M != sel.Best.M {
		t.Errorf("first member %+v, the best %+v", b, sel.Best)
	}
	// Without --dof the members, the best included, are fitted without
	// DoF; --dof approx fits the best with them, and chooses the same.
	if sel.DoFMethod != "none" || sel.Best.DoF != float64(sel.Best.M+1) {
		t.Errorf("without --dof: the best's DoF %v by %q, want the naive m + 1 by none", sel.Best.DoF, sel.DoFMethod)
	}
	code, out2, stderr := kplsRun(t, "select", "--data", train, "--kernels", "rbf", "--widths", "0.25,0.5,1,2,4", "--average-within", "0.5", "--relevance", "off", "--json", "--dof", "approx")
	if code != 0 {
		t.Fatalf("select --dof approx: exit %d: %s", code, stderr)
	}
	var withDoF selectAverageDoc
	if err := json.Unmarshal([]byte(out2), &withDoF); err != nil {
		t.Fatal(err)
	}
	if withDoF.DoFMethod != "approx" || withDoF.Best.M != sel.Best.M || withDoF.Best.Width != sel.Best.Width || withDoF.Best.DoF == float64(sel.Best.M+1) {
		t.Errorf("--dof approx: the best %+v by %q, want %+v with its approximate DoF", withDoF.Best, withDoF.DoFMethod, sel.Best)
	}
	// By default the members are the points within the margin that
	// stacking weighs, each with its weight; --average-by all takes every
	// point within the margin.
	var weight float64
	for _, m := range a.Members {
		if !(m.RMSECV <= 1.5*sel.Best.Score) {
			t.Errorf("member %+v outside the margin of %v", m, sel.Best.Score)
		}
		if m.Weight == nil || !(*m.Weight >= 0) {
			t.Errorf("member %+v: stacking weight %v", m, m.Weight)
		} else {
			weight += *m.Weight
		}
	}
	if a.By != "stacked" || !(weight <= 1+1e-12) {
		t.Errorf("the default mean: by %q, weights summing to %v", a.By, weight)
	}
	code, outAll, stderr := kplsRun(t, "select", "--data", train, "--kernels", "rbf", "--widths", "0.25,0.5,1,2,4", "--average-within", "0.5", "--average-by", "all", "--relevance", "off", "--json")
	if code != 0 {
		t.Fatalf("select --average-by all: exit %d: %s", code, stderr)
	}
	var all selectAverageDoc
	if err := json.Unmarshal([]byte(outAll), &all); err != nil {
		t.Fatal(err)
	}
	within := 0
	for _, c := range all.Choices {
		if c.RMSECV <= 1.5*all.Best.Score {
			within++
		}
	}
	if all.Average == nil || all.Average.By != "all" || len(all.Average.Members) != within || within <= len(a.Members) {
		t.Errorf("--average-by all: %d members of %d points within the margin (stacked: %d)", len(all.Average.Members), within, len(a.Members))
	}
	if e := math.Abs(a.Training.RMSE - math.Sqrt(a.RSS/float64(sel.N))); e > 1e-12*a.Training.RMSE {
		t.Errorf("training RMSE %v, √(RSS/n) %v", a.Training.RMSE, math.Sqrt(a.RSS/float64(sel.N)))
	}

	predict := func(model string, args ...string) predictDoc {
		t.Helper()
		code, out, stderr := kplsRun(t, append([]string{"predict", "--model", model, "--data", test, "--json"}, args...)...)
		if code != 0 {
			t.Fatalf("predict %q: exit %d: %s", args, code, stderr)
		}
		var d predictDoc
		if err := json.Unmarshal([]byte(out), &d); err != nil {
			t.Fatal(err)
		}
		return d
	}
	code, out, _ = kplsRun(t, "inspect", "--json", model)
	var info struct{ Means []int }
	if code != 0 || json.Unmarshal([]byte(out), &info) != nil || len(info.Means) != 1 || info.Means[0] != len(a.Members) {
		t.Errorf("inspect: exit %d, means %v, want [%d]", code, info.Means, len(a.Members))
	}
	got := predict(model)
	if len(got.Mean) != len(a.Members) {
		t.Fatalf("predict reports %d members, select saved %d", len(got.Mean), len(a.Members))
	}
	if got.M != nil {
		t.Errorf(`predict reports "m": %d for a mean of %d models, which has no one m`, *got.M, len(a.Members))
	}
	want := make([]float64, len(got.Predictions))
	for i, m := range a.Members {
		if got.Mean[i].Width != m.Width || got.Mean[i].M != m.M {
			t.Errorf("member %d: predict %+v, select %+v", i, got.Mean[i], m)
		}
		one := filepath.Join(dir, "one.kpls")
		if code, _, stderr := kplsRun(t, "fit", "--data", train, "--width", strconv.FormatFloat(m.Width, 'g', -1, 64), "--components", strconv.Itoa(m.M), "--dof", "none", "--model", one); code != 0 {
			t.Fatalf("fit: exit %d: %s", code, stderr)
		}
		p := predict(one, "--components", strconv.Itoa(m.M))
		if p.M == nil || *p.M != m.M || p.Mean != nil {
			t.Errorf(`predict --components %d on one model: "m" %v, "mean" %v`, m.M, p.M, p.Mean)
		}
		for j, v := range p.Predictions {
			want[j] += v.Yhat / float64(len(a.Members))
		}
	}
	for j, v := range got.Predictions {
		if math.Abs(v.Yhat-want[j]) > 1e-9*math.Max(1, math.Abs(want[j])) {
			t.Fatalf("row %d: the mean predicts %v, the mean of fits %v", j, v.Yhat, want[j])
		}
	}

	iv := predict(model, "--intervals", "--level", "0.95")
	if c := iv.Target.Coverage; !iv.Intervals || c < 0.92 || c > 0.98 {
		t.Errorf("95 %% intervals of the mean cover %.3f of fresh observations", c)
	}
	// The mean's other members are fitted without DoF, so its DoF and σ̂
	// are not known (null); its bands and intervals take s, the members'
	// root mean RMSECV², as select reported them: the intervals add s² to
	// the band's variance.
	if a.DoF != nil || a.Sigma != nil {
		t.Errorf("the mean's DoF %v and σ̂ %v, want null", a.DoF, a.Sigma)
	}
	var cv2 float64
	for _, m := range a.Members {
		cv2 += m.RMSECV * m.RMSECV / float64(len(a.Members))
	}
	s := math.Sqrt(cv2)
	if n := iv.Noise; n == nil || n.From != "rmsecv" || math.Abs(n.S-s) > 1e-12*s || n.Sigma != nil {
		t.Errorf("intervals' noise %+v, want s = %v from rmsecv (σ̂ null)", iv.Noise, s)
	}
	bd := predict(model, "--bands", "--level", "0.95")
	for i, v := range iv.Predictions {
		if want := math.Sqrt(bd.Predictions[i].SE*bd.Predictions[i].SE + s*s); math.Abs(v.SE-want) > 1e-12*want {
			t.Fatalf("row %d: interval se %v, want √(band se² + s²) = %v", i, v.SE, want)
		}
	}
	if n := bd.Noise; n == nil || *n != *iv.Noise {
		t.Errorf("bands' noise level %+v, want the intervals' %+v", bd.Noise, iv.Noise)
	}
	// Bands there are, though the mean's σ̂ is unknown: no warning says
	// otherwise.
	for _, w := range bd.Warnings {
		if strings.Contains(w.Message, "unknown") {
			t.Errorf("bands of the mean warn: %s", w)
		}
	}
	for i, v := range bd.Predictions {
		if !(v.SE > 0) {
			t.Fatalf("row %d: band se %v", i, v.SE)
		}
	}
	if code, _, stderr := kplsRun(t, "predict", "--model", model, "--data", test, "--components", "2"); code != 2 || !strings.Contains(stderr, "mean of") {
		t.Errorf("--components on a mean: exit %d: %s", code, stderr)
	}
	// The default margin is 0.1, for cross-validation only; 0 saves the
	// best point's model alone. A file from cross-validation records each
	// choice's RMSECV (version 6), one from GCV is plain (version 4).
	for _, c := range []struct {
		args  []string
		mean  bool
		magic uint32
	}{{nil, true, 6}, {[]string{"--average-within", "0"}, false, 6}, {[]string{"--criterion", "gcv"}, false, 4}} {
		file := filepath.Join(dir, "default.kpls")
		code, out, stderr := kplsRun(t, append([]string{"select", "--data", train, "--kernels", "rbf", "--widths", "0.25,0.5,1,2,4", "--relevance", "off", "--json", "--model", file}, c.args...)...)
		if code != 0 {
			t.Fatalf("%q: exit %d: %s", c.args, code, stderr)
		}
		var doc selectAverageDoc
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		if (doc.Average != nil) != c.mean || c.mean && (doc.Average.Within != 0.1 || doc.Average.By != "stacked") {
			t.Errorf("%q: average %+v", c.args, doc.Average)
		}
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		want := c.magic
		if v := binary.LittleEndian.Uint32(b[8:12]); v != want {
			t.Errorf("%q: a file of version %d, want %d", c.args, v, want)
		}
	}
	// --folds above the rows and --max-components below 0 are the library's to refuse; its errors name the flag.
	for _, args := range [][]string{{"--average-within", "-0.1"}, {"--average-within", "0.05", "--criterion", "gcv"}, {"--average-by", "best"}, {"--folds", "1"}, {"--folds", "0"}, {"--folds", "100000"}, {"--max-components", "-1"}, {"--average-within", "-1", "--criterion", "gcv"}} {
		if code, _, stderr := kplsRun(t, append([]string{"select", "--data", train}, args...)...); code != 2 || !strings.Contains(stderr, args[0]) {
			t.Errorf("%q: exit %d: %s", args, code, stderr)
		}
	}
}
