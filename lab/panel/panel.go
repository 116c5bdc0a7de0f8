package panel

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/kpls-go/kpls/cmd/cli"
	"github.com/kpls-go/kpls/internal/sim"
)

// options are the flags of `kpls-lab panel gen`.
type options struct {
	out, shared string
	splits      int
	testFrac    float64
	maxTrain    int
	seed        uint64
	sets        []string
}

// dataSet is one member of the panel. write writes DIR/NAME.csv and
// returns its number of rows and features.
type dataSet struct {
	name   string
	source string // seeds the data generator; protein4000 and protein8000 share "protein"
	write  func(path string, o options, seed uint64) (n, d int, err error)
}

var panel = []dataSet{
	{"kin8nm", "kin8nm", func(path string, o options, _ uint64) (int, int, error) {
		return copyKin8nm(filepath.Join(o.shared, "kin8nm.csv"), path)
	}},
	{"protein4000", "protein", func(path string, o options, seed uint64) (int, int, error) {
		return subsampleProtein(filepath.Join(o.shared, "protein.csv"), path, 4000, seed)
	}},
	{"protein8000", "protein", func(path string, o options, seed uint64) (int, int, error) {
		return subsampleProtein(filepath.Join(o.shared, "protein.csv"), path, 8000, seed)
	}},
	{"friedman1", "friedman1", func(path string, _ options, seed uint64) (int, int, error) {
		return writeSim(path, sim.Friedman1(2000, 10, 1, seed))
	}},
	{"friedman2", "friedman2", func(path string, _ options, seed uint64) (int, int, error) {
		return writeSim(path, sim.Friedman2(2000, 125, seed))
	}},
	{"friedman3", "friedman3", func(path string, _ options, seed uint64) (int, int, error) {
		return writeSim(path, sim.Friedman3(2000, 0.1, seed))
	}},
	{"sinc", "sinc", func(path string, _ options, seed uint64) (int, int, error) {
		return writeSim(path, sim.Sinc(2000, seed))
	}},
	realSet("boston", "boston.csv"),
	realSet("concrete", "concrete.csv"),
	realSet("biomass", "biomass.csv"),
	realSet("ozone", "ozone.csv"),
	realSet("cox2", "cox2.csv.gz"),
	realSet("cps1985", "cps1985.csv"),
	realSet("carprices", "carprices.csv"),
	realSet("meats", "meats.csv"),
}

// Run is `kpls-lab panel gen`, which writes the panel into --out,
// `kpls-lab panel diag` (diag.go) and `kpls-lab panel calib` (calib.go).
func Run(ctx context.Context, e *cli.Env, args []string) error {
	fs := cli.NewFlagSet("panel gen", "--out DIR [flags]",
		"Writes the evaluation panel: the data sets (kin8nm and protein from --shared, the simulated\n"+
			"ones, the small real ones compiled in from lab/panel/data) and their train/test splits, and\n"+
			"DIR/panel.json, which records the options and seeds (lab/panel/doc.go). lab/panel/run.sh runs\n"+
			"the peer and kpls-lab eval on it.")
	var o options
	var sets string
	fs.StringVar(&o.out, "out", "", "output `directory` (required)")
	fs.StringVar(&o.shared, "shared", "../shared/data", "`directory` holding kin8nm.csv and protein.csv")
	fs.IntVar(&o.splits, "splits", 0, "number of train/test splits per data set; 0 means 5 for data sets under 2000 rows, 3 for the others")
	fs.Float64Var(&o.testFrac, "test-fraction", 0.25, "fraction of the rows held out for testing")
	fs.IntVar(&o.maxTrain, "max-train", 6000, "most training rows (a random subset of the non-test rows)")
	fs.Uint64Var(&o.seed, "seed", 1, "base seed of every generator")
	fs.StringVar(&sets, "sets", "", "comma-separated data sets to write (default all: "+strings.Join(setNames(), ",")+")")
	switch {
	case len(args) > 0 && args[0] == "gen":
		args = args[1:]
	case len(args) > 0 && args[0] == "diag":
		return runDiag(ctx, e, args[1:])
	case len(args) > 0 && args[0] == "calib":
		return runCalib(ctx, e, args[1:])
	case len(args) > 0 && slices.Contains([]string{"-h", "-help", "--help"}, args[0]):
		// The usage of gen, the main command.
	default:
		return cli.Usagef("panel: the commands are gen (kpls-lab panel gen --out DIR [flags]), diag (--data F.csv --split-dir DIR) and calib (--panel DIR)")
	}
	if err := fs.Parse(e, args); err != nil {
		return err
	}
	switch {
	case o.out == "":
		return cli.Usagef("--out is required")
	case o.splits < 0:
		return cli.Usagef("--splits %d: need at least 1 (or 0, the per-set default)", o.splits)
	case !(o.testFrac > 0 && o.testFrac < 1):
		return cli.Usagef("--test-fraction %g: need 0 < f < 1", o.testFrac)
	case o.maxTrain < 1:
		return cli.Usagef("--max-train %d: need at least 1", o.maxTrain)
	}
	if sets != "" {
		o.sets = strings.Split(sets, ",")
		for _, s := range o.sets {
			if !slices.Contains(setNames(), s) {
				return cli.Usagef("--sets: unknown data set %q (have %s)", s, strings.Join(setNames(), ", "))
			}
		}
	}
	return gen(o, e.Stdout)
}

