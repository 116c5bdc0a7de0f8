package main

import (
	"encoding/json"
	"errors"
	"github.com/kpls-go/kpls/cmd/cli"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// Issue 44 item 3, "Files that are never lost": models, predictions and
// standard output.

// fitModel fits a small model and saves it in a fresh directory.
func fitModel(t *testing.T) (model, data string) {
	t.Helper()
	dir := t.TempDir()
	data = filepath.Join(dir, "train.csv")
	if err := os.WriteFile(data, []byte(smallCSV(40)), 0o644); err != nil {
		t.Fatal(err)
	}
	model = filepath.Join(dir, "model.kpls")
	if code, _, stderr := kplsRun(t, "fit", "--data", data, "--width", "2", "--components", "4", "--dof", "none", "--model", model); code != 0 {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	return model, data
}

// dirHolds fails unless dir holds exactly the named files: no temporary
// file left behind.
func dirHolds(t *testing.T, dir string, names ...string) {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range es {
		got = append(got, e.Name())
	}
	if strings.Join(got, ",") != strings.Join(names, ",") {
		t.Errorf("%s holds %q, want %q", dir, got, names)
	}
}

func fileMode(t *testing.T, p string) fs.FileMode {
	t.Helper()
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode()
}

// specials makes a named pipe, a symbolic link to a file and a device
// node in a fresh directory. The device is a null device of the test's own
// where it may make one, so that a regression replaces a copy and never
// /dev/null; /dev/null itself only where /dev is not writable (not root).
// check fails if any of them was replaced or the link's file changed.
func specials(t *testing.T) (map[string]string, func()) {
	t.Helper()
	dir := t.TempDir()
	m := map[string]string{
		"named pipe":    filepath.Join(dir, "fifo"),
		"symbolic link": filepath.Join(dir, "link"),
	}
	if err := syscall.Mkfifo(m["named pipe"], 0o644); err != nil {
		t.Fatal(err)
	}
	// Open for reading and writing, so that a writer's open and small
	// writes do not block (a regression then fails, not hangs).
	fifo, err := os.OpenFile(m["named pipe"], os.O_RDWR|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fifo.Close() })
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("pointed to"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("file", m["symbolic link"]); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mknod(filepath.Join(dir, "null"), syscall.S_IFCHR|0o666, 1<<8|3); err == nil {
		m["device"] = filepath.Join(dir, "null")
	} else if os.Geteuid() != 0 {
		m["device"] = os.DevNull
	}
	return m, func() {
		t.Helper()
		for what, p := range m {
			if fileMode(t, p).IsRegular() {
				t.Errorf("the %s %s was replaced by a regular file", what, p)
			}
		}
		if b, _ := os.ReadFile(file); string(b) != "pointed to" {
			t.Errorf("the symbolic link's file now holds %q", b)
		}
		var names []string
		for _, p := range m {
			if filepath.Dir(p) == dir {
				names = append(names, filepath.Base(p))
			}
		}
		names = append(names, "file")
		slices.Sort(names)
		dirHolds(t, dir, names...)
	}
}

// --model and --output onto what is not a regular file are refused and
// the node left as it was; a symbolic link is refused, not followed.
func TestOutputOntoSpecialFilesRefused(t *testing.T) {
	model, data := fitModel(t)
	targets, check := specials(t)
	for what, p := range targets {
		for _, args := range [][]string{
			{"fit", "--data", data, "--width", "2", "--components", "3", "--dof", "none", "--model", p},
			{"select", "--data", data, "--widths", "2", "--components", "3", "--model", p},
			{"predict", "--model", model, "--data", data, "--output", p, "--format", "csv"},
		} {
			code, _, stderr := kplsRun(t, args...)
			if code == 0 || !strings.Contains(stderr, "not a regular file") || !strings.Contains(stderr, what) {
				t.Errorf("kpls %s onto a %s: exit %d, stderr %q", args[0], what, code, stderr)
			}
		}
	}
	check()
}

// setUmask sets the process's umask for the test and restores it after;
// the tests of this package that call it do not run in parallel.
func setUmask(t *testing.T, mask int) {
	old := syscall.Umask(mask)
	t.Cleanup(func() { syscall.Umask(old) })
}

// A new model is never more open than 0600 (it holds the training data),
// predictions follow the umask, and a replaced file keeps its mode.
func TestOutputModes(t *testing.T) {
	_, data := fitModel(t)
	for _, c := range []struct {
		umask             int
		model, prediction fs.FileMode
	}{
		{0o022, 0o600, 0o644},
		{0o002, 0o600, 0o664},
		{0o027, 0o600, 0o640},
		{0o077, 0o600, 0o600},
		{0o277, 0o400, 0o400},
	} {
		setUmask(t, c.umask)
		dir := t.TempDir()
		model := filepath.Join(dir, "m.kpls")
		out := filepath.Join(dir, "p.csv")
		if code, _, stderr := kplsRun(t, "fit", "--data", data, "--width", "2", "--components", "3", "--dof", "none", "--model", model); code != 0 {
			t.Fatalf("fit: %s", stderr)
		}
		if code, _, stderr := kplsRun(t, "predict", "--model", model, "--data", data, "--output", out); code != 0 {
			t.Fatalf("predict: %s", stderr)
		}
		if got := fileMode(t, model).Perm(); got != c.model {
			t.Errorf("umask %03o: new model of mode %03o, want %03o", c.umask, got, c.model)
		}
		if got := fileMode(t, out).Perm(); got != c.prediction {
			t.Errorf("umask %03o: new predictions of mode %03o, want %03o", c.umask, got, c.prediction)
		}
	}
	// Replacing: the old file's mode, whatever the umask.
	setUmask(t, 0o077)
	dir := t.TempDir()
	model := filepath.Join(dir, "m.kpls")
	out := filepath.Join(dir, "p.csv")
	for _, p := range []string{model, out} {
		os.WriteFile(p, []byte("old"), 0o600)
		os.Chmod(p, 0o640)
	}
	if code, _, stderr := kplsRun(t, "fit", "--data", data, "--width", "2", "--components", "3", "--dof", "none", "--model", model); code != 0 {
		t.Fatalf("fit: %s", stderr)
	}
	if code, _, stderr := kplsRun(t, "predict", "--model", model, "--data", data, "--output", out); code != 0 {
		t.Fatalf("predict: %s", stderr)
	}
	for _, p := range []string{model, out} {
		if got := fileMode(t, p).Perm(); got != 0o640 {
			t.Errorf("%s replaced a file of mode 640: mode %03o", filepath.Base(p), got)
		}
	}
	dirHolds(t, dir, "m.kpls", "p.csv")
}

// An output naming an input, however spelled, is refused and the input
// left as it was.
func TestOutputNamingInputRefused(t *testing.T) {
	model, data := fitModel(t)
	dir := filepath.Dir(model)
	hard := filepath.Join(dir, "hard.csv")
	if err := os.Link(data, hard); err != nil {
		t.Fatal(err)
	}
	before := map[string][]byte{}
	for _, p := range []string{model, data} {
		before[p], _ = os.ReadFile(p)
	}
	t.Chdir(dir)
	for _, args := range [][]string{
		{"predict", "--model", model, "--data", data, "--output", model},
		{"predict", "--model", model, "--data", data, "--output", "./model.kpls"},
		{"predict", "--model", "model.kpls", "--data", data, "--output", filepath.Join(dir, "..", filepath.Base(dir), "model.kpls")},
		{"predict", "--model", model, "--data", data, "--output", data},
		{"predict", "--model", model, "--data", data, "--output", hard},
		{"fit", "--data", data, "--width", "2", "--components", "3", "--dof", "none", "--model", data},
		{"fit", "--data", "train.csv", "--width", "2", "--components", "3", "--dof", "none", "--model", hard},
		{"select", "--data", data, "--widths", "2", "--components", "3", "--model", data},
	} {
		code, _, stderr := kplsRun(t, args...)
		if code == 0 || !strings.Contains(stderr, "is also the input") {
			t.Errorf("kpls %q: exit %d, stderr %q", args, code, stderr)
		}
	}
	for p, b := range before {
		if now, _ := os.ReadFile(p); string(now) != string(b) {
			t.Errorf("%s was changed", p)
		}
	}
	dirHolds(t, dir, "hard.csv", "model.kpls", "train.csv")
}

// The command in a child process: this test binary run with childArgs set
// runs main with them, under the umask and file size limit the parent
// asks for.
const (
	childArgs  = "KPLS_TEST_ARGS"
	childFSize = "KPLS_TEST_FSIZE"
)

func TestKplsChild(t *testing.T) {
	a := os.Getenv(childArgs)
	if a == "" {
		t.Skip("run by the tests that start the command as a process")
	}
	var args []string
	if err := json.Unmarshal([]byte(a), &args); err != nil {
		panic(err)
	}
	if s := os.Getenv(childFSize); s != "" {
		n, _ := strconv.ParseUint(s, 10, 64)
		// Files may not grow beyond n bytes, as on a full disk (EFBIG;
		// Go ignores SIGXFSZ).
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: n, Max: n}); err != nil {
			panic(err)
		}
	}
	os.Args = append([]string{"kpls"}, args...)
	main()
}

