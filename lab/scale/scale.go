package scale

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/kpls-go/kpls/cmd/cli"
	"github.com/kpls-go/kpls/internal/sim"
)

// The generated data set: sim.Friedman1 with 10 features, noise sd 1.
const (
	simD     = 10
	simNoise = 1.0
	simSeed  = 1
)

// The default selects' protein split: a seeded permutation of the rows,
// the first HeldoutTrain of them to train on, the rest held out
// (WriteSplit; lab/peer/split writes the same for the peers).
const (
	SplitSeed    = 1
	HeldoutTrain = 0.8
)

// options are the command's flags.
type options struct {
	shared, out, only     string
	n                     int
	skipProtein, skip100k bool
}

// spec is one child run: kpls with args, its output saved as OUT/name.*.
// A run with predict is a select on a training split followed by
// `kpls predict` with those arguments on the held-out rows, whose RMSE
// the report gives; its time is not the select's.
type spec struct {
	name    string
	args    []string
	predict []string
	split   *split
}

// split is a training/held-out split of a data file that the run needs
// written before it starts.
type split struct {
	from, train, test string
}

var runNames = []string{"kin8nm", "protein", "100k", "kin8nm-default", "protein-default"}

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
	fs.StringVar(&o.only, "only", "", "run only `NAMES`, comma-separated: "+strings.Join(runNames, ", "))
	if err := fs.Parse(e, args); err != nil {
		return err
	}
	for _, name := range onlyNames(o.only) {
		if !slices.Contains(runNames, name) {
			return cli.Usagef("scale: --only takes %s, not %q", strings.Join(runNames, ", "), name)
		}
	}
	if o.n < 2 {
		return cli.Usagef("scale: --n must be at least 2")
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
	specs := plan(o, gen, tmp)
	if slices.ContainsFunc(specs, func(s spec) bool { return s.name == "100k" }) {
		if err := writeFriedman(gen, o.n); err != nil {
			return err
		}
	}
	var rs []result
	for _, s := range specs {
		if sp := s.split; sp != nil {
			if err := WriteSplit(sp.from, sp.train, sp.test, HeldoutTrain, SplitSeed); err != nil {
				return err
			}
		}
		fmt.Fprintf(e.Stderr, "%s: kpls %s\n", s.name, strings.Join(s.args, " "))
		r, err := runChild(bin, s, o.out)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.Stderr, "%s: %.2f s, peak RSS %.2f GiB\n", s.name, r.Wall.Seconds(), gib(r.MaxRSS))
		if s.predict != nil {
			fmt.Fprintf(e.Stderr, "%s: kpls %s\n", s.name, strings.Join(s.predict, " "))
			if r.Heldout, err = runPredict(bin, s, o.out); err != nil {
				return err
			}
			fmt.Fprintf(e.Stderr, "%s: held-out RMSE %.4g\n", s.name, r.Heldout.RMSE)
		}
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

// onlyNames splits --only's list.
func onlyNames(only string) []string {
	if only == "" {
		return nil
	}
	return strings.Split(only, ",")
}

// plan lists the runs the options ask for; gen is the generated CSV and
// tmp the directory for the split and the model file.
//
// The "-default" runs are #23's targets: the default `kpls select`, no
// flags but the data and target, on kin8nm (all rows, as the time target
// compares binaries on it) and on an 80/20 split of protein, then `kpls
// predict` on protein's held-out rows.
func plan(o options, gen, tmp string) []spec {
	data := filepath.Join(o.shared, "data")
	sel := func(file, target string) []string {
		return []string{"select", "--data", filepath.Join(data, file), "--target", target,
			"--widths", "2,4.5,9", "--components", "30", "--lanczos", "30", "--json", "--progress=off"}
	}
	sp := &split{from: filepath.Join(data, "protein.csv"),
		train: filepath.Join(tmp, "protein-train.csv"), test: filepath.Join(tmp, "protein-test.csv")}
	model := filepath.Join(tmp, "protein-default.kpls")
	all := []spec{
		{name: "kin8nm", args: sel("kin8nm.csv", "y")},
		{name: "protein", args: sel("protein.csv", "RMSD")},
		{name: "100k", args: []string{"fit", "--data", gen, "--target", "y", "--components", "20", "--json", "--progress=off"}},
		{name: "kin8nm-default", args: []string{"select", "--data", filepath.Join(data, "kin8nm.csv"), "--target", "y", "--json", "--progress=off"}},
		{name: "protein-default", split: sp,
			args:    []string{"select", "--data", sp.train, "--target", "RMSD", "--model", model, "--json", "--progress=off"},
			predict: []string{"predict", "--model", model, "--data", sp.test, "--json"}},
	}
	only := onlyNames(o.only)
	var specs []spec
	for _, s := range all {
		skip := (strings.HasPrefix(s.name, "protein") && o.skipProtein) || (s.name == "100k" && o.skip100k)
		if (only == nil && !skip) || slices.Contains(only, s.name) {
			specs = append(specs, s)
		}
	}
	return specs
}

// WriteSplit writes the rows of the CSV file from, header first in both,
// to train (the first frac of a permutation seeded by seed) and test (the
// rest), each row as it was written.
func WriteSplit(from, train, test string, frac float64, seed uint64) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	lines := strings.Split(strings.TrimRight(string(b), "\r\n"), "\n")
	if len(lines) < 3 {
		return fmt.Errorf("%s: %d lines, need a header and two rows", from, len(lines))
	}
	head, rows := lines[0], lines[1:]
	perm := rand.New(rand.NewPCG(seed, 0)).Perm(len(rows))
	cut := int(math.Round(frac * float64(len(rows))))
	write := func(path string, idx []int) error {
		var w bytes.Buffer
		w.WriteString(head + "\n")
		for _, i := range idx {
			w.WriteString(rows[i] + "\n")
		}
		return os.WriteFile(path, w.Bytes(), 0o644)
	}
	return errors.Join(write(train, perm[:cut]), write(test, perm[cut:]))
}

