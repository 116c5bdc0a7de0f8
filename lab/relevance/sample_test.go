package relevance

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/kpls-go/kpls/cmd/cli"
)

// TestSample: y depends on the first feature only; the scales learned on
// a sample of 150 of 400 training rows give the second, pure noise, a
// fraction of the first's, and both selects are scored held out.
func TestSample(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	write := func(name string, n int) string {
		var b strings.Builder
		b.WriteString("a,b,y\n")
		for range n {
			a, c := 4*rng.Float64()-2, 4*rng.Float64()-2
			fmt.Fprintf(&b, "%g,%g,%g\n", a, c, math.Sin(2*a)+0.05*rng.NormFloat64())
		}
		p := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	train, test := write("train.csv", 400), write("test.csv", 200)
	var out bytes.Buffer
	if err := Run(context.Background(), &cli.Env{Stdout: &out, Stderr: &out}, []string{"sample", "--train", train, "--test", test, "--rows", "150"}); err != nil {
		t.Fatal(err, out.String())
	}
	m := regexp.MustCompile(`gop 1 .*held-out RMSE (\S+)  scales \[(\S+) (\S+)\]`).FindStringSubmatch(out.String())
	if m == nil || !strings.Contains(out.String(), "iso ") {
		t.Fatalf("output:\n%s", out.String())
	}
	rmse, _ := strconv.ParseFloat(m[1], 64)
	s1, _ := strconv.ParseFloat(m[2], 64)
	s2, _ := strconv.ParseFloat(m[3], 64)
	if !(s1 == 1 && s2 < 0.3) || !(rmse > 0 && rmse < 0.2) {
		t.Errorf("scales %g, %g (want 1 and the noise column below 0.3), held-out RMSE %g (noise sd 0.05):\n%s", s1, s2, rmse, out.String())
	}
}
