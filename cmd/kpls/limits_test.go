package main

import (
	"strings"
	"testing"
)

// TestMaxLineBytes: a record longer than --max-line-bytes is refused with
// the file, the line and the flag that raises the limit; raising it reads
// the file.
func TestMaxLineBytes(t *testing.T) {
	csv := smallCSV(40)
	lines := strings.SplitAfter(csv, "\n")
	lines[3] = strings.TrimSuffix(lines[3], "\n") + strings.Repeat(" ", 300) + "\n" // spaces: still numbers
	path := writeFile(t, "long.csv", strings.Join(lines, ""))
	code, _, stderr := kplsRun(t, "fit", "--data", path, "--components", "2", "--max-line-bytes", "200")
	if code == 0 || !strings.Contains(stderr, path) || !strings.Contains(stderr, "line 4") || !strings.Contains(stderr, "--max-line-bytes") {
		t.Errorf("a 300-byte line under a 200-byte limit: exit %d: %s", code, stderr)
	}
	if code, _, stderr := kplsRun(t, "fit", "--data", path, "--components", "2", "--max-line-bytes", "1000"); code != 0 {
		t.Errorf("the limit raised: exit %d: %s", code, stderr)
	}
	if code, _, stderr := kplsRun(t, "fit", "--data", path, "--components", "2", "--max-line-bytes", "-1"); code != 0 {
		t.Errorf("no limit: exit %d: %s", code, stderr)
	}
}