// kplsProcess runs the command as a process with stdout to the given file
// (nil: a pipe) and returns its exit status, stdout and stderr.
func kplsProcess(t *testing.T, stdout *os.File, env []string, args ...string) (int, string, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts child processes")
	}
	b, _ := json.Marshal(args)
	cmd := exec.Command(os.Args[0], "-test.run=^TestKplsChild$", "-test.count=1")
	cmd.Env = append(append(os.Environ(), childArgs+"="+string(b)), env...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	if stdout != nil {
		cmd.Stdout = stdout
	}
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return ee.ExitCode(), out.String(), errb.String()
	case err != nil:
		t.Fatal(err)
	}
	return 0, out.String(), errb.String()
}

// A write that fails part-way (a full disk: here a file size limit)
// leaves the old predictions and model as they were, no temporary file,
// and a non-zero exit.
func TestFailedWriteKeepsOldFile(t *testing.T) {
	model, _ := fitModel(t)
	big := filepath.Join(t.TempDir(), "big.csv")
	os.WriteFile(big, []byte(smallCSV(2000)), 0o644)
	dir := t.TempDir()
	out := filepath.Join(dir, "p.csv")
	newModel := filepath.Join(dir, "m.kpls")
	const old = "row,yhat,outside,y\n1,0.5,false,0.4\n"
	os.WriteFile(out, []byte(old), 0o644)
	os.WriteFile(newModel, []byte(old), 0o644)
	limit := []string{childFSize + "=4096"}
	for _, args := range [][]string{
		{"predict", "--model", model, "--data", big, "--output", out},
		{"predict", "--model", model, "--data", big, "--output", out, "--format", "table"},
		{"predict", "--model", model, "--data", big, "--output", out, "--format", "json"},
		{"fit", "--data", big, "--width", "2", "--components", "3", "--dof", "none", "--model", newModel},
	} {
		code, _, stderr := kplsProcess(t, nil, limit, args...)
		if code != 1 || !strings.Contains(stderr, "file too large") {
			t.Errorf("kpls %s %s: exit %d, stderr %q", args[0], args[len(args)-1], code, stderr)
		}
	}
	for _, p := range []string{out, newModel} {
		if b, _ := os.ReadFile(p); string(b) != old {
			t.Errorf("%s now holds %d bytes, not the old file", p, len(b))
		}
	}
	dirHolds(t, dir, "m.kpls", "p.csv")
}

