package fitflags

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/kpls-go/kpls/cmd/cli"
	"github.com/kpls-go/kpls/internal/dataset"
)

// Input holds the input flags of every command that reads a CSV file
// through Model.ReadTraining or Input.ReadPrediction.
type Input struct {
	Delimiter   string
	NoHeader    bool
	Features    string
	Drop        string
	ID          string
	DropMissing bool
	// MaxLineBytes bounds one record of the file (dataset.Options).
	MaxLineBytes int64
}

// Register adds the input flags; withColumns adds --features and --drop,
// which only make sense where the features are not fixed by a model.
func (d *Input) Register(fs *cli.FlagSet, withColumns bool) {
	fs.StringVar(&d.Delimiter, "delimiter", "", "field delimiter: comma, semicolon or tab (also , ; \\t); empty detects it from the header line")
	fs.BoolVar(&d.NoHeader, "no-header", false, "the file has no header line: columns are named x1, x2, ..., and y for the last")
	if withColumns {
		fs.StringVar(&d.Features, "features", "", "comma-separated feature `columns`; empty means every column but the target, --id and --drop")
		fs.StringVar(&d.Drop, "drop", "", "comma-separated `columns` to leave out of the features")
	}
	fs.StringVar(&d.ID, "id", "", "row identifier `column`: never a feature, carried through to predictions")
	fs.Int64Var(&d.MaxLineBytes, "max-line-bytes", dataset.DefaultMaxLineBytes, "the most `bytes` one record (line) of the file may take, after decompression; 0 for the default, -1 for no limit")
	fs.BoolVar(&d.DropMissing, "drop-missing", false, "drop rows with a missing value (empty, NA, N/A, NaN, null, ?) in a used column, and say how many; without it they are an error")
}

// open opens path ("-" for standard input, gzip recognised) as e reads
// them, with the delimiter and header flags.
func (d *Input) open(e *cli.Env, path string, minRows int) (*dataset.Reader, error) {
	o := dataset.Options{NoHeader: d.NoHeader, DropMissing: d.DropMissing, MinRows: minRows, MaxLineBytes: d.MaxLineBytes, Open: e.Open}
	switch strings.ToLower(d.Delimiter) {
	case "":
	case ",", "comma":
		o.Delimiter = ','
	case ";", "semicolon":
		o.Delimiter = ';'
	case "\t", `\t`, "tab":
		o.Delimiter = '\t'
	default:
		return nil, cli.Usagef("--delimiter: %q, want comma, semicolon or tab", d.Delimiter)
	}
	var r *dataset.Reader
	var err error
	if path == "-" && e.Stdin != nil {
		r, err = dataset.NewReader(e.Stdin, "stdin", o)
	} else {
		r, err = dataset.Open(path, o)
	}
	return r, d.explain(err)
}

// explain adds to a data error the flag that would change it.
func (d *Input) explain(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, dataset.ErrNumericHeader):
		return fmt.Errorf("%w; give --no-header if the file has none", err)
	case errors.Is(err, dataset.ErrLineTooLong):
		return fmt.Errorf("%w; give --max-line-bytes to raise the limit", err)
	case errors.Is(err, dataset.ErrMissing) && !d.DropMissing:
		return fmt.Errorf("%w; give --drop-missing to drop rows with missing values", err)
	case errors.Is(err, dataset.ErrRagged) && d.Delimiter == "":
		return fmt.Errorf("%w; is the delimiter right? (--delimiter)", err)
	}
	return err
}

// Note reports on stderr a first column read as row names, and the rows
// dropped for missing values.
func (d *Input) Note(e *cli.Env, t *dataset.Table) {
	if t.Index != "" {
		fmt.Fprintf(e.Stderr, "%s: note: the first column %s is taken as row names (%s), not as a feature\n", e.Prog, t.Index, indexSource(t.Index))
	}
	if len(t.Dropped) == 0 {
		return
	}
	lines := t.Dropped
	more := ""
	if len(lines) > 10 {
		lines, more = lines[:10], ", ..."
	}
	s := make([]string, len(lines))
	for i, l := range lines {
		s[i] = fmt.Sprint(l)
	}
	word := "lines"
	if len(t.Dropped) == 1 {
		word = "line"
	}
	fmt.Fprintf(e.Stderr, "%s: --drop-missing: dropped %d of %d rows with missing values (%s %s%s)\n",
		e.Prog, len(t.Dropped), len(t.Dropped)+t.Rows, word, strings.Join(s, ", "), more)
}

// indexSource says who writes a first column of row names under the
// (quoted) header cell index.
func indexSource(index string) string {
	switch index {
	case `""`:
		return "R's write.csv, pandas' to_csv"
	case `"Unnamed: 0"`:
		return "pandas' name for an unnamed index"
	}
	return "R's row names"
}

