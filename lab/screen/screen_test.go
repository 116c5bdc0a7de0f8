package screen

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kpls-go/kpls/cmd/cli"
)

// TestRun: on 500 rows screened on 100, every split runs the baseline
// (the full select, or the isotropic one) and the screened default (each
// saying so), and the summary gives the ratios.
func TestRun(t *testing.T) {
	var b strings.Builder
	b.WriteString("a,b,y\n")
	for i := range 500 {
		a, c := math.Sin(float64(i)), math.Cos(float64(3*i))
		fmt.Fprintf(&b, "%g,%g,%g\n", a, c, math.Sin(3*a)+c*c+0.1*math.Sin(float64(7*i)))
	}
	path := filepath.Join(t.TempDir(), "d.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, vs := range []string{"full", "isotropic"} {
		var out, errs bytes.Buffer
		err := Run(context.Background(), &cli.Env{Stdout: &out, Stderr: &errs}, []string{"--data", path, "--splits", "2", "--rows", "100", "--vs", vs})
		if err != nil {
			t.Fatal(err, errs.String())
		}
		s := out.String()
		for _, want := range []string{"split 1 " + vs, "split 1 screened", "split 2 " + vs, "split 2 screened", "(sample 100 rows", "weights [", "default / " + vs + ", median over 2 splits: time"} {
			if !strings.Contains(s, want) {
				t.Errorf("--vs %s: output lacks %q:\n%s", vs, want, s)
			}
		}
	}
}
