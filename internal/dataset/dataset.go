package dataset

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
)

// MinRows is the smallest number of data rows Read accepts: with fewer there
// is nothing to fit or to estimate a noise level from.
const MinRows = 3

// Sentinel errors wrapped by *Error; test for them with errors.Is.
var (
	ErrEmpty           = errors.New("empty input")
	ErrRagged          = errors.New("wrong number of fields")
	ErrNotNumber       = errors.New("not a number")
	ErrNonFinite       = errors.New("non-finite value")
	ErrTooFewRows      = errors.New("too few data rows")
	ErrUnknownColumn   = errors.New("unknown column")
	ErrDuplicateColumn = errors.New("duplicate column name")
	ErrUnnamedColumn   = errors.New("column has no name")
	ErrNoFeatures      = errors.New("no feature columns")
)

// Error describes what is wrong with an input file and where.
type Error struct {
	File   string // file name as given to Read or ReadFile
	Line   int    // 1-based line of the file; 0 if not applicable
	Row    int    // 1-based data row (the header is row 0); 0 if not applicable
	Col    int    // 1-based column; 0 if not applicable
	Column string // column name, if known
	Err    error  // wraps one of the sentinel errors, or a read or CSV syntax error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	sep := ": "
	if e.Line > 0 {
		fmt.Fprintf(&b, "%sline %d", sep, e.Line)
		sep = ", "
	}
	switch {
	case e.Column != "":
		fmt.Fprintf(&b, "%scolumn %q", sep, e.Column)
	case e.Col > 0:
		fmt.Fprintf(&b, "%scolumn %d", sep, e.Col)
	}
	b.WriteString(": ")
	b.WriteString(e.Err.Error())
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// Table is a numeric CSV file: a header and row-major values.
type Table struct {
	File       string    // name used in error messages
	Names      []string  // column names, trimmed, in file order
	Rows, Cols int       // data rows (header excluded) and columns
	Data       []float64 // Rows×Cols, row-major
}

// ReadFile reads the CSV file at path; see Read.
func ReadFile(path string) (*Table, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read data: %w", err)
	}
	defer f.Close()
	return Read(f, path)
}

// Read parses a numeric CSV file with a header line. name is the file name
// used in error messages. Every failure is an *Error.
func Read(r io.Reader, name string) (*Table, error) {
	br := bufio.NewReader(r)
	// Discard a byte order mark before csv sees it, so it cannot end up in
	// the first column's name.
	if p, err := br.Peek(3); err == nil && bytes.Equal(p, []byte("\uFEFF")) {
		br.Discard(3)
	}
	cr := csv.NewReader(br)
	cr.FieldsPerRecord = -1 // ragged rows are reported below, with column counts
	cr.ReuseRecord = true
	cr.TrimLeadingSpace = true // so that `1, "2"` parses; trailing spaces are trimmed per field

	t := &Table{File: name}
	fail := func(line, row, col int, err error) (*Table, error) {
		e := &Error{File: name, Line: line, Row: row, Col: col, Err: err}
		if col > 0 && col <= len(t.Names) {
			e.Column = t.Names[col-1]
		}
		return nil, e
	}

	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				row := t.Rows + 1
				if t.Names == nil {
					row = 0
				}
				return fail(pe.Line, row, 0, pe.Err)
			}
			return fail(0, 0, 0, err)
		}
		if isBlank(rec) {
			continue
		}
		if t.Names == nil {
			if err := t.setHeader(rec, cr); err != nil {
				return nil, err
			}
			continue
		}
		row := t.Rows + 1
		line, _ := cr.FieldPos(0)
		if len(rec) != t.Cols {
			return fail(line, row, 0, fmt.Errorf("%w: have %d, header has %d", ErrRagged, len(rec), t.Cols))
		}
		for j, f := range rec {
			v, err := parseNumber(f)
			if err != nil {
				line, _ := cr.FieldPos(j)
				return fail(line, row, j+1, err)
			}
			t.Data = append(t.Data, v)
		}
		t.Rows++
	}

	switch {
	case t.Names == nil:
		return fail(0, 0, 0, fmt.Errorf("%w: no header line", ErrEmpty))
	case t.Rows == 0:
		return fail(0, 0, 0, fmt.Errorf("%w: header but no data rows", ErrEmpty))
	case t.Rows < MinRows:
		return fail(0, 0, 0, fmt.Errorf("%w: have %d, need at least %d", ErrTooFewRows, t.Rows, MinRows))
	}
	return t, nil
}