// list splits a comma-separated list of column names, rejecting empty and
// repeated entries.
func list(flag, s string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []string
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		switch {
		case f == "":
			return nil, cli.Usagef("--%s: empty column name in %q", flag, s)
		case slices.Contains(out, f):
			return nil, cli.Usagef("--%s: column %q given twice", flag, f)
		}
		out = append(out, f)
	}
	return out, nil
}

// ReadTraining reads --data for fit and select: the chosen features, then
// the targets as the last columns (Model.Split separates them). Columns
// not chosen are never parsed. Without --target the target is the last
// column not excluded, and a note on stderr says which.
func (m *Model) ReadTraining(e *cli.Env) (*dataset.Table, error) {
	feats, err := list("features", m.Features)
	if err != nil {
		return nil, err
	}
	drop, err := list("drop", m.Drop)
	if err != nil {
		return nil, err
	}
	if feats != nil && drop != nil {
		return nil, cli.Usagef("--features and --drop both set: give one of them")
	}
	r, err := m.open(e, m.Data, 0)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	names := r.Names()
	name := m.Data
	if name == "-" {
		name = "stdin"
	}
	for _, c := range append(append(slices.Clip(drop), feats...), m.ID, m.Weights) {
		if c != "" && !slices.Contains(names, c) {
			return nil, unknownColumn(name, names, c)
		}
	}
	switch w := m.Weights; {
	case w == "":
	case w == m.ID:
		return nil, cli.Usagef("--weights %q is also the --id column", w)
	case slices.Contains(feats, w):
		return nil, cli.Usagef("--weights %q is also listed in --features", w)
	case slices.Contains(drop, w):
		return nil, cli.Usagef("--weights %q is also listed in --drop", w)
	}
	excluded := func(c string) bool {
		return c == m.ID || c == m.Weights && c != "" || slices.Contains(drop, c) || slices.Contains(feats, c)
	}
	targets, err := m.targets(e, name, names, feats, drop, excluded)
	if err != nil {
		return nil, err
	}
	if feats == nil {
		for _, c := range names {
			if !slices.Contains(targets, c) && !excluded(c) {
				feats = append(feats, c)
			}
		}
	}
	target := strings.Join(targets, ", ")
	if len(feats) == 0 {
		return nil, cli.Usagef("--data %s: no feature columns besides the target %q", name, target)
	}
	numeric := append(feats, targets...)
	if m.Weights != "" {
		numeric = append(numeric, m.Weights)
	}
	t, err := r.Read(dataset.Columns{Numeric: numeric, ID: m.ID})
	if err != nil {
		var de *dataset.Error
		switch {
		case errors.As(err, &de) && slices.Contains(targets, de.Column):
			// A target must be a number: the hint for text features would mislead.
			if errors.Is(err, dataset.ErrNotNumber) {
				return nil, fmt.Errorf("%w; a target must be numeric (code a category as numbers first)", m.explain(err))
			}
		case errors.Is(err, dataset.ErrNotNumber) && m.Features == "":
			return nil, fmt.Errorf("%w; leave a text column out with --drop or --id, or list the features with --features", m.explain(err))
		}
		return nil, m.explain(err)
	}
	m.Note(e, t)
	if err := m.checkLanczos(e, t.Rows, len(feats)); err != nil {
		return nil, err
	}
	return t, nil
}

// targets are the --target columns of a file with the columns names, or
// its last column not excluded when --target is not given (said on
// stderr), each checked against the other column flags.
func (m *Model) targets(e *cli.Env, name string, names, feats, drop []string, excluded func(string) bool) ([]string, error) {
	targets, err := list("target", m.Target)
	if err != nil {
		return nil, err
	}
	if targets == nil {
		for j := len(names) - 1; j >= 0; j-- {
			if !excluded(names[j]) {
				targets = []string{names[j]}
				break
			}
		}
		if targets == nil {
			return nil, cli.Usagef("--data %s: no column left for the target", name)
		}
		if !m.NoHeader {
			fmt.Fprintf(e.Stderr, "%s: no --target given: the target is column %q (of %d)\n", e.Prog, targets[0], len(names))
		}
	}
	for _, target := range targets {
		switch {
		case !slices.Contains(names, target):
			return nil, unknownColumn(name, names, target)
		case target == m.ID:
			return nil, cli.Usagef("--id %q is also the target", m.ID)
		case target == m.Weights:
			return nil, cli.Usagef("--weights %q is also the target", m.Weights)
		case slices.Contains(feats, target):
			return nil, cli.Usagef("--features: %q is the target", target)
		case slices.Contains(drop, target):
			return nil, cli.Usagef("--drop: %q is the target", target)
		}
	}
	return targets, nil
}

// unknownColumn names a column missing from a file's header.
func unknownColumn(file string, names []string, c string) error {
	t := &dataset.Table{File: file, Names: names, Cols: len(names)}
	_, err := t.Select([]string{c})
	return err
}

