package main

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestSelectScreen: --screen ROWS screens the grid on a sample of that
// many rows, the JSON says what it kept and dropped and the table holds
// the kept points only (unweighed, or weighed where the check chose the
// weights); --screen off and the default below 6,144 rows
// leave "screen" out; a bad value is a usage error naming the flag.
func TestSelectScreen(t *testing.T) {
	data := writeFile(t, "d.csv", smallCSV(400))
	code, out, errs := kplsRun(t, "select", "--data", data, "--screen", "120", "--json", "--progress=off")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc selectJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	sc := doc.Screen
	if sc == nil || sc.Rows != 120 || sc.Passes == 0 || len(sc.Kept)+len(sc.Scaled) == 0 || len(sc.Dropped) == 0 {
		t.Fatalf("screen %+v, want 120 rows with points kept and dropped", sc)
	}
	kept := map[string]bool{}
	for _, k := range sc.Kept {
		kept[pointList([]skippedJSON{k})] = true
	}
	for _, k := range sc.Scaled {
		kept[pointList([]skippedJSON{k})+" scaled"] = true
	}
	for _, r := range doc.Table {
		if p := scaledName(pointList([]skippedJSON{{Kernel: r.Kernel, Width: r.Width}}), r.Scaled); !kept[p] {
			t.Fatalf("table row of %s, not a kept point (%v, scaled %v)", p, sc.Kept, sc.Scaled)
		}
	}
	for _, args := range [][]string{{"--screen", "off"}, {}} {
		_, out, _ := kplsRun(t, append([]string{"select", "--data", data, "--json", "--progress=off"}, args...)...)
		if strings.Contains(out, `"screen"`) {
			t.Errorf("%v: the document has a screen", args)
		}
	}
	if code, _, errs := kplsRun(t, "select", "--data", data, "--screen", "some"); code != 2 || !strings.Contains(errs, "--screen") {
		t.Errorf("--screen some: exit %d, %q", code, errs)
	}
}

// noiseCSV are n rows of y = sin(2·signal) + noise with three noise
// features beside the signal.
func noiseCSV(n int) string {
	var b strings.Builder
	b.WriteString("signal,n1,n2,n3,y\n")
	for i := range n {
		s := 4*math.Mod(float64(i)*0.618034, 1) - 2
		n1, n2, n3 := math.Sin(float64(7*i)), math.Cos(float64(11*i)), math.Sin(float64(13*i)+1)
		fmt.Fprintf(&b, "%s,%s,%s,%s,%s\n", fmtF(s), fmtF(n1), fmtF(n2), fmtF(n3), fmtF(math.Sin(2*s)+0.05*math.Sin(float64(17*i))))
	}
	return b.String()
}

