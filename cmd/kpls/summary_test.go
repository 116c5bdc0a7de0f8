package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// diabetesSized is a CSV of 442 rows of 10 features and a noisy target,
// the size of scikit-learn's diabetes data.
func diabetesSized() string {
	rng := rand.New(rand.NewPCG(4, 42))
	var b strings.Builder
	b.WriteString("age,sex,bmi,bp,s1,s2,s3,s4,s5,s6,y\n")
	for range 442 {
		x := make([]float64, 10)
		for j := range x {
			x[j] = rng.NormFloat64()
		}
		y := 150 + 40*x[2] + 20*x[3] + 15*math.Sin(2*x[8]) + 10*x[0]*x[1] + 50*rng.NormFloat64()
		for _, v := range append(x, y) {
			fmt.Fprintf(&b, "%.5f,", v)
		}
		b.WriteString("\n")
	}
	return strings.ReplaceAll(b.String(), ",\n", "\n")
}

// TestSelectSummary: select's text is a short summary (what was searched,
// what was chosen, the mean's members, the cross-validated scores, where
// the model went) with rounded numbers; --grid adds the whole table, its
// columns aligned across grid points.
func TestSelectSummary(t *testing.T) {
	data := writeFile(t, "diabetes.csv", diabetesSized())
	model := filepath.Join(t.TempDir(), "d.kpls")
	code, out, stderr := kplsRun(t, "select", "--data", data, "--target", "y", "--model", model)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if n := strings.Count(out, "\n"); n > 25 {
		t.Errorf("%d lines, want at most 25:\n%s", n, out)
	}
	for _, want := range []string{"searched   ", "rbf (", "by 5-fold cross-validation", "best       ", "RMSECV", "Q² ", "chosen     ", "training   RMSE", "saved to " + model, "--grid prints them"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	if long := regexp.MustCompile(`\d\.\d{6,}`).FindString(out); long != "" {
		t.Errorf("number %s not rounded:\n%s", long, out)
	}
	for _, bad := range []string{" 1 points", " 1 extensions", " 1 rows"} {
		if strings.Contains(out+stderr, bad) {
			t.Errorf("output holds %q:\n%s%s", bad, out, stderr)
		}
	}
	if strings.Contains(out, "<= best") {
		t.Errorf("the grid table without --grid:\n%s", out)
	}

	code, out, stderr = kplsRun(t, "select", "--data", data, "--target", "y", "--grid", "--kernels", "rbf,linear", "--widths", "2,8")
	if code != 0 || !strings.Contains(out, "<= best") {
		t.Fatalf("--grid: exit %d: %s\n%s", code, stderr, out)
	}
	lines := strings.Split(out, "\n")
	head := -1
	for i, l := range lines {
		if strings.Contains(l, "RMSECV") && strings.Contains(l, "kernel") {
			head = i
			break
		}
	}
	if head < 0 {
		t.Fatalf("no table header:\n%s", out)
	}
	// Every row of the table ends its last column where the header does.
	end := len([]rune(strings.TrimRight(lines[head], " ")))
	for _, l := range lines[head+1:] {
		if strings.TrimSpace(l) == "" {
			if strings.HasPrefix(l, " ") {
				continue
			}
			break
		}
		l = strings.TrimSuffix(strings.TrimSuffix(l, " * <= best"), " *")
		if n := len([]rune(strings.TrimRight(l, " "))); n != end {
			t.Errorf("row %q ends at %d, the header at %d:\n%s", l, n, end, out)
			break
		}
	}
}