// setHeader takes the column names from the header record, which cr has
// just returned.
func (t *Table) setHeader(rec []string, cr *csv.Reader) error {
	names := make([]string, len(rec))
	seen := make(map[string]int, len(rec))
	for j, f := range rec {
		n := strings.TrimSpace(f)
		line, _ := cr.FieldPos(j)
		switch prev, dup := seen[n]; {
		case n == "":
			return &Error{File: t.File, Line: line, Col: j + 1, Err: ErrUnnamedColumn}
		case dup:
			return &Error{File: t.File, Line: line, Col: j + 1, Column: n,
				Err: fmt.Errorf("%w: also column %d", ErrDuplicateColumn, prev+1)}
		}
		seen[n] = j
		names[j] = n
	}
	t.Names, t.Cols = names, len(names)
	return nil
}

// isBlank reports whether a record comes from a line holding only white space.
func isBlank(rec []string) bool {
	return len(rec) == 1 && strings.TrimSpace(rec[0]) == ""
}

// parseNumber parses one trimmed field as a finite decimal number.
func parseNumber(field string) (float64, error) {
	s := strings.TrimSpace(field)
	if s == "" {
		return 0, fmt.Errorf("%w: empty cell", ErrNotNumber)
	}
	switch strings.ToLower(strings.TrimLeft(s, "+-")) {
	case "nan", "inf", "infinity":
		return 0, fmt.Errorf("%w: %q", ErrNonFinite, s)
	}
	// ParseFloat also takes hexadecimal floats and digit underscores, which
	// in a data file are far more likely typos than intent.
	for i := 0; i < len(s); i++ {
		if !strings.ContainsRune("0123456789+-.eE", rune(s[i])) {
			return 0, fmt.Errorf("%w: %q", ErrNotNumber, s)
		}
	}
	v, err := strconv.ParseFloat(s, 64)
	switch {
	case err == nil:
		return v, nil
	case errors.Is(err, strconv.ErrRange) && math.IsInf(v, 0):
		return 0, fmt.Errorf("%w: %q overflows float64", ErrNonFinite, s)
	default:
		return 0, fmt.Errorf("%w: %q", ErrNotNumber, s)
	}
}

// Split separates the target column, named target or the last column if
// target is "", from the features. X is Rows×(Cols−1) row-major, y has
// length Rows, and features lists the remaining column names in file order.
func (t *Table) Split(target string) (X, y []float64, features []string, err error) {
	k := t.Cols - 1
	if target != "" {
		if k = t.index(target); k < 0 {
			return nil, nil, nil, t.unknown(target)
		}
	}
	if t.Cols < 2 {
		if target == "" && t.Cols == 1 {
			target = t.Names[0]
		}
		return nil, nil, nil, &Error{File: t.File, Column: target,
			Err: fmt.Errorf("%w: the target is the only column", ErrNoFeatures)}
	}
	features = make([]string, 0, t.Cols-1)
	features = append(features, t.Names[:k]...)
	features = append(features, t.Names[k+1:]...)
	X = make([]float64, 0, t.Rows*(t.Cols-1))
	y = make([]float64, t.Rows)
	for i := range t.Rows {
		row := t.Data[i*t.Cols : (i+1)*t.Cols]
		X = append(X, row[:k]...)
		X = append(X, row[k+1:]...)
		y[i] = row[k]
	}
	return X, y, features, nil
}

// Select returns the columns named by names, in that order, as a
// Rows×len(names) row-major matrix. Other columns, such as a target present
// in a file to predict on, are ignored.
func (t *Table) Select(names []string) (X []float64, err error) {
	if len(names) == 0 {
		return nil, &Error{File: t.File, Err: fmt.Errorf("%w: no columns requested", ErrNoFeatures)}
	}
	idx := make([]int, len(names))
	for j, n := range names {
		if idx[j] = t.index(n); idx[j] < 0 {
			return nil, t.unknown(n)
		}
	}
	X = make([]float64, 0, t.Rows*len(names))
	for i := range t.Rows {
		row := t.Data[i*t.Cols : (i+1)*t.Cols]
		for _, k := range idx {
			X = append(X, row[k])
		}
	}
	return X, nil
}

// index returns the position of the column called name, or −1.
func (t *Table) index(name string) int {
	for j, n := range t.Names {
		if n == name {
			return j
		}
	}
	return -1
}

// unknown builds the error for a column name not in the header, listing
// the ones that are (up to a limit, for very wide files).
func (t *Table) unknown(name string) error {
	const maxListed = 20
	var b strings.Builder
	for j, n := range t.Names {
		if j == maxListed {
			fmt.Fprintf(&b, " and %d more", len(t.Names)-maxListed)
			break
		}
		if j > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", n)
	}
	return &Error{File: t.File, Column: name,
		Err: fmt.Errorf("%w; available columns: %s", ErrUnknownColumn, b.String())}
}
