package scale

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/kpls-go/kpls/internal/cli"
	"github.com/kpls-go/kpls/lab/sim"
)

// The generated data set: sim.Friedman1 with 10 features, noise sd 1.
const (
	simD     = 10
	simNoise = 1.0
	simSeed  = 1
)

// options are the command's flags.
type options struct {
	shared, out, only     string
	n                     int
	skipProtein, skip100k bool
}

// spec is one child run: kpls with args, its output saved as OUT/name.*.
type spec struct {
	name string
	args []string
}

var runNames = []string{"kin8nm", "protein", "100k"}

// Run is `kpls-lab scale`.
func Run(_ context.Context, e *cli.Env, args []string) error {
	fs := cli.NewFlagSet("scale", "[flags]",
		"Runs kpls select on kin8nm and protein and kpls fit on generated Friedman #1 data, each in a\n"+
			"child process, and writes their wall time, peak RSS and the checks to OUT/results.md\n"+
			"(lab/scale/doc.go). Run from the module root on a quiet machine.")
	var o options
	fs.StringVar(&o.shared, "shared", "../shared", "the shared `directory` (its data/ holds kin8nm.csv and protein.csv)")
	fs.StringVar(&o.out, "out", "lab/scale/results", "`directory` for NAME.json, NAME.stderr and results.md")
	fs.IntVar(&o.n, "n", 100000, "rows of the generated Friedman #1 data of the 100k run")
	fs.BoolVar(&o.skipProtein, "skip-protein", false, "leave out the protein run")
	fs.BoolVar(&o.skip100k, "skip-100k", false, "leave out the 100k run")
	fs.StringVar(&o.only, "only", "", "run only `NAME`: kin8nm, protein or 100k")
	if err := fs.Parse(e, args); err != nil {
		return err
	}
	if (o.only != "" && !slices.Contains(runNames, o.only)) || o.n < 2 {
		return cli.Usagef("scale: --only takes kin8nm, protein or 100k, and --n at least 2")
	}
	return run(e, o)
}

// run makes the runs o asks for and writes the report.
func run(e *cli.Env, o options) error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "kpls-scale-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	bin := filepath.Join(tmp, "kpls")
	build := exec.Command("go", "build", "-o", bin, "./cmd/kpls")
	build.Dir, build.Stdout, build.Stderr = root, e.Stderr, e.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("go build ./cmd/kpls: %w", err)
	}
	m := meta{Date: time.Now().Format(time.RFC3339), GOMAXPROCS: runtime.GOMAXPROCS(0),
		Commit: commit(root), Version: output(bin, "version")}

	gen := filepath.Join(tmp, fmt.Sprintf("friedman1-%d.csv", o.n))
	specs := plan(o, gen)
	if slices.ContainsFunc(specs, func(s spec) bool { return s.name == "100k" }) {
		if err := writeFriedman(gen, o.n); err != nil {
			return err
		}
	}
	var rs []result
	for _, s := range specs {
		fmt.Fprintf(e.Stderr, "%s: kpls %s\n", s.name, strings.Join(s.args, " "))
		r, err := runChild(bin, s, o.out)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.Stderr, "%s: %.2f s, peak RSS %.2f GiB\n", s.name, r.Wall.Seconds(), gib(r.MaxRSS))
		rs = append(rs, r)
	}

	var doc bytes.Buffer
	failed := report(&doc, m, rs)
	e.Stdout.Write(doc.Bytes())
	if err := os.WriteFile(filepath.Join(o.out, "results.md"), doc.Bytes(), 0o644); err != nil {
		return err
	}
	if failed > 0 {
		return fmt.Errorf("%d check(s) failed", failed)
	}
	return nil
}

