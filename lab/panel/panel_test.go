package panel

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kpls-go/kpls/cmd/cli"
)

func TestMakeSplit(t *testing.T) {
	for _, c := range []struct {
		n, maxTrain         int
		frac                float64
		wantTest, wantTrain int
	}{
		{8192, 6000, 0.25, 2048, 6000}, // capped: 6144 non-test rows
		{2000, 6000, 0.25, 500, 1500},
		{10, 6000, 0.25, 3, 7}, // round(2.5) = 3
		{8000, 6000, 0.25, 2000, 6000},
	} {
		train, test := makeSplit(c.n, c.frac, c.maxTrain, splitRNG("x", 1, 0))
		if len(test) != c.wantTest || len(train) != c.wantTrain {
			t.Errorf("n = %d: %d train, %d test; want %d, %d", c.n, len(train), len(test), c.wantTrain, c.wantTest)
		}
		seen := make([]bool, c.n)
		for _, s := range [][]int{train, test} {
			if !slices.IsSorted(s) {
				t.Errorf("n = %d: indices not sorted", c.n)
			}
			for _, i := range s {
				if i < 0 || i >= c.n || seen[i] {
					t.Fatalf("n = %d: index %d out of range or repeated (train and test overlap?)", c.n, i)
				}
				seen[i] = true
			}
		}
	}
}

func readIdx(t *testing.T, path string) []int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var idx []int
	for _, l := range strings.Fields(string(b)) {
		i, err := strconv.Atoi(l)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		idx = append(idx, i)
	}
	return idx
}

