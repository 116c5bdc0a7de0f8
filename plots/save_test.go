package plots

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Figures are written as the commands' files are (internal/atomicfile):
// a target that is not a regular file is refused and left as it was, a
// new figure's mode follows the umask, a replaced one keeps its mode, and
// no temporary file is left behind.
func TestSaveRefusesSpecialFilesAndKeepsModes(t *testing.T) {
	y := []float64{1, 2, 3, 4}
	yhat := []float64{1.1, 1.9, 3.2, 3.8}
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.png")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	// Open both ends, so that a writer would not block: a regression
	// fails rather than hangs.
	f, err := os.OpenFile(fifo, os.O_RDWR|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	file := filepath.Join(dir, "file.png")
	os.WriteFile(file, []byte("old figure"), 0o644)
	link := filepath.Join(dir, "link.png")
	if err := os.Symlink("file.png", link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fifo, link} {
		err := ObservedVsPredicted(p, y, yhat)
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("%s: error %v", filepath.Base(p), err)
		}
		if fi, _ := os.Lstat(p); fi.Mode().IsRegular() {
			t.Errorf("%s was replaced by a regular file", filepath.Base(p))
		}
	}
	if b, _ := os.ReadFile(file); string(b) != "old figure" {
		t.Errorf("the link's file now holds %d bytes", len(b))
	}

	old := syscall.Umask(0o027)
	defer syscall.Umask(old)
	fresh := filepath.Join(dir, "new.svg")
	if err := ObservedVsPredicted(fresh, y, yhat); err != nil {
		t.Fatal(err)
	}
	checkSVG(t, fresh)
	if fi, _ := os.Stat(fresh); fi.Mode().Perm() != 0o640 {
		t.Errorf("new figure under umask 027: mode %03o, want 640", fi.Mode().Perm())
	}
	os.Chmod(file, 0o604)
	if err := ObservedVsPredicted(file, y, yhat); err != nil {
		t.Fatal(err)
	}
	checkPNG(t, file, 0, 0)
	if fi, _ := os.Stat(file); fi.Mode().Perm() != 0o604 {
		t.Errorf("replaced figure: mode %03o, want 604", fi.Mode().Perm())
	}
	es, _ := os.ReadDir(dir)
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	if got := strings.Join(names, ","); got != "fifo.png,file.png,link.png,new.svg" {
		t.Errorf("directory holds %s", got)
	}
}