// Standard output that cannot be written ends in exit status 1 with a
// message, in every command and format.
func TestStdoutWriteErrors(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no /dev/full:", err)
	}
	defer full.Close()
	model, data := fitModel(t)
	for _, args := range [][]string{
		{"inspect", model},
		{"inspect", model, "--json"},
		{"fit", "--data", data, "--width", "2", "--components", "3", "--dof", "none"},
		{"fit", "--data", data, "--width", "2", "--components", "3", "--dof", "none", "--json"},
		{"predict", "--model", model, "--data", data},
		{"predict", "--model", model, "--data", data, "--format", "csv"},
		{"version"},
	} {
		code, _, stderr := kplsProcess(t, full, nil, args...)
		if code != 1 || !strings.Contains(stderr, "standard output") || !strings.Contains(stderr, "no space left") {
			t.Errorf("kpls %q > /dev/full: exit %d, stderr %q", args, code, stderr)
		}
	}
}

// failingWriter accepts n bytes, then fails every write.
type failingWriter struct{ n int }

var errFull = errors.New("no space left on device")

func (w *failingWriter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		n := w.n
		w.n = 0
		return n, errFull
	}
	w.n -= len(p)
	return len(p), nil
}

// The same in-process, the stdout failing after a few bytes.
func TestStdoutWriteErrorsInProcess(t *testing.T) {
	model, data := fitModel(t)
	for _, args := range [][]string{
		{"inspect", model},
		{"predict", "--model", model, "--data", data},
		{"select", "--data", data, "--widths", "1,2", "--components", "3"},
	} {
		for _, n := range []int{0, 10, 200} {
			var errb strings.Builder
			code := program.Run(t.Context(), args, cli.Env{Stdout: &failingWriter{n: n}, Stderr: &errb})
			if code != 1 || !strings.Contains(errb.String(), "standard output") {
				t.Errorf("kpls %s, stdout failing after %d bytes: exit %d, stderr %q", args[0], n, code, errb.String())
			}
		}
	}
}