// fakeShared writes a small kin8nm.csv and an 8100-row protein.csv whose
// RMSD is 1000 times the row number, to trace rows through the sub-sample.
func fakeShared(t *testing.T) string {
	dir := t.TempDir()
	var k bytes.Buffer
	k.WriteString(`"theta1","theta2","y"` + "\n")
	for i := range 40 {
		fmt.Fprintf(&k, "%d.5, -1e-2, %d\n", i, i)
	}
	var p bytes.Buffer
	p.WriteString(`"RMSD","F1","F2"` + "\n")
	for i := range 8100 {
		fmt.Fprintf(&p, "%d,%d.25,7\n", 1000*i, i)
	}
	if err := os.WriteFile(filepath.Join(dir, "kin8nm.csv"), k.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "protein.csv"), p.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func genTo(t *testing.T, shared string, extra ...string) string {
	t.Helper()
	out := t.TempDir()
	args := append([]string{"gen", "--out", out, "--shared", shared}, extra...)
	var so, se bytes.Buffer
	if err := Run(context.Background(), &cli.Env{Stdout: &so, Stderr: &se, Prog: "kpls-lab"}, args); err != nil {
		t.Fatalf("gen: %v\n%s", err, se.String())
	}
	return out
}

// The whole panel: files, targets last, splits disjoint, of the requested
// sizes and reproducible, and each data set independent of the others.
func TestGen(t *testing.T) {
	shared := fakeShared(t)
	a := genTo(t, shared)
	b := genTo(t, shared)
	sizes := map[string][3]int{ // n, n_train, n_test
		"kin8nm":      {40, 30, 10},
		"protein4000": {4000, 3000, 1000},
		"protein8000": {8000, 6000, 2000},
		"friedman1":   {2000, 1500, 500},
		"friedman2":   {2000, 1500, 500},
		"friedman3":   {2000, 1500, 500},
		"sinc":        {2000, 1500, 500},
	}
	for _, r := range realSets {
		nTest := (r.n + 2) / 4 // round(n/4), halves up
		sizes[r.name] = [3]int{r.n, r.n - nTest, nTest}
	}
	for _, name := range setNames() {
		fa, err := os.ReadFile(filepath.Join(a, name+".csv"))
		if err != nil {
			t.Fatal(err)
		}
		fb, _ := os.ReadFile(filepath.Join(b, name+".csv"))
		if !bytes.Equal(fa, fb) {
			t.Errorf("%s: two runs wrote different data", name)
		}
		lines := strings.Split(strings.TrimSuffix(string(fa), "\n"), "\n")
		head := strings.Split(strings.ReplaceAll(lines[0], `"`, ""), ",")
		if head[len(head)-1] != "y" {
			t.Errorf("%s: header %q does not end in y", name, lines[0])
		}
		want := sizes[name]
		if n := len(lines) - 1; n != want[0] {
			t.Errorf("%s: %d rows, want %d", name, n, want[0])
		}
		for k := range 3 {
			var got [2][]int
			for e, ext := range []string{"train", "test"} {
				p := filepath.Join(name+".splits", fmt.Sprintf("split-%d.%s", k, ext))
				got[e] = readIdx(t, filepath.Join(a, p))
				if !slices.Equal(got[e], readIdx(t, filepath.Join(b, p))) {
					t.Errorf("%s: two runs wrote different %s", name, p)
				}
			}
			if len(got[0]) != want[1] || len(got[1]) != want[2] {
				t.Errorf("%s split %d: %d train, %d test; want %d, %d", name, k, len(got[0]), len(got[1]), want[1], want[2])
			}
			seen := map[int]bool{}
			for _, s := range got {
				for _, i := range s {
					if i < 0 || i >= want[0] || seen[i] {
						t.Fatalf("%s split %d: index %d out of range or in both sets", name, k, i)
					}
					seen[i] = true
				}
			}
		}
		// Five splits under 2000 rows, three from there on.
		wantSplits := 3
		if want[0] < 2000 {
			wantSplits = 5
		}
		for k := range wantSplits + 1 {
			_, err := os.Stat(filepath.Join(a, name+".splits", fmt.Sprintf("split-%d.test", k)))
			if (err == nil) != (k < wantSplits) {
				t.Errorf("%s: split %d written: %v, want %v (%d splits)", name, k, err == nil, k < wantSplits, wantSplits)
			}
		}
		s0 := readIdx(t, filepath.Join(a, name+".splits", "split-0.test"))
		s1 := readIdx(t, filepath.Join(a, name+".splits", "split-1.test"))
		if slices.Equal(s0, s1) {
			t.Errorf("%s: splits 0 and 1 have the same test set", name)
		}
	}

	// kin8nm is copied byte for byte.
	src, _ := os.ReadFile(filepath.Join(shared, "kin8nm.csv"))
	dst, _ := os.ReadFile(filepath.Join(a, "kin8nm.csv"))
	if !bytes.Equal(src, dst) {
		t.Error("kin8nm.csv is not a copy")
	}

	// protein: RMSD moved last as y, rows intact, protein4000 ⊂ protein8000.
	rowsOf := func(name string) map[int]bool {
		b, _ := os.ReadFile(filepath.Join(a, name+".csv"))
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		if lines[0] != "F1,F2,y" {
			t.Errorf("%s header %q, want F1,F2,y", name, lines[0])
		}
		rows := map[int]bool{}
		prev := -1
		for _, l := range lines[1:] {
			var i, rmsd, f2 int
			var f1 float64
			if _, err := fmt.Sscanf(l, "%g,%d,%d", &f1, &f2, &rmsd); err != nil {
				t.Fatalf("%s: %q: %v", name, l, err)
			}
			i = rmsd / 1000
			if f1 != float64(i)+0.25 || f2 != 7 || rmsd != 1000*i || i <= prev {
				t.Fatalf("%s: row %q is not source row %d intact, in file order", name, l, i)
			}
			prev = i
			rows[i] = true
		}
		return rows
	}
	r4, r8 := rowsOf("protein4000"), rowsOf("protein8000")
	for i := range r4 {
		if !r8[i] {
			t.Fatalf("protein4000 row %d is not in protein8000", i)
		}
	}

	// Writing one data set alone, or with more splits, changes nothing.
	c := genTo(t, shared, "--sets", "friedman2", "--splits", "4")
	for _, f := range []string{"friedman2.csv", "friedman2.splits/split-2.train", "friedman2.splits/split-2.test"} {
		fa, _ := os.ReadFile(filepath.Join(a, f))
		fc, err := os.ReadFile(filepath.Join(c, f))
		if err != nil || !bytes.Equal(fa, fc) {
			t.Errorf("%s differs when written alone with --splits 4 (%v)", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(c, "friedman1.csv")); err == nil {
		t.Error("--sets friedman2 also wrote friedman1")
	}
	// A different base seed changes the data.
	d := genTo(t, shared, "--sets", "friedman2", "--seed", "2")
	fa, _ := os.ReadFile(filepath.Join(a, "friedman2.csv"))
	fd, _ := os.ReadFile(filepath.Join(d, "friedman2.csv"))
	if bytes.Equal(fa, fd) {
		t.Error("--seed 2 wrote the same friedman2.csv")
	}
}

func TestGenErrors(t *testing.T) {
	shared := fakeShared(t)
	for _, args := range [][]string{
		{"gen"},
		{"gen", "--out", t.TempDir(), "--test-fraction", "1"},
		{"gen", "--out", t.TempDir(), "--splits", "-1"},
		{"gen", "--out", t.TempDir(), "--sets", "nope"},
		{"gen", "--out", t.TempDir(), "--shared", t.TempDir()}, // no kin8nm.csv
		{"split"},
	} {
		var so, se bytes.Buffer
		if args[0] == "gen" && !slices.Contains(args, "--shared") {
			args = append(args, "--shared", shared)
		}
		if err := Run(context.Background(), &cli.Env{Stdout: &so, Stderr: &se, Prog: "kpls-lab"}, args); err == nil {
			t.Errorf("%q: no error", args)
		}
	}
}

// realSets are the committed small data sets as doc.go and data/README.md
// document them: rows, features, and the first feature's name.
var realSets = []struct {
	name  string
	n, d  int
	first string
}{
	{"boston", 506, 13, "crim"},
	{"concrete", 1030, 8, "cement"},
	{"biomass", 536, 5, "carbon"},
	{"ozone", 330, 9, "vh"},
	{"cox2", 462, 255, "QikProp_.stars"},
	{"cps1985", 534, 16, "education"},
	{"carprices", 804, 17, "Mileage"},
	{"meats", 215, 100, "x_001"},
}

// The committed data sets load with the documented shape, and both
// documents list them with it.
func TestRealSets(t *testing.T) {
	docs := map[string]string{}
	for _, f := range []string{"doc.go", "data/README.md"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs[f] = string(b)
	}
	for _, r := range realSets {
		if !slices.Contains(setNames(), r.name) {
			t.Errorf("%s is not in the panel", r.name)
		}
	}
	small := 0
	for _, r := range realSets {
		dst := filepath.Join(t.TempDir(), r.name+".csv")
		var file string
		for _, f := range []string{r.name + ".csv", r.name + ".csv.gz"} {
			if _, err := realData.Open("data/" + f); err == nil {
				file = f
			}
		}
		if file == "" {
			t.Errorf("%s: no data/%s.csv or .csv.gz", r.name, r.name)
			continue
		}
		n, d, err := writeReal(file, dst)
		if err != nil {
			t.Errorf("%s: %v", r.name, err)
			continue
		}
		if n != r.n || d != r.d {
			t.Errorf("%s: %d×%d, documented %d×%d", r.name, n, d, r.n, r.d)
		}
		head, rows, err := readCSV(dst)
		if err != nil || len(rows) != n || head[0] != r.first || head[len(head)-1] != "y" {
			t.Errorf("%s: written file reads back as %d rows, header %q…%q (%v)", r.name, len(rows), head[0], head[len(head)-1], err)
		}
		shape := fmt.Sprintf("%s.csv", r.name)
		dims := fmt.Sprintf("%d×%d", r.n, r.d)
		for f, text := range docs {
			found := false
			for _, l := range strings.Split(text, "\n") {
				if strings.Contains(l, shape) && strings.Contains(l, dims) {
					found = true
				}
			}
			if !found {
				t.Errorf("%s does not list %s as %s", f, shape, dims)
			}
		}
		if n >= 300 && n <= 1500 {
			small++
		}
	}
	if small < 5 {
		t.Errorf("%d real data sets of 300–1500 rows, want at least 5", small)
	}
}