func setNames() []string {
	var s []string
	for _, p := range panel {
		s = append(s, p.name)
	}
	return s
}

// manifest is DIR/panel.json. Splits is --splits (0: each set's default);
// a set's NSplits is the number written for it.
type manifest struct {
	Seed         uint64     `json:"seed"`
	Splits       int        `json:"splits"`
	TestFraction float64    `json:"test_fraction"`
	MaxTrain     int        `json:"max_train"`
	Shared       string     `json:"shared"`
	Sets         []setEntry `json:"sets"`
}

type setEntry struct {
	Name     string `json:"name"`
	File     string `json:"file"`
	Splits   string `json:"splits"`
	Source   string `json:"source"`
	DataSeed uint64 `json:"data_seed"`
	N        int    `json:"n"`
	D        int    `json:"d"`
	NTrain   int    `json:"n_train"`
	NTest    int    `json:"n_test"`
	NSplits  int    `json:"n_splits"`
	Small    bool   `json:"small"` // under smallRows rows
}

func gen(o options, stdout io.Writer) error {
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	m := manifest{Seed: o.seed, Splits: o.splits, TestFraction: o.testFrac, MaxTrain: o.maxTrain, Shared: o.shared}
	fmt.Fprintf(stdout, "%-12s %6s %3s %7s %6s %6s\n", "data", "n", "d", "n_train", "n_test", "splits")
	for _, p := range panel {
		if o.sets != nil && !slices.Contains(o.sets, p.name) {
			continue
		}
		seed := seedOf("data", p.source, o.seed)
		file := p.name + ".csv"
		n, d, err := p.write(filepath.Join(o.out, file), o, seed)
		if err != nil {
			return fmt.Errorf("%s: %w", p.name, err)
		}
		k := o.splits
		if k == 0 {
			k = defaultSplits(n)
		}
		nTrain, nTest, err := writeSplits(o.out, p.name, n, k, o)
		if err != nil {
			return fmt.Errorf("%s: %w", p.name, err)
		}
		m.Sets = append(m.Sets, setEntry{Name: p.name, File: file, Splits: p.name + ".splits", Source: p.source,
			DataSeed: seed, N: n, D: d, NTrain: nTrain, NTest: nTest, NSplits: k, Small: n < smallRows})
		fmt.Fprintf(stdout, "%-12s %6d %3d %7d %6d %6d\n", p.name, n, d, nTrain, nTest, k)
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(o.out, "panel.json"), append(b, '\n'), 0o644)
}

