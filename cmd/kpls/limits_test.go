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

// TestErrorClipped: an error that quotes a hostile input (here a header
// cell of a megabyte, listed among the columns a missing target is not)
// prints a bounded message that still names the file and the problem.
func TestErrorClipped(t *testing.T) {
	huge := strings.Repeat("x", 1<<20)
	path := writeFile(t, "huge.csv", "a,"+huge+",y\n1,2,3\n4,5,6\n7,8,9\n")
	code, _, stderr := kplsRun(t, "fit", "--data", path, "--target", "nope")
	if code == 0 || len(stderr) > 4000 || !strings.Contains(stderr, "nope") || !strings.Contains(stderr, "bytes in all") {
		t.Errorf("exit %d, %d bytes of stderr: %.300s", code, len(stderr), stderr)
	}
}