// ReadPrediction reads the points to predict: the model's features by
// name (any row count from one), those of the target columns that the
// file has (present[i] for targets[i]), and the --id column. Other
// columns are never parsed. A target cell may be missing: it reads as
// NaN and the row is still predicted. A feature the file lacks is an
// error that says so.
func (d *Input) ReadPrediction(e *cli.Env, path string, features []string, targets ...string) (t *dataset.Table, present []bool, err error) {
	r, err := d.open(e, path, 1)
	if err != nil {
		return nil, nil, err
	}
	defer r.Close()
	names := r.Names()
	name := path
	if name == "-" {
		name = "stdin"
	}
	if d.ID != "" && !slices.Contains(names, d.ID) {
		return nil, nil, unknownColumn(name, names, d.ID)
	}
	for _, f := range features {
		if !slices.Contains(names, f) {
			return nil, nil, fmt.Errorf("%s: missing feature %q: the model needs the columns %s (by name, in any order)", name, f, quoted(features))
		}
	}
	cols := dataset.Columns{Numeric: slices.Clone(features), ID: d.ID}
	if features == nil {
		// A model saved without names takes every column but the ID, in
		// file order.
		cols.Numeric = nil
	}
	present = make([]bool, len(targets))
	for i, target := range targets {
		if target != "" && features != nil && !slices.Contains(cols.Numeric, target) && slices.Contains(names, target) && target != d.ID {
			cols.Numeric = append(cols.Numeric, target)
			cols.Optional = append(cols.Optional, target)
			present[i] = true
		}
	}
	t, err = r.Read(cols)
	return t, present, d.explain(err)
}

// quoted lists names quoted, the first twenty of them.
func quoted(names []string) string {
	const shown = 20
	q := make([]string, 0, shown+1)
	for i, n := range names {
		if i == shown {
			q = append(q, fmt.Sprintf("and %d more", len(names)-shown))
			break
		}
		q = append(q, strconv.Quote(n))
	}
	return strings.Join(q, ", ")
}

// TargetName is the name of the column Table.Split used as the target.
func TargetName(t *dataset.Table, target string) string {
	if target != "" {
		return target
	}
	return t.Names[t.Cols-1]
}

// Training is training data split into features and targets.
type Training struct {
	N        int
	X        []float64 // N×len(Features), row-major
	Y        []float64 // N×len(Targets), row-major
	W        []float64 // the --weights column, nil without
	Features []string
	Targets  []string
}

// Split separates the targets of --target (the last column without it)
// from the features of a table ReadTraining read.
func (m *Model) Split(t *dataset.Table) (*Training, error) {
	targets, err := list("target", m.Target)
	if err != nil {
		return nil, err
	}
	if targets == nil {
		targets = []string{t.Names[t.Cols-1]}
	}
	q := len(targets)
	nw := 0
	if m.Weights != "" {
		nw = 1
	}
	d := t.Cols - q - nw
	if d < 1 {
		return nil, cli.Usagef("--data %s: no feature columns besides the targets", t.File)
	}
	tr := &Training{N: t.Rows, X: make([]float64, 0, t.Rows*d), Y: make([]float64, 0, t.Rows*q), Features: slices.Clone(t.Names[:d]), Targets: targets}
	for i := range t.Rows {
		row := t.Data[i*t.Cols : (i+1)*t.Cols]
		tr.X = append(tr.X, row[:d]...)
		tr.Y = append(tr.Y, row[d:d+q]...)
		if nw == 1 {
			tr.W = append(tr.W, row[d+q])
		}
	}
	if nw == 1 {
		return tr, m.checkWeights(t, tr.W)
	}
	return tr, nil
}

// checkWeights checks the --weights column: every weight finite and
// ≥ 0, and some positive; errors name the file, line and column.
func (m *Model) checkWeights(t *dataset.Table, w []float64) error {
	col := m.Weights
	var sum float64
	for i, v := range w {
		if !(v >= 0) || math.IsInf(v, 0) {
			return fmt.Errorf("%s: line %d, column %q: weight %v, want a number ≥ 0 (a row of weight w counts as w copies)", t.File, m.dataLine(t, i), col, v)
		}
		sum += v
	}
	if !(sum > 0) || math.IsInf(sum, 0) {
		return fmt.Errorf("%s: column %q: the weights sum to %v, want a positive finite sum", t.File, col, sum)
	}
	return nil
}

// dataLine is the line of the file holding data row i (0-based), given
// the header and the rows --drop-missing left out.
func (m *Model) dataLine(t *dataset.Table, i int) int {
	line := i + 1
	if !m.NoHeader {
		line++
	}
	for _, l := range t.Dropped {
		if l <= line {
			line++
		}
	}
	return line
}
