package demodata

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeCSV writes text to a file in a fresh temporary directory.
func writeCSV(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "protein.csv")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestProtein(t *testing.T) {
	path := writeCSV(t, `"RMSD","F1","F2"
1.5,1,10
2.5,2,20
3.5,3,60
`)
	x, n, d, y, err := Protein(path)
	if err != nil {
		t.Fatal(err)
	}
	if n != 3 || d != 2 || len(x) != n*d || len(y) != n {
		t.Fatalf("n = %d, d = %d, len(x) = %d, len(y) = %d; want 3, 2, 6, 3", n, d, len(x), len(y))
	}
	// F1: mean 2, squared deviations 1+0+1 over n−1 = 2: sd 1.
	// F2: mean 30, deviations −20, −10, 30; (400+100+900)/2 = 700: sd √700.
	s := math.Sqrt(700)
	want := []float64{
		-1, -20 / s,
		0, -10 / s,
		1, 30 / s,
	}
	for i := range want {
		if math.Abs(x[i]-want[i]) > 1e-15 {
			t.Errorf("x[%d] = %v, want %v", i, x[i], want[i])
		}
	}
	for i, v := range []float64{1.5, 2.5, 3.5} {
		if y[i] != v {
			t.Errorf("y[%d] = %v, want %v", i, y[i], v)
		}
	}
}

func TestProteinErrors(t *testing.T) {
	for _, c := range []struct {
		name, text string
		want       []string // substrings of the error besides the path
	}{
		{"bad cell", "RMSD,F1,F2\n1,2,3\n4,5,x\n", []string{"line 3", "column 3", "F2", `"x"`}},
		{"infinite", "RMSD,F1,F2\n1,2,3\n4,Inf,6\n", []string{"line 3", "column 2", "F1"}},
		{"no target", "y,F1,F2\n1,2,3\n4,5,6\n", []string{"line 1", `"RMSD"`}},
		{"constant", "RMSD,F1,F2\n1,2,3\n4,2,6\n", []string{"F1", "constant"}},
		{"short row", "RMSD,F1,F2\n1,2,3\n4,5\n", []string{"line 3"}},
		{"empty", "", []string{"no header"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := writeCSV(t, c.text)
			_, _, _, _, err := Protein(path)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range append(c.want, path) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not name %s", err, w)
				}
			}
		})
	}
}
