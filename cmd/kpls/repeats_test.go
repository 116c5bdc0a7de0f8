package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestSelectRepeats: --repeats R pools R fold assignments, reported in
// the JSON and the text, and the pooled RMSECV differs from one
// assignment's; it is a usage error below 0 or with a DoF criterion.
func TestSelectRepeats(t *testing.T) {
	data := writeFile(t, "train.csv", smallCSV(60))
	rmsecv := func(args ...string) (float64, int) {
		code, out, stderr := kplsRun(t, append([]string{"select", "--data", data, "--widths", "2", "--kernels", "rbf", "--components", "4", "--max-components", "4", "--json"}, args...)...)
		if code != 0 {
			t.Fatalf("%q: exit %d: %s", args, code, stderr)
		}
		var doc struct {
			Repeats int
			Best    struct{ Score float64 }
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		return doc.Best.Score, doc.Repeats
	}
	one, r1 := rmsecv()
	three, r3 := rmsecv("--repeats", "3")
	if r1 != 1 || r3 != 3 || one == three {
		t.Errorf("repeats %d and %d, RMSECV %v and %v", r1, r3, one, three)
	}
	code, out, _ := kplsRun(t, "select", "--data", data, "--widths", "2", "--kernels", "rbf", "--components", "3", "--max-components", "3", "--repeats", "2")
	if code != 0 || !strings.Contains(out, "repeated 2 times") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	for _, args := range [][]string{{"--repeats", "-1"}, {"--repeats", "2", "--criterion", "gcv"}} {
		if code, _, stderr := kplsRun(t, append([]string{"select", "--data", data}, args...)...); code != 2 || !strings.Contains(stderr, "--repeats") {
			t.Errorf("%q: exit %d: %s", args, code, stderr)
		}
	}
}
