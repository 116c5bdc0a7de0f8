package relevance

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kpls-go/kpls/cmd/cli"
)

// TestDefault: on a set whose target depends on its first feature alone,
// relevance default records the default select, which weighs the second
// (noise) feature down and predicts the test rows better, beside the
// isotropic one, with both times.
func TestDefault(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("a,b,c,y\n")
	n := 300
	for range n {
		a, c, e := 4*rng.Float64()-2, 4*rng.Float64()-2, 4*rng.Float64()-2
		fmt.Fprintf(&b, "%g,%g,%g,%g\n", a, c, e, math.Sin(2*a)+0.05*rng.NormFloat64())
	}
	if err := os.WriteFile(filepath.Join(dir, "s.csv"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "s.splits"), 0o755); err != nil {
		t.Fatal(err)
	}
	var train, test strings.Builder
	for i := range n {
		fmt.Fprintln(map[bool]*strings.Builder{true: &test, false: &train}[i%4 == 0], i)
	}
	for name, s := range map[string]string{"split-0.train": train.String(), "split-0.test": test.String()} {
		if err := os.WriteFile(filepath.Join(dir, "s.splits", name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "out.jsonl")
	var log bytes.Buffer
	if err := Run(context.Background(), &cli.Env{Stdout: &log, Stderr: &log}, []string{"default", "--panel", dir, "--sets", "s", "--out", out}); err != nil {
		t.Fatal(err, log.String())
	}
	recs, err := readRecords(out)
	if err != nil || len(recs) != 1 || len(recs[0].Variants) != 2 {
		t.Fatalf("records %+v, %v", recs, err)
	}
	def, iso := recs[0].Variants[0], recs[0].Variants[1]
	if def.Name != "default" || iso.Name != "iso" || iso.Scales != nil || len(def.Scales) != 3 || !(def.Seconds > 0 && iso.Seconds > 0) {
		t.Fatalf("variants %+v", recs[0].Variants)
	}
	if !(def.Scales[0] == 1 && def.Scales[1] < 0.3 && def.Scales[2] < 0.3) || !(def.RMSE < iso.RMSE) {
		t.Errorf("default: scales %v (want the noise features below 0.3), held-out RMSE %g against %g isotropic", def.Scales, def.RMSE, iso.RMSE)
	}
}