// child is one finished run of kpls: its standard output, wall time and
// peak RSS.
type child struct {
	stdout []byte
	wall   time.Duration
	maxRSS int64 // bytes
}

// runKpls runs kpls with args and saves its standard output and error as
// OUT/BASE.json and OUT/BASE.stderr; name labels its errors.
func runKpls(bin string, args []string, out, base, name string) (child, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	t0 := time.Now()
	runErr := cmd.Run()
	wall := time.Since(t0)
	err := errors.Join(
		os.WriteFile(filepath.Join(out, base+".json"), stdout.Bytes(), 0o644),
		os.WriteFile(filepath.Join(out, base+".stderr"), stderr.Bytes(), 0o644))
	if runErr != nil {
		return child{}, fmt.Errorf("%s: kpls %s: %v; the end of its standard error:\n%s",
			name, strings.Join(args, " "), runErr, tail(stderr.String(), 20))
	}
	if err != nil {
		return child{}, err
	}
	return child{stdout: stdout.Bytes(), wall: wall,
		maxRSS: int64(cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss) << 10}, nil // KiB on Linux (int32 on 386)
}

// runChild runs kpls with s.args, saves its standard output and error in
// out and returns what the report needs.
func runChild(bin string, s spec, out string) (result, error) {
	c, err := runKpls(bin, s.args, out, s.name, s.name)
	if err != nil {
		return result{}, err
	}
	r := result{Name: s.name, Args: s.args, Predict: s.predict, Wall: c.wall, MaxRSS: c.maxRSS}
	if err := json.Unmarshal(c.stdout, &r.Doc); err != nil {
		return result{}, fmt.Errorf("%s: its JSON: %w", s.name, err)
	}
	return r, nil
}

// runPredict runs s.predict, saves its output as OUT/NAME-predict.* and
// returns the held-out error it reports.
func runPredict(bin string, s spec, out string) (*heldout, error) {
	c, err := runKpls(bin, s.predict, out, s.name+"-predict", s.name)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Rows   int `json:"rows"`
		Target *struct {
			RMSE float64 `json:"rmse"`
		} `json:"target"`
	}
	if err := json.Unmarshal(c.stdout, &doc); err != nil {
		return nil, fmt.Errorf("%s: the JSON of predict: %w", s.name, err)
	}
	if doc.Target == nil {
		return nil, fmt.Errorf("%s: predict reported no held-out error: the held-out rows have no target column", s.name)
	}
	return &heldout{RMSE: doc.Target.RMSE, Rows: doc.Rows, Wall: c.wall}, nil
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
