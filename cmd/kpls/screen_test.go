package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestSelectScreen: --screen ROWS screens the grid on a sample of that
// many rows, the JSON says what it kept and dropped and the table holds
// the kept points only; --screen off and the default below 6,144 rows
// leave "screen" out; a bad value is a usage error naming the flag.
func TestSelectScreen(t *testing.T) {
	data := writeFile(t, "d.csv", smallCSV(400))
	code, out, errs := kplsRun(t, "select", "--data", data, "--screen", "120", "--json", "--progress=off")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc selectJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	sc := doc.Screen
	if sc == nil || sc.Rows != 120 || sc.Passes == 0 || len(sc.Kept) == 0 || len(sc.Dropped) == 0 {
		t.Fatalf("screen %+v, want 120 rows with points kept and dropped", sc)
	}
	kept := map[string]bool{}
	for _, k := range sc.Kept {
		kept[pointList([]skippedJSON{k})] = true
	}
	for _, r := range doc.Table {
		if p := pointList([]skippedJSON{{Kernel: r.Kernel, Width: r.Width}}); !kept[p] {
			t.Fatalf("table row of %s, not a kept point (%v)", p, sc.Kept)
		}
	}
	for _, args := range [][]string{{"--screen", "off"}, {}} {
		_, out, _ := kplsRun(t, append([]string{"select", "--data", data, "--json", "--progress=off"}, args...)...)
		if strings.Contains(out, `"screen"`) {
			t.Errorf("%v: the document has a screen", args)
		}
	}
	if code, _, errs := kplsRun(t, "select", "--data", data, "--screen", "some"); code != 2 || !strings.Contains(errs, "--screen") {
		t.Errorf("--screen some: exit %d, %q", code, errs)
	}
}
