package main

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// TestStorageFlags fits the same data with every --storage and checks
// that the JSON names the storage used and that the statistics agree with
// the dense fit (to 1e-10 for the float64 kinds; the library's storage
// test holds float32 to its own bar).
func TestStorageFlags(t *testing.T) {
	train := writeFile(t, "train.csv", smallCSV(300))
	type doc struct {
		Storage struct {
			Kind        string
			Bytes       int64
			MemoryLimit int64 `json:"memory_limit"`
		}
		Path []struct {
			RSS, DoF float64
		}
	}
	fit := func(args ...string) doc {
		t.Helper()
		code, out, stderr := kplsRun(t, append([]string{"fit", "--data", train, "--components", "4", "--json", "--progress=off"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		var d doc
		if err := json.Unmarshal([]byte(out), &d); err != nil {
			t.Fatal(err)
		}
		return d
	}
	ref := fit("--storage", "dense")
	if ref.Storage.Kind != "dense" || ref.Storage.Bytes != 8*300*300 {
		t.Errorf("dense: storage %+v", ref.Storage)
	}
	for _, c := range []struct {
		args  []string
		kind  string
		bytes int64
	}{
		{[]string{"--storage", "matrix-free"}, "matrix-free", 0},
		{[]string{"--storage", "hybrid", "--memory-limit", "300KiB"}, "hybrid", 300 << 10},
		{[]string{"--memory-limit", "100KB"}, "matrix-free", 0}, // auto: not one tile fits
		{[]string{"--memory-limit", "720000"}, "dense", 8 * 300 * 300},
	} {
		d := fit(c.args...)
		if d.Storage.Kind != c.kind || d.Storage.Bytes != c.bytes {
			t.Errorf("%v: storage %+v, want %s with %d bytes", c.args, d.Storage, c.kind, c.bytes)
		}
		if len(ref.Path) != 5 || len(d.Path) != len(ref.Path) {
			t.Fatalf("%v: %d path rows, dense %d", c.args, len(d.Path), len(ref.Path))
		}
		for i, s := range d.Path {
			r := ref.Path[i]
			if !(math.Abs(s.RSS-r.RSS) <= 1e-10*r.RSS) || !(math.Abs(s.DoF-r.DoF) <= 1e-10*r.DoF) {
				t.Errorf("%v: m = %d: RSS %g DoF %g, dense %g %g", c.args, i, s.RSS, s.DoF, r.RSS, r.DoF)
			}
		}
	}
	code, _, stderr := kplsRun(t, "fit", "--data", train, "--storage", "dense", "--memory-limit", "500KB")
	if code == 0 || !strings.Contains(stderr, "memory limit") || !strings.Contains(stderr, "train.csv") {
		t.Errorf("dense over the limit: exit %d: %s", code, stderr)
	}
	// The linear kernel (two features, so two components): auto holds it
	// through its centred inputs.
	lin := fit("--kernel", "linear", "--components", "2", "--storage", "dense")
	for _, args := range [][]string{{"--kernel", "linear", "--components", "2"}, {"--kernel", "linear", "--components", "2", "--storage", "features"}} {
		d := fit(args...)
		if d.Storage.Kind != "features" || d.Storage.Bytes != 8*300*2 || len(d.Path) != len(lin.Path) {
			t.Errorf("%v: storage %+v, %d path rows, want features with %d bytes", args, d.Storage, len(d.Path), 8*300*2)
			continue
		}
		for i, s := range d.Path {
			r := lin.Path[i]
			if !(math.Abs(s.RSS-r.RSS) <= 1e-10*r.RSS) || !(math.Abs(s.DoF-r.DoF) <= 1e-10*r.DoF) {
				t.Errorf("%v: m = %d: RSS %g DoF %g, dense %g %g", args, i, s.RSS, s.DoF, r.RSS, r.DoF)
			}
		}
	}
	for _, cmd := range []string{"fit", "select"} {
		code, _, stderr := kplsRun(t, cmd, "--data", train, "--storage", "features")
		if code != 2 || !strings.Contains(stderr, "linear kernel only") {
			t.Errorf("%s --storage features with the rbf kernel: exit %d: %s", cmd, code, stderr)
		}
	}
	for _, bad := range [][]string{{"--storage", "sparse"}, {"--memory-limit", "8XB"}, {"--memory-limit", "-1"}, {"--memory-limit", "GiB"}} {
		code, _, stderr := kplsRun(t, append([]string{"fit", "--data", train}, bad...)...)
		if code != 2 || !strings.Contains(stderr, bad[0]) {
			t.Errorf("%v: exit %d: %s", bad, code, stderr)
		}
	}
}