// TestSelectRelevance: a screened select learns a weight per feature,
// names them in its JSON and summary, the saved model keeps them, predict
// says so and inspect prints them; --relevance off leaves them out; a bad value is
// a usage error naming the flag.
func TestSelectRelevance(t *testing.T) {
	data := writeFile(t, "d.csv", noiseCSV(900))
	model := filepath.Join(t.TempDir(), "m.kpls")
	code, out, errs := kplsRun(t, "select", "--data", data, "--screen", "300", "--json", "--progress=off", "--model", model)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc selectJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	sc := doc.Screen
	if sc == nil || len(sc.Relevance) != 4 || sc.Relevance[0].Feature != "signal" || sc.Relevance[0].Weight != 1 {
		t.Fatalf("screen %+v: want four weights, signal's 1", sc)
	}
	for _, r := range sc.Relevance[1:] {
		if !(r.Weight < 0.5) {
			t.Errorf("noise feature %s has weight %g", r.Feature, r.Weight)
		}
	}
	if len(sc.Scaled) == 0 || !doc.Best.Scaled {
		t.Fatalf("scaled %v, best %+v: the weighed grid should win here", sc.Scaled, doc.Best)
	}
	if c := sc.Check; c == nil || c.Rows != 300 || !c.Weighed.Scaled || !(c.Weighed.RMSECV < c.Unweighed.RMSECV) || len(sc.Kept) != 0 {
		t.Errorf("check %+v, kept %v: want the weighed point better on 300 other rows, and no unweighed point on all rows", c, sc.Kept)
	}
	if doc.Race == nil || doc.Race.Margin != 0.15 || doc.Race.Stopped == nil {
		t.Errorf("race %+v: want the margin 0.15 and a list of the points stopped", doc.Race)
	}
	_, text, _ := kplsRun(t, "select", "--data", data, "--screen", "300", "--progress=off")
	if !strings.Contains(text, "relevance  learned on the sample: signal 1.00, n1 0.") || !strings.Contains(text, "; checked on 300 other rows, ") || !regexp.MustCompile(`best +\S+ width \S+ scaled, m = `).MatchString(text) {
		t.Errorf("the summary does not show the weights:\n%s", text)
	}
	if _, pred, _ := kplsRun(t, "predict", "--model", model, "--data", data); !regexp.MustCompile(`model .* scaled( \(m = |, m = )`).MatchString(pred) {
		t.Errorf("predict does not say the model weighs its features:\n%s", pred)
	}
	_, info, _ := kplsRun(t, "inspect", model)
	if !strings.Contains(info, "relevance  signal 1.00, n1 ") {
		t.Errorf("inspect does not print the weights:\n%s", info)
	}
	_, off, _ := kplsRun(t, "select", "--data", data, "--screen", "300", "--json", "--progress=off", "--relevance", "OFF")
	if strings.Contains(off, `"relevance"`) || strings.Contains(off, `"scaled"`) {
		t.Errorf("--relevance off: the document has weights")
	}
	if code, _, errs := kplsRun(t, "select", "--data", data, "--relevance", "some"); code != 2 || !strings.Contains(errs, "--relevance") {
		t.Errorf("--relevance some: exit %d, %q", code, errs)
	}
	if _, off, _ := kplsRun(t, "select", "--data", data, "--screen", "300", "--json", "--progress=off", "--race", "off"); strings.Contains(off, `"race"`) {
		t.Errorf("--race off: the document has a race")
	}
	if code, _, errs := kplsRun(t, "select", "--data", data, "--race", "fast"); code != 2 || !strings.Contains(errs, "--race") {
		t.Errorf("--race fast: exit %d, %q", code, errs)
	}
}

// TestFitRelevance: kpls fit --relevance weighs the features as given,
// the saved model keeps the weights (inspect prints them), and a wrong
// count or value is a usage error naming the flag.
func TestFitRelevance(t *testing.T) {
	data := writeFile(t, "d.csv", noiseCSV(200))
	model := filepath.Join(t.TempDir(), "m.kpls")
	if code, _, errs := kplsRun(t, "fit", "--data", data, "--relevance", "1, 0.5,0.25,0.125", "--model", model); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if _, info, _ := kplsRun(t, "inspect", model); !strings.Contains(info, "relevance  signal 1.00, n1 0.50, n2 0.25, n3 0.12") {
		t.Errorf("inspect:\n%s", info)
	}
	for _, bad := range []string{"1,0.5", "1,0,1,1", "1,x,1,1"} {
		if code, _, errs := kplsRun(t, "fit", "--data", data, "--relevance", bad); code != 2 || !strings.Contains(errs, "--relevance") {
			t.Errorf("--relevance %s: exit %d, %q", bad, code, errs)
		}
	}
}

// TestSelectRelevanceSmall: below a screen's rows the default select
// learns the weights with a Gaussian process and searches the grid again
// with them: the JSON's weighed object names them, both searches' rows
// are in the table, and the summary says which search won; --relevance
// off searches once, unweighed.
func TestSelectRelevanceSmall(t *testing.T) {
	data := writeFile(t, "d.csv", noiseCSV(240))
	code, out, errs := kplsRun(t, "select", "--data", data, "--json", "--progress=off")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc selectJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	ws := doc.Weighed
	if ws == nil || ws.Rows != 240 || len(ws.Relevance) != 4 || ws.Relevance[0].Feature != "signal" || ws.Relevance[0].Weight != 1 {
		t.Fatalf("weighed %+v: want four weights learned on 240 rows, signal's 1", ws)
	}
	for _, r := range ws.Relevance[1:] {
		if !(r.Weight < 0.5) {
			t.Errorf("noise feature %s has weight %g", r.Feature, r.Weight)
		}
	}
	if !ws.Chosen || !ws.Weighed.Scaled || ws.Unweighed.Scaled || !(float64(ws.Weighed.RMSECV) < float64(ws.Unweighed.RMSECV)) || !doc.Best.Scaled {
		t.Errorf("weighed %+v, best %+v: want the weighed search chosen for its smaller RMSECV", ws, doc.Best)
	}
	scaled := 0
	for _, r := range doc.Table {
		if r.Scaled {
			scaled++
		}
	}
	if scaled == 0 || scaled == len(doc.Table) {
		t.Errorf("%d of %d table rows scaled: want both searches' rows", scaled, len(doc.Table))
	}
	_, text, _ := kplsRun(t, "select", "--data", data, "--progress=off")
	if !strings.Contains(text, "relevance  learned by a Gaussian process with a length scale per feature on 240 rows (a weight follows how fast y varies along the feature, not how much of y it explains): signal 1.00, ") || !strings.Contains(text, "so the best point is weighed") {
		t.Errorf("summary:\n%s", text)
	}
	code, out, errs = kplsRun(t, "select", "--data", data, "--json", "--progress=off", "--relevance", "off")
	if code != 0 || strings.Contains(out, `"weighed"`) || strings.Contains(out, `"scaled"`) {
		t.Errorf("--relevance off: exit %d, %s\n%s", code, errs, out)
	}
}

