package scale

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kpls-go/kpls/internal/sim"
)

func fakeResults() []result {
	return []result{
		{Name: "kin8nm", Args: []string{"select", "--data", "k.csv"}, Wall: 10 * time.Second, MaxRSS: 1 << 30,
			Doc: runDoc{N: 8192, Storage: storageDoc{Kind: "dense", Bytes: 8 * 8192 * 8192, MemoryLimit: 6 << 30},
				Best: &bestDoc{Kernel: "rbf", Width: 4.5, M: 12, Criterion: "gcv"}}},
		{Name: "protein", Args: []string{"select", "--data", "p.csv"}, Wall: 300 * time.Second, MaxRSS: 9 << 30,
			Doc: runDoc{N: 45730, Storage: storageDoc{Kind: "float32", Bytes: 3 << 30, MemoryLimit: 6 << 30},
				Best: &bestDoc{Kernel: "rbf", Width: 9, M: 30, Criterion: "gcv"}}},
		{Name: "100k", Args: []string{"fit", "--data", "f.csv"}, Wall: 90 * time.Second, MaxRSS: 3 << 29,
			Doc: runDoc{N: 100000, Storage: storageDoc{Kind: "hybrid", Bytes: 6 << 30, MemoryLimit: 6 << 30}}},
	}
}

func TestReport(t *testing.T) {
	var b bytes.Buffer
	m := meta{Date: "2026-01-02T03:04:05Z", Commit: "abc1234", Version: "kpls     github.com/kpls-go/kpls (devel)", GOMAXPROCS: 2}
	if failed := report(&b, m, fakeResults()); failed != 1 {
		t.Errorf("report counted %d failed checks, want 1 (protein RSS)", failed)
	}
	// (45730/8192)^2.1 = e^(2.1·1.71962) = 37.01 ≥ 300 s / 10 s.
	want := `# Scale runs of kpls

- date: 2026-01-02T03:04:05Z
- commit: abc1234
- GOMAXPROCS: 2
- kpls version:

` + "```\nkpls     github.com/kpls-go/kpls (devel)\n```" + `

## Runs

| run | n | storage | kernel matrix (GiB) | memory limit (GiB) | wall time (s) | peak RSS (GiB) | best |
|---|--:|---|--:|--:|--:|--:|---|
| kin8nm | 8192 | dense | 0.50 | 6.00 | 10.00 | 1.00 | rbf, width 4.5, m = 12 (gcv) |
| protein | 45730 | float32 | 3.00 | 6.00 | 300.00 | 9.00 | rbf, width 9, m = 30 (gcv) |
| 100k | 100000 | hybrid | 6.00 | 6.00 | 90.00 | 1.50 | — |

## Checks

| check | value | bound | result |
|---|--:|--:|---|
| protein peak RSS | 9.00 GiB | ≤ 8 GiB | FAIL |
| 100k peak RSS | 1.50 GiB | ≤ 8 GiB | pass |
| protein time / kin8nm time | 30.00 | ≤ 37.01 = (45730/8192)^2.1 | pass |
| protein-default held-out RMSE | — | ≤ 3.55 | not run |
| protein-default select time | — | ≤ 600 s | not run |
| protein-default peak RSS | — | ≤ 8 GiB | not run |

## Commands

- kin8nm: ` + "`kpls select --data k.csv`" + `
- protein: ` + "`kpls select --data p.csv`" + `
- 100k: ` + "`kpls fit --data f.csv`" + `
`
	if got := b.String(); got != want {
		t.Errorf("report:\n%s\nwant:\n%s", got, want)
	}
}

func TestChecksNotRun(t *testing.T) {
	rs := fakeResults()
	slow := rs[1]
	slow.Wall = 400 * time.Second // ratio 40 > 37.01
	cs := checks([]result{rs[0], slow})
	got := make([]string, len(cs))
	for i, c := range cs {
		got[i] = c.Name + ": " + c.Result
	}
	want := []string{"protein peak RSS: FAIL", "100k peak RSS: not run", "protein time / kin8nm time: FAIL",
		"protein-default held-out RMSE: not run", "protein-default select time: not run", "protein-default peak RSS: not run"}
	if !slices.Equal(got, want) {
		t.Errorf("checks = %q, want %q", got, want)
	}
	for _, c := range checks(rs[2:]) {
		if c.Name != "100k peak RSS" && c.Result != "not run" {
			t.Errorf("%s: %s without its runs", c.Name, c.Result)
		}
	}
}

