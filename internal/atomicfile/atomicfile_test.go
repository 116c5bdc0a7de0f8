package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// setUmask sets the process's umask for the test and restores it after.
// The tests that call it do not run in parallel.
func setUmask(t *testing.T, mask int) {
	old := syscall.Umask(mask)
	t.Cleanup(func() { syscall.Umask(old) })
}

func content(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

// only fails unless dir holds exactly the named files: no temporary left.
func only(t *testing.T, dir string, names ...string) {
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
		t.Errorf("directory holds %q, want %q", got, names)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func perm(t *testing.T, path string) fs.FileMode {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

func TestNewFileModeFollowsUmask(t *testing.T) {
	for _, c := range []struct {
		umask      int
		perm, want fs.FileMode
	}{
		{0o022, 0o666, 0o644},
		{0o077, 0o666, 0o600},
		{0o002, 0o666, 0o664},
		{0o022, 0o600, 0o600},
		{0o077, 0o600, 0o600},
		{0o000, 0o600, 0o600},
	} {
		setUmask(t, c.umask)
		dir := t.TempDir()
		p := filepath.Join(dir, "out")
		if err := Write(p, c.perm, content("x")); err != nil {
			t.Fatal(err)
		}
		if got := perm(t, p); got != c.want {
			t.Errorf("umask %03o, perm %03o: mode %03o, want %03o", c.umask, c.perm, got, c.want)
		}
		only(t, dir, "out")
	}
}

func TestReplaceKeepsMode(t *testing.T) {
	setUmask(t, 0o077)
	for _, old := range []fs.FileMode{0o640, 0o604, 0o600, 0o444} {
		dir := t.TempDir()
		p := filepath.Join(dir, "out")
		if err := os.WriteFile(p, []byte("old"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, old); err != nil {
			t.Fatal(err)
		}
		if err := Write(p, 0o600, content("new")); err != nil {
			t.Fatal(err)
		}
		if got := perm(t, p); got != old {
			t.Errorf("replacing a file of mode %03o: mode %03o", old, got)
		}
		if s := readFile(t, p); s != "new" {
			t.Errorf("content %q", s)
		}
		only(t, dir, "out")
	}
}

// specialTargets makes one of each kind of file Write refuses, in a fresh
// directory, and returns them with a check that each is what it was.
func specialTargets(t *testing.T) (map[string]string, func()) {
	dir := t.TempDir()
	targets := map[string]string{}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	targets["named pipe"] = fifo
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("pointed to"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	targets["symbolic link"] = link
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	targets["directory"] = sub
	// A device node of our own (the null device's numbers) where we may
	// make one, so that a regression replaces a copy, not /dev/null; else
	// /dev/null itself where we cannot write /dev (not root).
	dev := filepath.Join(dir, "null")
	if err := syscall.Mknod(dev, syscall.S_IFCHR|0o666, int(1<<8|3)); err == nil {
		targets["device"] = dev
	} else if os.Geteuid() != 0 {
		targets["device"] = os.DevNull
	}
	return targets, func() {
		t.Helper()
		for what, p := range targets {
			fi, err := os.Lstat(p)
			if err != nil {
				t.Errorf("%s %s: %v", what, p, err)
				continue
			}
			if fi.Mode().IsRegular() {
				t.Errorf("%s %s was replaced by a regular file", what, p)
			}
		}
		if s := readFile(t, file); s != "pointed to" {
			t.Errorf("the symbolic link's file now holds %q", s)
		}
		if _, ok := targets["device"]; ok && targets["device"] != os.DevNull {
			only(t, dir, "fifo", "file", "link", "null", "sub")
		} else {
			only(t, dir, "fifo", "file", "link", "sub")
		}
	}
}

func TestRefusesWhatIsNotARegularFile(t *testing.T) {
	targets, check := specialTargets(t)
	if _, ok := targets["device"]; !ok {
		t.Log("no device node to test: cannot make one, and /dev/null is writable")
	}
	for what, p := range targets {
		called := false
		err := Write(p, 0o666, func(w io.Writer) error { called = true; return content("x")(w) })
		if !errors.Is(err, ErrNotRegular) {
			t.Errorf("%s: Write error %v, want ErrNotRegular", what, err)
		} else if !strings.Contains(err.Error(), what) {
			t.Errorf("%s: error %q does not say what the file is", what, err)
		}
		if called {
			t.Errorf("%s: the content was written", what)
		}
		if err := Check(p); !errors.Is(err, ErrNotRegular) {
			t.Errorf("%s: Check error %v, want ErrNotRegular", what, err)
		}
	}
	check()
}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	if err := Check(filepath.Join(dir, "new")); err != nil {
		t.Errorf("a new file: %v", err)
	}
	p := filepath.Join(dir, "old")
	os.WriteFile(p, nil, 0o644)
	if err := Check(p); err != nil {
		t.Errorf("a regular file: %v", err)
	}
	if err := Check(filepath.Join(dir, "missing", "f")); err == nil {
		t.Error("a file in a directory that does not exist: no error")
	}
	if err := Check(filepath.Join(p, "f")); err == nil {
		t.Error("a file under a regular file: no error")
	}
}

// A write that fails part-way, wherever it fails, leaves the old file as
// it was and no temporary file.
func TestFailedWriteKeepsOldFile(t *testing.T) {
	full := errors.New("no space left on device")
	for _, n := range []int{0, 1, 100, 70 << 10, 1 << 20} {
		dir := t.TempDir()
		p := filepath.Join(dir, "out.csv")
		if err := os.WriteFile(p, []byte("old,content\n1,2\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		err := Write(p, 0o666, func(w io.Writer) error {
			// As a writer that has room for n bytes only.
			b := []byte(strings.Repeat("1.2345,", n/7+1))[:n]
			if _, err := w.Write(b); err != nil {
				return err
			}
			return full
		})
		if !errors.Is(err, full) || !strings.Contains(err.Error(), p) {
			t.Errorf("n = %d: error %v", n, err)
		}
		if s := readFile(t, p); s != "old,content\n1,2\n" {
			t.Errorf("n = %d: the old file now holds %d bytes", n, len(s))
		}
		only(t, dir, "out.csv")
	}
}

// A write error the writing code ignores still fails the write: the
// buffer keeps it.
func TestIgnoredErrorStillFails(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out")
	os.WriteFile(p, []byte("old"), 0o644)
	// /dev/full fails every write, so the buffer's flush fails.
	devFull, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no /dev/full:", err)
	}
	defer devFull.Close()
	bw := bufio.NewWriter(devFull)
	bw.WriteString("x")
	if bw.Flush() == nil {
		t.Skip("/dev/full accepts writes here")
	}
	// Write hands its buffer over the temporary file to the writing
	// code; pointed at /dev/full it fails as on a full disk, and the
	// writing code ignores the error, as fmt.Fprint's callers do.
	err = Write(p, 0o666, func(w io.Writer) error {
		w.(*File).bw.Reset(devFull)
		fmt.Fprint(w, strings.Repeat("y", 100))
		return nil
	})
	if err == nil {
		t.Error("no error")
	}
	if s := readFile(t, p); s != "old" {
		t.Errorf("old file holds %q", s)
	}
	only(t, dir, "out")
}

func TestPanicRemovesTemporary(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out")
	os.WriteFile(p, []byte("old"), 0o644)
	func() {
		defer func() {
			if recover() == nil {
				t.Error("the panic did not come through")
			}
		}()
		Write(p, 0o666, func(w io.Writer) error { io.WriteString(w, "half"); panic("boom") })
	}()
	if s := readFile(t, p); s != "old" {
		t.Errorf("old file holds %q", s)
	}
	only(t, dir, "out")
	reg.Lock()
	defer reg.Unlock()
	if len(reg.live) != 0 || reg.ch != nil {
		t.Errorf("registry still lists %v (listening: %t)", reg.live, reg.ch != nil)
	}
}

func TestSameFile(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a")
	b := filepath.Join(dir, "b")
	os.WriteFile(a, []byte("a"), 0o644)
	os.WriteFile(b, []byte("b"), 0o644)
	hard := filepath.Join(dir, "hard")
	if err := os.Link(a, hard); err != nil {
		t.Fatal(err)
	}
	soft := filepath.Join(dir, "soft")
	if err := os.Symlink("a", soft); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	for _, c := range []struct {
		x, y string
		want bool
	}{
		{a, a, true},
		{a, "a", true},
		{"./a", filepath.Join(dir, ".", "sub", "..", "a"), true},
		{a, hard, true},
		{a, soft, true},
		{a, b, false},
		{"new", filepath.Join(dir, "new"), true}, // neither exists
		{"new", "other", false},
		{"-", "-", false},
		{"", "", false},
	} {
		if got := SameFile(c.x, c.y); got != c.want {
			t.Errorf("SameFile(%q, %q) = %t, want %t", c.x, c.y, got, c.want)
		}
	}
}

type failAfter struct {
	n   int
	err error
}

func (f *failAfter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		n := f.n
		f.n = 0
		return n, f.err
	}
	f.n -= len(p)
	return len(p), nil
}

func TestChecked(t *testing.T) {
	full := errors.New("full")
	c := NewChecked(&failAfter{n: 5, err: full})
	if _, err := io.WriteString(c, "abc"); err != nil || c.Err() != nil {
		t.Fatal(err, c.Err())
	}
	fmt.Fprint(c, "defgh") // error ignored, as fmt.Fprint's callers do
	if !errors.Is(c.Err(), full) {
		t.Errorf("Err() = %v", c.Err())
	}
	if n, err := io.WriteString(c, "i"); n != 0 || !errors.Is(err, full) {
		t.Errorf("a write after the error: %d, %v", n, err)
	}
}

// Signals: the child writes a file and stops half-way; the parent
// signals it and looks for the temporary file.

const childEnv = "ATOMICFILE_TEST_CHILD"

func TestSignalChild(t *testing.T) {
	p := os.Getenv(childEnv)
	if p == "" {
		t.Skip("run by TestSignalRemovesTemporary")
	}
	err := Write(p, 0o666, func(w io.Writer) error {
		io.WriteString(w, strings.Repeat("half a model ", 10000)) // past the buffer: on disk
		fmt.Println("ready")
		time.Sleep(time.Minute)
		return nil
	})
	fmt.Println("not interrupted:", err)
	os.Exit(0)
}

func TestSignalRemovesTemporary(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		dir := t.TempDir()
		p := filepath.Join(dir, "model")
		os.WriteFile(p, []byte("old"), 0o644)
		cmd := exec.Command(os.Args[0], "-test.run=^TestSignalChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), childEnv+"="+p)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		line, err := bufio.NewReader(out).ReadString('\n')
		if line != "ready\n" {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("child said %q (%v); stderr:\n%s", line, err, stderr.String())
		}
		// The temporary file is there while the write runs.
		if es, _ := os.ReadDir(dir); len(es) != 2 {
			t.Errorf("%v: %d files during the write, want the old one and a temporary", sig, len(es))
		}
		cmd.Process.Signal(sig)
		err = cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != ExitInterrupted {
			t.Errorf("%v: child ended with %v, want exit status %d; stderr:\n%s", sig, err, ExitInterrupted, stderr.String())
		}
		if !strings.Contains(stderr.String(), "interrupted") {
			t.Errorf("%v: stderr %q says nothing of the interruption", sig, stderr.String())
		}
		if s := readFile(t, p); s != "old" {
			t.Errorf("%v: old file holds %d bytes", sig, len(s))
		}
		only(t, dir, "model")
	}
}

func TestCreateCommitAbort(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out")
	os.WriteFile(p, []byte("old"), 0o644)
	f, err := Create(p, 0o666)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(f, "half")
	f.Abort()
	f.Abort() // again: nothing
	if f.Commit() == nil {
		t.Error("Commit after Abort: no error")
	}
	if s := readFile(t, p); s != "old" {
		t.Errorf("after Abort the file holds %q", s)
	}
	only(t, dir, "out")
	f, err = Create(p, 0o666)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(f, "new")
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	f.Abort() // after Commit: nothing
	if s := readFile(t, p); s != "new" {
		t.Errorf("after Commit the file holds %q", s)
	}
	only(t, dir, "out")
}