// TestRelevanceBrief: the summary lists every weight of up to ten
// features in their order, and of more the eight heaviest above the
// least weight, heaviest first, and the range of the rest.
func TestRelevanceBrief(t *testing.T) {
	var rs []relevanceJSON
	for j := range 12 {
		rs = append(rs, relevanceJSON{Feature: fmt.Sprintf("f%d", j), Weight: float64(j%6+1) / 6})
	}
	want := "f5 1.00, f11 1.00, f4 0.83, f10 0.83, f3 0.67, f9 0.67, f2 0.50, f8 0.50 and 4 more from 0.17 to 0.33 (--json lists every weight)"
	if got := relevanceBrief(rs); got != want {
		t.Errorf("twelve features:\n got %s\nwant %s", got, want)
	}
	floor := []relevanceJSON{{"a", 0.01}, {"b", 1}, {"c", 0.01}, {"d", 0.6}}
	for range 10 {
		floor = append(floor, relevanceJSON{"e", 0.01})
	}
	if got, want := relevanceBrief(floor), "b 1.00, d 0.60 and 12 more at 0.01 (--json lists every weight)"; got != want {
		t.Errorf("most at the floor:\n got %s\nwant %s", got, want)
	}
	alike := append(slices.Clone(floor[4:]), floor[0], floor[2])
	if got, want := relevanceBrief(alike), "all 12 at 0.01 (--json lists every weight)"; got != want {
		t.Errorf("every weight alike: got %s, want %s", got, want)
	}
	if got, want := relevanceBrief(rs[:3]), "f0 0.17, f1 0.33, f2 0.50"; got != want {
		t.Errorf("three features: got %s, want %s", got, want)
	}
}

// TestSelectMeanMixesSummary: where a small set's stacked mean takes
// points of both searches, the summary's relevance line says how many of
// its members weigh their features, as the JSON's members do.
func TestSelectMeanMixesSummary(t *testing.T) {
	var b strings.Builder
	b.WriteString("a,b,c,y\n")
	rng := rand.New(rand.NewPCG(5, 2))
	for range 120 {
		var y float64
		var row []string
		for j := range 3 {
			v := rng.NormFloat64()
			row = append(row, fmtF(v))
			y += float64(j+1) * v * math.Sin(float64(j)+v) // every feature matters
		}
		fmt.Fprintf(&b, "%s,%s\n", strings.Join(row, ","), fmtF(y+0.5*rng.NormFloat64()))
	}
	data := writeFile(t, "d.csv", b.String())
	args := []string{"select", "--data", data, "--progress=off", "--seed", "6", "--widths", "0.5,1.5,4,12", "--max-components", "8", "--average-within", "0.25"}
	code, out, errs := kplsRun(t, append(args, "--json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc selectJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Weighed == nil || doc.Average == nil {
		t.Fatalf("weighed %v, average %v: want both", doc.Weighed, doc.Average)
	}
	scaled := 0
	for _, m := range doc.Average.Members {
		if m.Scaled {
			scaled++
		}
	}
	n := len(doc.Average.Members)
	if scaled == 0 || scaled == n {
		t.Fatalf("%d of %d members weighed: the test needs a mean of both searches' points", scaled, n)
	}
	_, text, _ := kplsRun(t, args...)
	if want := fmt.Sprintf(", and the mean takes points of both searches (%d of %d weighed) (--relevance off", scaled, n); !strings.Contains(text, want) {
		t.Errorf("summary lacks %q:\n%s", want, text)
	}
}