func TestPlan(t *testing.T) {
	names := func(o options) []string {
		var s []string
		for _, p := range plan(o, "gen.csv", "tmp") {
			s = append(s, p.name)
		}
		return s
	}
	for _, c := range []struct {
		o    options
		want []string
	}{
		{options{}, []string{"kin8nm", "protein", "100k", "kin8nm-default", "protein-default"}},
		{options{skipProtein: true}, []string{"kin8nm", "100k", "kin8nm-default"}},
		{options{skipProtein: true, skip100k: true}, []string{"kin8nm", "kin8nm-default"}},
		{options{only: "100k", skip100k: true}, []string{"100k"}},
		{options{only: "protein-default,kin8nm-default"}, []string{"kin8nm-default", "protein-default"}},
	} {
		if got := names(c.o); !slices.Equal(got, c.want) {
			t.Errorf("plan(%+v) runs %q, want %q", c.o, got, c.want)
		}
	}
	p := plan(options{shared: "sh", only: "protein"}, "gen.csv", "tmp")[0]
	want := "select --data " + filepath.Join("sh", "data", "protein.csv") +
		" --target RMSD --widths 2,4.5,9 --components 30 --lanczos 30 --json --progress=off"
	if got := strings.Join(p.args, " "); got != want {
		t.Errorf("protein args %q, want %q", got, want)
	}
}

// TestDefaultRuns checks #23's runs: the default select with no flags
// but data and target, protein's on a training split whose model predict
// reads with the held-out rows.
func TestDefaultRuns(t *testing.T) {
	ps := plan(options{shared: "sh", only: "kin8nm-default,protein-default"}, "gen.csv", "tmp")
	k, p := ps[0], ps[1]
	if got, want := strings.Join(k.args, " "), "select --data "+filepath.Join("sh", "data", "kin8nm.csv")+" --target y --json --progress=off"; got != want {
		t.Errorf("kin8nm-default args %q, want %q", got, want)
	}
	if k.predict != nil || k.split != nil {
		t.Errorf("kin8nm-default has a split or a predict run")
	}
	if p.split == nil || p.split.from != filepath.Join("sh", "data", "protein.csv") {
		t.Fatalf("protein-default split %+v", p.split)
	}
	model := filepath.Join("tmp", "protein-default.kpls")
	if got, want := strings.Join(p.args, " "), "select --data "+p.split.train+" --target RMSD --model "+model+" --json --progress=off"; got != want {
		t.Errorf("protein-default args %q, want %q", got, want)
	}
	if got, want := strings.Join(p.predict, " "), "predict --model "+model+" --data "+p.split.test+" --json"; got != want {
		t.Errorf("protein-default predict %q, want %q", got, want)
	}
}

// TestWriteSplit checks that the split is a partition of the rows, each
// row as written, in the proportion asked for, and the same for the same
// seed.
func TestWriteSplit(t *testing.T) {
	dir := t.TempDir()
	from := filepath.Join(dir, "d.csv")
	var b strings.Builder
	b.WriteString("\"y\",x\n")
	const n = 101
	for i := range n {
		b.WriteString(strconv.Itoa(i) + ",0." + strconv.Itoa(i) + "\n")
	}
	if err := os.WriteFile(from, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	read := func(path string) []string {
		c, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(string(c), "\n"), "\n")
		if lines[0] != "\"y\",x" {
			t.Fatalf("%s: header %q", path, lines[0])
		}
		return lines[1:]
	}
	split := func(seed uint64) (train, test []string) {
		tr, te := filepath.Join(dir, "tr.csv"), filepath.Join(dir, "te.csv")
		if err := WriteSplit(from, tr, te, 0.8, seed); err != nil {
			t.Fatal(err)
		}
		return read(tr), read(te)
	}
	train, test := split(1)
	if len(train) != 81 || len(test) != 20 {
		t.Errorf("%d training and %d held-out rows, want 81 and 20", len(train), len(test))
	}
	seen := map[string]bool{}
	for _, r := range append(slices.Clone(train), test...) {
		if seen[r] {
			t.Errorf("row %q twice", r)
		}
		seen[r] = true
	}
	for i := range n {
		if r := strconv.Itoa(i) + ",0." + strconv.Itoa(i); !seen[r] {
			t.Errorf("row %q missing", r)
		}
	}
	if slices.IsSorted(train) && slices.IsSorted(test) {
		t.Errorf("the split is not shuffled")
	}
	train2, test2 := split(1)
	if !slices.Equal(train, train2) || !slices.Equal(test, test2) {
		t.Errorf("the same seed split differently")
	}
	if train3, _ := split(2); slices.Equal(train, train3) {
		t.Errorf("seeds 1 and 2 split alike")
	}
}

