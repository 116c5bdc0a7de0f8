package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kpls-go/kpls/cmd/cli"
)

// kplsStdin runs the command with stdin reading in.
func kplsStdin(t *testing.T, in string, args ...string) (int, string, string) {
	t.Helper()
	return kplsRunIn(t, strings.NewReader(in), args...)
}

func gzipFile(t *testing.T, name, content string) string {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(content))
	zw.Close()
	return writeFile(t, name, b.String())
}

func fitJSONDoc(t *testing.T, args ...string) (fitJSON, string) {
	t.Helper()
	code, out, stderr := kplsRun(t, append([]string{"fit", "--components", "3", "--dof", "none", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("fit %q: exit %d: %s", args, code, stderr)
	}
	var doc fitJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return doc, stderr
}

func TestInputFormats(t *testing.T) {
	csv := smallCSV(30)
	semi := strings.ReplaceAll(csv, ",", ";")
	tab := strings.ReplaceAll(csv, ",", "\t")
	noHeader := csv[strings.Index(csv, "\n")+1:]
	want, _ := fitJSONDoc(t, "--data", writeFile(t, "s.csv", csv))
	for _, c := range []struct {
		name string
		args []string
	}{
		{"semicolon detected", []string{"--data", writeFile(t, "s.csv", semi)}},
		{"semicolon flag", []string{"--data", writeFile(t, "s.csv", semi), "--delimiter", "semicolon"}},
		{"tab detected", []string{"--data", writeFile(t, "s.tsv", tab)}},
		{"gzip", []string{"--data", gzipFile(t, "s.csv.gz", csv)}},
		{"no header", []string{"--data", writeFile(t, "s.csv", noHeader), "--no-header"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			doc, _ := fitJSONDoc(t, c.args...)
			if doc.N != 30 || doc.D != 2 || doc.Path[1].RSS != want.Path[1].RSS {
				t.Errorf("n %d d %d rss %v, want %v", doc.N, doc.D, doc.Path[1].RSS, want.Path[1].RSS)
			}
		})
	}
	code, out, stderr := kplsRunIn(t, strings.NewReader(csv), "fit", "--components", "3", "--dof", "none", "--json", "--data", "-")
	var doc fitJSON
	if err := json.Unmarshal([]byte(out), &doc); code != 0 || err != nil {
		t.Fatalf("stdin: exit %d, %v: %s", code, err, stderr)
	}
	if doc.N != 30 || doc.Path[1].RSS != want.Path[1].RSS {
		t.Errorf("stdin: %+v", doc)
	}
	doc, _ = fitJSONDoc(t, "--data", writeFile(t, "s.csv", noHeader), "--no-header")
	if doc.Target != "y" || strings.Join(doc.Features, ",") != "x1,x2" {
		t.Errorf("no header names: %q %q", doc.Target, doc.Features)
	}
}

func TestColumnChoice(t *testing.T) {
	// id and a text column, the target first (as in protein).
	var b strings.Builder
	b.WriteString("y,id,a,note,b\n")
	for i, line := range strings.Split(strings.TrimSpace(smallCSV(30)), "\n")[1:] {
		f := strings.Split(line, ",")
		b.WriteString(strings.Join([]string{f[2], "r" + fmtF(float64(i)), f[0], "text " + fmtF(float64(i)), f[1]}, ",") + "\n")
	}
	p := writeFile(t, "cols.csv", b.String())
	doc, stderr := fitJSONDoc(t, "--data", p, "--target", "y", "--id", "id", "--drop", "note")
	if strings.Join(doc.Features, ",") != "a,b" || doc.Target != "y" || strings.Contains(stderr, "no --target") {
		t.Errorf("features %q target %q; stderr %s", doc.Features, doc.Target, stderr)
	}
	doc2, _ := fitJSONDoc(t, "--data", p, "--target", "y", "--features", "b,a")
	if strings.Join(doc2.Features, ",") != "b,a" {
		t.Errorf("features %q", doc2.Features)
	}
	// Without --target the last usable column is taken, and named.
	doc3, stderr := fitJSONDoc(t, "--data", p, "--features", "a,y")
	if doc3.Target != "b" || !strings.Contains(stderr, `no --target given: the target is column "b"`) {
		t.Errorf("target %q, stderr %s", doc3.Target, stderr)
	}
	for _, c := range []struct {
		args []string
		want string
		code int
	}{
		{[]string{"--target", "y", "--id", "id"}, `line 2, column "note": not a number: "text 0"`, 1},
		{[]string{"--target", "note", "--id", "id"}, `line 2, column "note": not a number: "text 0"; a target must be numeric`, 1},
		{[]string{"--target", "y", "--features", "a,zz"}, `column "zz": unknown column`, 1},
		{[]string{"--target", "y", "--features", "a,,b"}, "--features: empty column name", 2},
		{[]string{"--target", "y", "--features", "a,a"}, `"a" given twice`, 2},
		{[]string{"--target", "y", "--features", "a,y"}, `--features: "y" is the target`, 2},
		{[]string{"--target", "y", "--features", "a", "--drop", "b"}, "--features and --drop", 2},
		{[]string{"--target", "id", "--id", "id"}, "also the target", 2},
		{[]string{"--target", "y", "--id", "nope", "--drop", "note"}, `column "nope": unknown column`, 1},
		{[]string{"--target", "y", "--drop", "note,id", "--delimiter", "pipe"}, "--delimiter", 2},
	} {
		code, _, stderr := kplsRun(t, append([]string{"fit", "--data", p, "--components", "2", "--dof", "none"}, c.args...)...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit %d, stderr %s; want %d and %q", c.args, code, stderr, c.code, c.want)
		}
	}
}

func TestInputErrors(t *testing.T) {
	csv := smallCSV(20)
	noHeader := csv[strings.Index(csv, "\n")+1:]
	lines := strings.Split(csv, "\n")
	lines[3] = "," + strings.SplitN(lines[3], ",", 2)[1] // empty a on line 4
	lines[6] = strings.SplitN(lines[6], ",", 2)[0] + ",NA," + strings.Split(lines[6], ",")[2]
	missing := strings.Join(lines, "\n")
	pm := writeFile(t, "miss.csv", missing)
	for _, c := range []struct {
		name string
		args []string
		want string
		code int
	}{
		{"numeric header", []string{"fit", "--data", writeFile(t, "nh.csv", noHeader)}, "line 1: the header line holds numbers", 1},
		{"numeric header hint", []string{"fit", "--data", writeFile(t, "nh.csv", noHeader)}, "--no-header", 1},
		{"missing", []string{"fit", "--data", pm}, `miss.csv: line 4, column "a": missing value (empty cell); give --drop-missing`, 1},
		{"semicolon with decimal commas", []string{"fit", "--data", writeFile(t, "dc.csv", "a;y\n1,5;2\n2,5;3\n3,5;4\n")}, "decimal commas", 1},
		{"gzip header only", []string{"fit", "--data", gzipFile(t, "h.csv.gz", "a,y\n")}, "header but no data rows", 1},
		{"corrupt gzip", []string{"fit", "--data", writeFile(t, "c.csv.gz", "\x1f\x8b\x08\x00garbage")}, "c.csv.gz", 1},
		{"ragged semicolon", []string{"fit", "--data", writeFile(t, "r.csv", "a;b;y\n1;2;3\n1;2\n4;5;6\n")}, "line 3", 1},
		{"lanczos below components", []string{"fit", "--data", pm, "--lanczos", "3", "--components", "10", "--drop-missing"}, "--lanczos: 3 steps for 10 components", 2},
		{"lanczos below default components", []string{"fit", "--data", pm, "--lanczos", "3", "--drop-missing"}, "--lanczos: 3 steps for 17 components", 2},
		{"lanczos with exact", []string{"fit", "--data", pm, "--lanczos", "30", "--dof", "exact"}, "uses no Lanczos steps", 2},
		{"widths empty entry", []string{"select", "--data", pm, "--widths", "1,,2"}, "entry 2 of \"1,,2\" is empty", 2},
		{"widths duplicate", []string{"select", "--data", pm, "--widths", "0.5,0.5"}, "repeats entry 1", 2},
		{"widths empty", []string{"select", "--data", pm, "--widths", ""}, "no widths", 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, stderr := kplsRun(t, c.args...)
			if code != c.code || !strings.Contains(stderr, c.want) || out != "" {
				t.Errorf("exit %d, stderr %s; want %d and %q", code, stderr, c.code, c.want)
			}
		})
	}
	// --lanczos beyond n−1 is capped, and says so; at the linear kernel's
	// d = 2 components, --lanczos 5 is fine.
	code, _, stderr := kplsRun(t, "fit", "--data", writeFile(t, "s.csv", csv), "--lanczos", "50")
	if code != 0 || !strings.Contains(stderr, "warning: --lanczos 50: the data allow at most 19 steps (n = 20, d = 2); 19 are used") {
		t.Errorf("lanczos cap: exit %d, %s", code, stderr)
	}
	if code, _, stderr := kplsRun(t, "fit", "--data", writeFile(t, "s.csv", csv), "--kernel", "linear", "--lanczos", "5"); code != 0 {
		t.Errorf("linear --lanczos 5: exit %d, %s", code, stderr)
	}
	doc, stderr := fitJSONDoc(t, "--data", pm, "--drop-missing")
	if doc.N != 18 || !strings.Contains(stderr, "dropped 2 of 20 rows with missing values (lines 4, 7)") {
		t.Errorf("n %d, stderr %s", doc.N, stderr)
	}
}

// TestPredictOutputs covers the ID column, formats, bands on request,
// target metrics and the extrapolation flag.
func TestPredictOutputs(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.json")
	if code, _, stderr := kplsRun(t, "fit", "--data", writeFile(t, "train.csv", smallCSV(40)), "--width", "2", "--components", "4", "--model", model); code != 0 {
		t.Fatal(stderr)
	}
	// An ID column and a comment column the model does not use, the
	// target, and one point far outside.
	pred := writeFile(t, "p.csv", "name,b,a,comment,y\np1,0.1,-1.5,hello,-0.9\np2,-0.7,0.25,,0.1\nfar,1e6,1e6,x,0\n")
	code, out, stderr := kplsRun(t, "predict", "--model", model, "--data", pred, "--id", "name", "--json")
	if code != 0 {
		t.Fatal(stderr)
	}
	var doc predictJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if doc.Bands || doc.Level != nil || len(doc.Predictions) != 3 || doc.Predictions[0].SE != nil {
		t.Errorf("bands without asking: %s", out)
	}
	if doc.Predictions[2].ID != "far" || !doc.Predictions[2].Outside || doc.Predictions[0].Outside || doc.Extrapolation.Outside != 1 {
		t.Errorf("outside flags: %s", out)
	}
	if !strings.Contains(stderr, `1 of 3 points lie outside the training data's reach`) || !strings.Contains(stderr, `id "far"`) {
		t.Errorf("no extrapolation warning: %s", stderr)
	}
	if doc.Target == nil || doc.Target.Name != "y" || doc.Target.Coverage != nil || doc.Target.RMSE <= 0 {
		t.Errorf("target: %+v", doc.Target)
	}

	// Bands when asked, coverage then reported.
	code, out, _ = kplsRun(t, "predict", "--model", model, "--data", pred, "--id", "name", "--level", "0.9", "--json")
	doc = predictJSON{}
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil || !doc.Bands || *doc.Level != 0.9 || doc.Predictions[0].SE == nil || doc.Target.Coverage == nil {
		t.Errorf("with --level: %s", out)
	}

	// CSV to a file, with bands.
	outCSV := filepath.Join(dir, "out.csv")
	code, out, stderr = kplsRun(t, "predict", "--model", model, "--data", pred, "--id", "name", "--bands", "--output", outCSV)
	if code != 0 || !strings.Contains(out, "written to "+outCSV) || !strings.Contains(out, "R²") {
		t.Fatalf("exit %d: %s %s", code, out, stderr)
	}
	b, _ := os.ReadFile(outCSV)
	got := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(got) != 4 || got[0] != "name,yhat,se,lower,upper,outside,y" || !strings.HasPrefix(got[3], "far,") || !strings.Contains(got[3], ",true,") {
		t.Errorf("csv:\n%s", b)
	}
	// CSV on stdout without bands.
	code, out, _ = kplsRun(t, "predict", "--model", model, "--data", pred, "--format", "csv")
	if lines := strings.Split(strings.TrimSpace(out), "\n"); code != 0 || lines[0] != "row,yhat,outside,y" || len(lines) != 4 {
		t.Errorf("csv stdout:\n%s", out)
	}
	// Table shows the flag.
	code, out, _ = kplsRun(t, "predict", "--model", model, "--data", pred)
	if code != 0 || !strings.Contains(out, "! outside") || strings.Contains(out, "lower") {
		t.Errorf("table:\n%s", out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--format", "xml"}, "--format"},
		{[]string{"--format", "csv", "--json"}, "disagree"},
		{[]string{"--no-intercept-variance"}, "--bands"},
		{[]string{"--features", "a"}, "features"},
	} {
		code, _, stderr := kplsRun(t, append([]string{"predict", "--model", model, "--data", pred}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit %d %s", c.args, code, stderr)
		}
	}
	// A missing feature value names the cell; --drop-missing drops it.
	miss := writeFile(t, "m.csv", "a,b\n1,\n2,3\n")
	if code, _, stderr := kplsRun(t, "predict", "--model", model, "--data", miss); code != 1 || !strings.Contains(stderr, `m.csv: line 2, column "b": missing value`) {
		t.Errorf("missing: %d %s", code, stderr)
	}
	if code, out, stderr := kplsRun(t, "predict", "--model", model, "--data", miss, "--drop-missing", "--format", "csv"); code != 0 || strings.Count(out, "\n") != 2 || !strings.Contains(stderr, "dropped 1") {
		t.Errorf("drop: %d %s %s", code, out, stderr)
	}
	// Standard input.
	if code, out, stderr := kplsStdin(t, "a,b\n1,2\n", "predict", "--model", model, "--data", "-", "--format", "csv"); code != 0 || !strings.HasPrefix(out, "row,yhat") {
		t.Errorf("stdin: %d %s %s", code, out, stderr)
	}
}

// TestPredictWithoutBands: without --bands or --level, predict writes
// no band columns (it never builds the n×n kernel matrix they need;
// BenchmarkPredictWithoutBands times it).
func TestPredictWithoutBands(t *testing.T) {
	model := filepath.Join(t.TempDir(), "m.json")
	if code, _, stderr := kplsRun(t, "fit", "--data", writeFile(t, "train.csv", smallCSV(300)), "--width", "2", "--components", "5", "--dof", "none", "--model", model); code != 0 {
		t.Fatal(stderr)
	}
	pred := writeFile(t, "p.csv", smallCSV(200))
	code, out, stderr := kplsRun(t, "predict", "--model", model, "--data", pred, "--format", "csv")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	header, _, _ := strings.Cut(out, "\n")
	if strings.Contains(header, "se") || strings.Contains(header, "lower") || len(strings.Split(strings.TrimSpace(out), "\n")) != 201 {
		t.Errorf("header %q and %d lines, want no band columns and 200 rows", header, len(strings.Split(strings.TrimSpace(out), "\n")))
	}
}

// BenchmarkPredictWithoutBands: 2000 points at n = 3000, the whole
// command (well under a second on two cores).
func BenchmarkPredictWithoutBands(b *testing.B) {
	dir := b.TempDir()
	train, pred, model := filepath.Join(dir, "train.csv"), filepath.Join(dir, "p.csv"), filepath.Join(dir, "m.json")
	if os.WriteFile(train, []byte(smallCSV(3000)), 0o644) != nil || os.WriteFile(pred, []byte(smallCSV(2000)), 0o644) != nil {
		b.Fatal("cannot write the data")
	}
	var out, errb bytes.Buffer
	if code := program.Run(context.Background(), []string{"fit", "--data", train, "--width", "2", "--components", "5", "--dof", "none", "--model", model}, cli.Env{Stdout: &out, Stderr: &errb}); code != 0 {
		b.Fatal(errb.String())
	}
	for b.Loop() {
		out.Reset()
		if code := program.Run(context.Background(), []string{"predict", "--model", model, "--data", pred, "--format", "csv"}, cli.Env{Stdout: &out, Stderr: &errb}); code != 0 {
			b.Fatal(errb.String())
		}
	}
}

// TestPredictOutsideLinear: for the linear kernel a point is outside when
// a feature leaves its training range by more than 10 % of it.
func TestPredictOutsideLinear(t *testing.T) {
	model := filepath.Join(t.TempDir(), "m.json")
	if code, _, stderr := kplsRun(t, "fit", "--data", writeFile(t, "train.csv", smallCSV(40)), "--kernel", "linear", "--model", model); code != 0 {
		t.Fatal(stderr)
	}
	// a spans [−2, 1.9] in training: 2.2 lies 7.7 % of the range beyond it, 2.5 15 %.
	pred := writeFile(t, "p.csv", "a,b\n0,0\n2.2,0\n2.5,0\n")
	code, out, stderr := kplsRun(t, "predict", "--model", model, "--data", pred, "--json")
	var doc predictJSON
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if doc.Extrapolation.Measure != "range_excess" || doc.Predictions[0].Outside || doc.Predictions[1].Outside || !doc.Predictions[2].Outside {
		t.Errorf("%s", out)
	}
}

// TestPredictHighLeverage: a point inside every feature's training range
// and close to training rows, but against the features' correlation (b
// follows a in training), has a leverage above 1 and is flagged outside,
// by leverage alone; a point on the correlation is not. The leverage of
// the linear model with m = d is the OLS hat value, which the kpls
// package tests; here, that the command reports and uses it. (With the
// fit's own choice, m = 1, the model has no a − b direction and the
// second point is no extrapolation: its leverage is small too.)
func TestPredictHighLeverage(t *testing.T) {
	var b strings.Builder
	b.WriteString("a,b,y\n")
	for i := range 40 {
		a := float64(i)/10 - 2
		bb := a + 0.05*math.Sin(float64(5*i))
		b.WriteString(fmtF(a) + "," + fmtF(bb) + "," + fmtF(a+0.1*math.Cos(float64(3*i))) + "\n")
	}
	model := filepath.Join(t.TempDir(), "m.kpls")
	if code, _, stderr := kplsRun(t, "fit", "--data", writeFile(t, "train.csv", b.String()), "--kernel", "linear", "--components", "2", "--model", model); code != 0 {
		t.Fatal(stderr)
	}
	pred := writeFile(t, "p.csv", "a,b\n0.5,0.5\n0.5,-0.5\n")
	code, out, stderr := kplsRun(t, "predict", "--model", model, "--data", pred, "--json", "--components", "2")
	var doc predictJSON
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	on, off := doc.Predictions[0], doc.Predictions[1]
	if on.Outside || !(float64(on.Leverage) < 0.2) || !off.Outside || !(float64(off.Leverage) > 10) {
		t.Errorf("on the correlation %+v, against it %+v", on, off)
	}
	if ex := doc.Extrapolation; ex.LeverageLimit != 1 || ex.HighLeverage != 1 || ex.Outside != 1 {
		t.Errorf("extrapolation %+v", ex)
	}
	if !strings.Contains(stderr, "1 of 2 points lie outside") || !strings.Contains(stderr, "a leverage above 1") {
		t.Errorf("no warning of the high leverage: %s", stderr)
	}
}

// TestPredictMissingTargets: a row without a target value is predicted
// and left out of the scores only; rows keep the numbers of the file's
// data rows when --drop-missing leaves a row out; a first column of row
// names (R's write.csv) names the output rows; --target names the column
// to score against.
func TestPredictMissingTargets(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.kpls")
	if code, _, stderr := kplsRun(t, "fit", "--data", writeFile(t, "train.csv", smallCSV(40)), "--width", "2", "--components", "3", "--model", model); code != 0 {
		t.Fatal(stderr)
	}
	plain := writeFile(t, "p.csv", "a,b,y\n0.1,-1.5,NA\n0.3,,NA\n0.2,0.25,0.1\n-0.5,0.5,\n")
	if code, _, stderr := kplsRun(t, "predict", "--model", model, "--data", plain); code != 1 || !strings.Contains(stderr, `line 3, column "b": missing value`) {
		t.Errorf("a missing feature without --drop-missing: exit %d, %s", code, stderr)
	}
	code, out, stderr := kplsRun(t, "predict", "--model", model, "--data", plain, "--drop-missing", "--json")
	var doc predictJSON
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil {
		t.Fatalf("exit %d: %s\n%s", code, stderr, out)
	}
	var rows []int
	for _, p := range doc.Predictions {
		rows = append(rows, p.Row)
	}
	if !slices.Equal(rows, []int{1, 3, 4}) || doc.Dropped != 1 {
		t.Errorf("rows %v, dropped %d, want rows 1, 3, 4 and one dropped", rows, doc.Dropped)
	}
	if tg := doc.Target; tg == nil || tg.Scored != 1 || tg.Missing != 2 || !(tg.RMSE >= 0) {
		t.Errorf("target: %+v", doc.Target)
	}
	code, out, stderr = kplsRun(t, "predict", "--model", model, "--data", plain, "--drop-missing")
	if code != 0 || !strings.Contains(out, "scored on 1 of 3 rows: 2 without a target value are predicted, not scored") ||
		!strings.Contains(out, "1 row not predicted") || strings.Contains(out, "do not match") {
		t.Errorf("text: exit %d\n%s%s", code, out, stderr)
	}
	one := writeFile(t, "one.csv", "a,b,y\n0.1,-1.5,NA\n0.2,0.25,0.1\n")
	if code, out, stderr := kplsRun(t, "predict", "--model", model, "--data", one); code != 0 || !strings.Contains(out, "scored on 1 of 2 rows: 1 without a target value is predicted, not scored") {
		t.Errorf("one row without a target: exit %d\n%s%s", code, out, stderr)
	}
	code, out, _ = kplsRun(t, "predict", "--model", model, "--data", plain, "--drop-missing", "--format", "csv")
	if lines := strings.Split(strings.TrimSpace(out), "\n"); code != 0 || len(lines) != 4 || !strings.HasPrefix(lines[2], "3,") || !strings.HasSuffix(lines[1], ",false,") {
		t.Errorf("csv:\n%s", out)
	}

	// R's write.csv: an empty first header cell over row names.
	rcsv := writeFile(t, "r.csv", "\"\",\"obs\",\"b\",\"a\"\n\"5\",NA,-1.5,0.1\n\"25\",0.1,0.25,0.2\n\"27\",NA,0.5,-0.5\n")
	code, out, stderr = kplsRun(t, "predict", "--model", model, "--data", rcsv, "--target", "obs", "--format", "csv")
	if lines := strings.Split(strings.TrimSpace(out), "\n"); code != 0 || lines[0] != "id,yhat,outside,obs" || !strings.HasPrefix(lines[2], "25,") ||
		!strings.Contains(stderr, `note: the first column "" is taken as row names (R's write.csv`) {
		t.Errorf("row names: exit %d\n%s%s", code, out, stderr)
	}
	for _, c := range []struct {
		args []string
		want string
		code int
	}{
		{[]string{"--data", rcsv, "--target", "zz"}, `no column "zz"`, 1},
		{[]string{"--data", rcsv, "--target", "b"}, "one of the model's features", 2},
		{[]string{"--data", rcsv, "--target", "obs,b"}, "one column per target", 2},
		{[]string{"--data", writeFile(t, "q.csv", "a,q\n1,2\n")}, `missing feature "b"`, 1},
	} {
		code, _, stderr := kplsRun(t, append([]string{"predict", "--model", model}, c.args...)...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit %d, %s; want %d and %q", c.args, code, stderr, c.code, c.want)
		}
	}
}