// readCSV reads a numeric CSV file with a header as strings, checking that
// every record has the header's width and every field is a finite number.
func readCSV(path string) (head []string, rows [][]string, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	return parseCSV(path, b)
}

// parseCSV is readCSV of the contents b of the file named path.
func parseCSV(path string, b []byte) (head []string, rows [][]string, err error) {
	r := csv.NewReader(bytes.NewReader(b))
	r.TrimLeadingSpace = true
	all, err := r.ReadAll()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(all) < 2 {
		return nil, nil, fmt.Errorf("%s: no data rows", path)
	}
	head = all[0]
	for i, h := range head {
		head[i] = strings.TrimSpace(h)
	}
	rows = all[1:]
	for i, rec := range rows {
		for j, f := range rec {
			rec[j] = strings.TrimSpace(f)
			if v, err := strconv.ParseFloat(rec[j], 64); err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, nil, fmt.Errorf("%s: data row %d, column %q: not a finite number: %q", path, i+1, head[j], f)
			}
		}
	}
	return head, rows, nil
}

// copyKin8nm copies src to dst byte for byte after checking that its
// target is the last column, named y.
func copyKin8nm(src, dst string) (n, d int, err error) {
	head, rows, err := readCSV(src)
	if err != nil {
		return 0, 0, err
	}
	if head[len(head)-1] != "y" {
		return 0, 0, fmt.Errorf("%s: last column is %q, want the target y", src, head[len(head)-1])
	}
	b, err := os.ReadFile(src)
	if err != nil {
		return 0, 0, err
	}
	return len(rows), len(head) - 1, os.WriteFile(dst, b, 0o644)
}

// subsampleProtein writes m rows of src drawn without replacement (in
// file order) with the target RMSD moved from the first column to the
// last and renamed y. The rows are the first m of one permutation, so
// smaller sub-samples with the same seed are subsets of larger ones.
func subsampleProtein(src, dst string, m int, seed uint64) (n, d int, err error) {
	head, rows, err := readCSV(src)
	if err != nil {
		return 0, 0, err
	}
	if head[0] != "RMSD" {
		return 0, 0, fmt.Errorf("%s: first column is %q, want the target RMSD", src, head[0])
	}
	if m > len(rows) {
		return 0, 0, fmt.Errorf("%s: %d rows, cannot draw %d", src, len(rows), m)
	}
	idx := rand.New(rand.NewPCG(seed, 0)).Perm(len(rows))[:m]
	slices.Sort(idx)
	h := append(slices.Clone(head[1:]), "y")
	return writeRows(dst, h, func(yield func([]string) bool) {
		rec := make([]string, len(head))
		for _, i := range idx {
			copy(rec, rows[i][1:])
			rec[len(rec)-1] = rows[i][0]
			if !yield(rec) {
				return
			}
		}
	})
}

// writeSim writes a simulated data set, the shortest representation of
// each value that reads back exactly.
func writeSim(dst string, s sim.Data) (n, d int, err error) {
	return writeRows(dst, s.Names, func(yield func([]string) bool) {
		rec := make([]string, s.D+1)
		for i := range s.N {
			for j, v := range s.Row(i) {
				rec[j] = strconv.FormatFloat(v, 'g', -1, 64)
			}
			rec[s.D] = strconv.FormatFloat(s.Y[i], 'g', -1, 64)
			if !yield(rec) {
				return
			}
		}
	})
}

// writeRows writes a header and the records of rows as plain
// comma-separated lines (the panel's values and names need no quoting).
func writeRows(dst string, head []string, rows func(func([]string) bool)) (n, d int, err error) {
	f, err := os.Create(dst)
	if err != nil {
		return 0, 0, err
	}
	w := bufio.NewWriter(f)
	w.WriteString(strings.Join(head, ","))
	w.WriteByte('\n')
	for rec := range rows {
		w.WriteString(strings.Join(rec, ","))
		w.WriteByte('\n')
		n++
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return 0, 0, err
	}
	return n, len(head) - 1, f.Close()
}