// TestProteinDefaultChecks checks #23's protein checks against their
// bounds, each side of them.
func TestProteinDefaultChecks(t *testing.T) {
	r := result{Name: "protein-default", Wall: 599 * time.Second, MaxRSS: 7 << 30,
		Heldout: &heldout{RMSE: 3.36, Rows: 9146}}
	get := func(rs ...result) []string {
		var s []string
		for _, c := range checks(rs) {
			if strings.HasPrefix(c.Name, "protein-default") {
				s = append(s, c.Name+": "+c.Value+" "+c.Result)
			}
		}
		return s
	}
	want := []string{"protein-default held-out RMSE: 3.3600 pass", "protein-default select time: 599 s pass", "protein-default peak RSS: 7.00 GiB pass"}
	if got := get(r); !slices.Equal(got, want) {
		t.Errorf("checks %q, want %q", got, want)
	}
	var b bytes.Buffer
	r.Args, r.Predict = []string{"select", "--data", "tr.csv"}, []string{"predict", "--data", "te.csv"}
	r.Doc.Best = &bestDoc{Kernel: "laplacian", Width: 1.5, M: 125, Criterion: "cv"}
	report(&b, meta{}, []result{r})
	for _, line := range []string{
		"| protein-default | 9146 | 3.3600 | 0.00 | laplacian, width 1.5, m = 125 |",
		"- protein-default: `kpls select --data tr.csv`\n  then `kpls predict --data te.csv`",
	} {
		if !strings.Contains(b.String(), line) {
			t.Errorf("the report lacks %q:\n%s", line, b.String())
		}
	}
	r.Wall, r.MaxRSS, r.Heldout.RMSE = 601*time.Second, 9<<30, 3.56
	want = []string{"protein-default held-out RMSE: 3.5600 FAIL", "protein-default select time: 601 s FAIL", "protein-default peak RSS: 9.00 GiB FAIL"}
	if got := get(r); !slices.Equal(got, want) {
		t.Errorf("checks %q, want %q", got, want)
	}
}

func TestWriteFriedman(t *testing.T) {
	const n = 7
	path := filepath.Join(t.TempDir(), "f.csv")
	if err := writeFriedman(path, n); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if head := strings.Join(recs[0], ","); head != "x1,x2,x3,x4,x5,x6,x7,x8,x9,x10,y" {
		t.Errorf("header %q", head)
	}
	if len(recs) != n+1 {
		t.Fatalf("%d data rows, want %d", len(recs)-1, n)
	}
	// The values read back exactly.
	s := sim.Friedman1(n, simD, simNoise, simSeed)
	for i, rec := range recs[1:] {
		for j, f := range rec {
			v, err := strconv.ParseFloat(f, 64)
			want := s.Y[i]
			if j < s.D {
				want = s.Row(i)[j]
			}
			if err != nil || v != want {
				t.Fatalf("row %d, column %d: %q, want %v", i+1, j+1, f, want)
			}
		}
	}
}

func TestTail(t *testing.T) {
	if got := tail("a\nb\nc\n", 2); got != "b\nc" {
		t.Errorf("tail = %q", got)
	}
	if got := tail("a", 5); got != "a" {
		t.Errorf("tail = %q", got)
	}
}
