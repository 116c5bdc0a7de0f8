package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
)

// ErrNotRegular is wrapped by the error about a target that exists and is
// not a regular file.
var ErrNotRegular = errors.New("not a regular file")

// Check reports whether path may be written by Write: its directory exists
// and it is absent or a regular file. Commands call it before long work so
// that a bad output is refused at once; Write checks again.
func Check(path string) error {
	if path == "" {
		return errors.New("empty file name")
	}
	if _, err := target(path); err != nil {
		return err
	}
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("cannot write %s: %s is not a directory", path, dir)
	}
	return nil
}

// target returns what path names now: nil when nothing, the file's
// information when a regular file, an error otherwise.
func target(path string) (fs.FileInfo, error) {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("cannot write %s: %w", path, err)
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("refusing to replace %s: %w but %s", path, ErrNotRegular, kind(fi.Mode()))
	}
	return fi, nil
}

// kind names a file type that is not a regular file.
func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link (give the file it points to)"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "a special file"
}

// SameFile reports whether the files a and b name are one file: by
// os.SameFile when both exist (through links of either kind), else by
// their cleaned absolute paths. An empty name or "-" (standard input or
// output) is no file.
func SameFile(a, b string) bool {
	if a == "" || b == "" || a == "-" || b == "-" {
		return false
	}
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return os.SameFile(fa, fb)
	}
	aa, errA := filepath.Abs(a)
	bb, errB := filepath.Abs(b)
	return errA == nil && errB == nil && aa == bb
}

// Write writes path as Create, write and Commit do: write fills the file
// (its own unchecked write errors still fail the whole, as the File keeps
// them), and on any failure, or a panic in write, the old file is left as
// it was and the temporary file removed.
func Write(path string, perm fs.FileMode, write func(io.Writer) error) error {
	f, err := Create(path, perm)
	if err != nil {
		return err
	}
	defer f.Abort()
	if err := write(f); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return f.Commit()
}

// File is a file being written: a buffered temporary file in the
// target's directory, which Commit puts in the target's place and Abort
// removes.
type File struct {
	path string
	f    *os.File
	bw   *bufio.Writer
	done bool
}

// Create starts writing path: it refuses a target that is not a regular
// file and creates the temporary file, with the permission bits of the
// file it will replace, or perm less the umask for a new one (see the
// package documentation). Defer Abort after it.
func Create(path string, perm fs.FileMode) (*File, error) {
	old, err := target(path)
	if err != nil {
		return nil, err
	}
	createPerm := perm.Perm()
	if old != nil {
		createPerm = 0o600 // until its mode is set below, past the umask
	}
	f, err := createTemp(path, createPerm)
	if err != nil {
		return nil, fmt.Errorf("cannot write %s: %w", path, err)
	}
	if old != nil {
		if err := keepMode(f, old); err != nil {
			f.Close()
			discard(f.Name())
			return nil, fmt.Errorf("cannot write %s: %w", path, err)
		}
	}
	return &File{path: path, f: f, bw: bufio.NewWriterSize(f, 64<<10)}, nil
}

// Write writes to the temporary file. A write error is kept, and Commit
// returns it.
func (f *File) Write(p []byte) (int, error) { return f.bw.Write(p) }

// Commit flushes, fsyncs and closes the temporary file and renames it over
// the target, then fsyncs the directory. When it fails before the rename
// the temporary file is removed and the old file left as it was.
func (f *File) Commit() error {
	if f.done {
		return fmt.Errorf("writing %s: already committed or aborted", f.path)
	}
	fail := func(err error) error {
		f.Abort()
		return fmt.Errorf("writing %s: %w", f.path, err)
	}
	if err := f.bw.Flush(); err != nil {
		return fail(err)
	}
	if err := f.f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.f.Close(); err != nil {
		return fail(err)
	}
	if err := commit(f.f.Name(), f.path); err != nil {
		return fail(err)
	}
	f.done = true
	// The rename is durable once the directory is synced. Some file
	// systems cannot sync a directory (EINVAL): nothing more to do there.
	if err := syncDir(filepath.Dir(f.path)); err != nil && !errors.Is(err, syscall.EINVAL) {
		return fmt.Errorf("%s written, but syncing its directory: %w", f.path, err)
	}
	return nil
}

// Abort removes the temporary file unless Commit put it in place; the old
// file is left as it was. It may be called more than once, and after
// Commit, so that it can be deferred.
func (f *File) Abort() {
	if f == nil || f.done {
		return
	}
	f.done = true
	f.f.Close()
	discard(f.f.Name())
}

// keepMode gives the temporary file f the permission bits, owner and
// group of the file old it replaces. Owner and group are kept where the
// process may set them; where the group cannot be kept, its bits are
// dropped, so that the file's new group gains nothing.
func keepMode(f *os.File, old fs.FileInfo) error {
	mode := old.Mode().Perm()
	if st, ok := old.Sys().(*syscall.Stat_t); ok {
		if cur, err := f.Stat(); err == nil {
			if c, ok := cur.Sys().(*syscall.Stat_t); ok && (c.Uid != st.Uid || c.Gid != st.Gid) {
				if f.Chown(int(st.Uid), int(st.Gid)) != nil {
					if f.Chown(-1, int(st.Gid)) != nil && c.Gid != st.Gid {
						mode &^= 0o070
					}
				}
			}
		}
	}
	return f.Chmod(mode)
}

// createTemp creates a new file next to path, registered for removal on
// a signal, with permission perm less the umask.
func createTemp(path string, perm fs.FileMode) (*os.File, error) {
	dir, base := filepath.Split(path)
	if len(base) > 64 {
		base = base[:64] // room for the suffix within NAME_MAX
	}
	for range 100 {
		name := filepath.Join(dir, "."+base+"."+strconv.FormatUint(rand.Uint64(), 36)+".kpls-tmp")
		reg.Lock() // registered before a signal could find it unlisted
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if err == nil {
			reg.add(name)
		}
		reg.Unlock()
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, err
	}
	return nil, fmt.Errorf("no free temporary name in %s", dir)
}

// commit renames the temporary file over path and forgets it, with the
// registry locked so that a signal finds it either still to remove or in
// place.
func commit(tmp, path string) error {
	reg.Lock()
	defer reg.Unlock()
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	reg.remove(tmp)
	return nil
}

// discard removes a temporary file and forgets it.
func discard(tmp string) {
	reg.Lock()
	defer reg.Unlock()
	os.Remove(tmp)
	reg.remove(tmp)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// Checked passes writes on to a writer and keeps the first error, after
// which every write fails with it. It is safe for concurrent use.
type Checked struct {
	mu  sync.Mutex
	w   io.Writer
	err error
}

// NewChecked returns a Checked writing to w.
func NewChecked(w io.Writer) *Checked { return &Checked{w: w} }

func (c *Checked) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	c.err = err
	return n, err
}

// Err is the first error a write returned, nil if none.
func (c *Checked) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}
