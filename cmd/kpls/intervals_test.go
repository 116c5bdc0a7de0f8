package main

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
)

// noisyCSV draws n rows of y = sin(2a) + 0.5b + ε, ε ~ N(0, sd²), with a
// and b uniform on (−2, 2).
func noisyCSV(n int, sd float64, seed uint64) string {
	rng := rand.New(rand.NewPCG(seed, 7))
	var b strings.Builder
	b.WriteString("a,b,y\n")
	for range n {
		a, bb := 4*rng.Float64()-2, 4*rng.Float64()-2
		y := math.Sin(2*a) + 0.5*bb + sd*rng.NormFloat64()
		b.WriteString(fmtF(a) + "," + fmtF(bb) + "," + fmtF(y) + "\n")
	}
	return b.String()
}

// TestPredictIntervalsCoverage: on data with known Gaussian noise, 95 %
// prediction intervals from `predict --intervals` cover 92–98 % of 3,000
// fresh observations (the oracle is the noise we drew: a binomial
// standard error of 0.4 %, so the band leaves room for the fit's own
// error), while the confidence bands for f(x) of the same model cover far
// fewer of them; the interval's se² is the band's plus σ̂² of the m used,
// read from fit's own table.
func TestPredictIntervalsCoverage(t *testing.T) {
	const sd = 0.3
	train := writeFile(t, "train.csv", noisyCSV(400, sd, 1))
	test := writeFile(t, "test.csv", noisyCSV(3000, sd, 2))
	model := filepath.Join(t.TempDir(), "m.kpls")
	code, out, stderr := kplsRun(t, "fit", "--data", train, "--width", "1", "--components", "12", "--json", "--model", model)
	if code != 0 {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	var fit struct {
		Selected struct{ M int }
		Path     []struct{ Sigma float64 }
	}
	if err := json.Unmarshal([]byte(out), &fit); err != nil {
		t.Fatal(err)
	}
	type doc struct {
		Bands, Intervals bool
		Predictions      []struct{ Yhat, SE, Lower, Upper float64 }
		Target           struct{ Coverage float64 }
	}
	run := func(kind string) doc {
		code, out, stderr := kplsRun(t, "predict", "--model", model, "--data", test, kind, "--level", "0.95", "--json")
		if code != 0 {
			t.Fatalf("predict %s: exit %d: %s", kind, code, stderr)
		}
		var d doc
		if err := json.Unmarshal([]byte(out), &d); err != nil {
			t.Fatal(err)
		}
		return d
	}
	iv, bd := run("--intervals"), run("--bands")
	if !iv.Intervals || iv.Bands || bd.Intervals || !bd.Bands {
		t.Errorf("flags in the documents: intervals %v/%v, bands %v/%v", iv.Intervals, iv.Bands, bd.Intervals, bd.Bands)
	}
	t.Logf("coverage: intervals %.4f, bands %.4f", iv.Target.Coverage, bd.Target.Coverage)
	if c := iv.Target.Coverage; c < 0.92 || c > 0.98 {
		t.Errorf("95 %% intervals cover %.3f of new observations, want 0.92–0.98", c)
	}
	if c := bd.Target.Coverage; c > iv.Target.Coverage-0.2 {
		t.Errorf("bands for f(x) cover %.3f of new observations, intervals %.3f: bands should cover far fewer", c, iv.Target.Coverage)
	}
	s := fit.Path[fit.Selected.M].Sigma
	if math.Abs(s-sd) > 0.15*sd {
		t.Errorf("σ̂ = %v at the chosen m = %d, the noise sd is %v", s, fit.Selected.M, sd)
	}
	for i, p := range iv.Predictions {
		b := bd.Predictions[i]
		want := math.Sqrt(b.SE*b.SE + s*s)
		if p.Yhat != b.Yhat || math.Abs(p.SE-want) > 1e-12*want {
			t.Fatalf("row %d: interval %+v, band %+v, σ̂ %v", i, p, b, s)
		}
	}
	if code, _, stderr := kplsRun(t, "predict", "--model", model, "--data", test, "--bands", "--intervals"); code != 2 || !strings.Contains(stderr, "give one") {
		t.Errorf("--bands --intervals: exit %d: %s", code, stderr)
	}
}