// plan lists the runs the options ask for; gen is the generated CSV.
func plan(o options, gen string) []spec {
	data := filepath.Join(o.shared, "data")
	sel := func(file, target string) []string {
		return []string{"select", "--data", filepath.Join(data, file), "--target", target,
			"--widths", "2,4.5,9", "--components", "30", "--lanczos", "30", "--json", "--progress=off"}
	}
	all := []spec{
		{"kin8nm", sel("kin8nm.csv", "y")},
		{"protein", sel("protein.csv", "RMSD")},
		{"100k", []string{"fit", "--data", gen, "--target", "y", "--components", "20", "--json", "--progress=off"}},
	}
	var specs []spec
	for _, s := range all {
		skip := (s.name == "protein" && o.skipProtein) || (s.name == "100k" && o.skip100k)
		if (o.only == "" && !skip) || o.only == s.name {
			specs = append(specs, s)
		}
	}
	return specs
}

// runChild runs kpls with s.args, saves its standard output and error in
// out and returns what the report needs.
func runChild(bin string, s spec, out string) (result, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, s.args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	t0 := time.Now()
	runErr := cmd.Run()
	wall := time.Since(t0)
	err := errors.Join(
		os.WriteFile(filepath.Join(out, s.name+".json"), stdout.Bytes(), 0o644),
		os.WriteFile(filepath.Join(out, s.name+".stderr"), stderr.Bytes(), 0o644))
	if runErr != nil {
		return result{}, fmt.Errorf("%s: kpls %s: %v; the end of its standard error:\n%s",
			s.name, strings.Join(s.args, " "), runErr, tail(stderr.String(), 20))
	}
	if err != nil {
		return result{}, err
	}
	r := result{Name: s.name, Args: s.args, Wall: wall,
		MaxRSS: int64(cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss) << 10} // KiB on Linux (int32 on 386)
	if err := json.Unmarshal(stdout.Bytes(), &r.Doc); err != nil {
		return result{}, fmt.Errorf("%s: its JSON: %w", s.name, err)
	}
	return r, nil
}

// writeFriedman writes n rows of sim.Friedman1 (d = 10, noise sd 1, seed 1)
// to path as CSV with the header x1..x10,y.
func writeFriedman(path string, n int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	writeCSV(w, sim.Friedman1(n, simD, simNoise, simSeed))
	if err := errors.Join(w.Flush(), f.Close()); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// writeCSV writes s as CSV, header first, each value in the shortest form
// that reads back as the same float64. Errors are the writer's to keep
// (bufio.Writer reports them at Flush).
func writeCSV(w io.Writer, s sim.Data) {
	io.WriteString(w, strings.Join(s.Names, ",")+"\n")
	var line []byte
	for i := range s.N {
		line = line[:0]
		for _, v := range s.Row(i) {
			line = strconv.AppendFloat(line, v, 'g', -1, 64)
			line = append(line, ',')
		}
		line = strconv.AppendFloat(line, s.Y[i], 'g', -1, 64)
		w.Write(append(line, '\n'))
	}
}

// moduleRoot is the directory of the main module's go.mod.
func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("not inside the kpls module: run from its root")
	}
	return filepath.Dir(mod), nil
}

// commit is HEAD's short hash, marked when the work tree differs from it.
func commit(root string) string {
	c := exec.Command("git", "rev-parse", "--short", "HEAD")
	c.Dir = root
	out, err := c.Output()
	if err != nil {
		return "(unknown: " + err.Error() + ")"
	}
	h := strings.TrimSpace(string(out))
	c = exec.Command("git", "status", "--porcelain", "--untracked-files=no")
	c.Dir = root
	if st, err := c.Output(); err == nil && len(bytes.TrimSpace(st)) > 0 {
		h += " (modified)"
	}
	return h
}

// output is the trimmed standard output of a command, or its error.
func output(name string, args ...string) string {
	out, err := exec.Command(name, args...).Output()
	if err != nil {
		return "(" + err.Error() + ")"
	}
	return strings.TrimSpace(string(out))
}

// tail is the last k lines of s.
func tail(s string, k int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-k):], "\n")
}
