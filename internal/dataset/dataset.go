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
	"slices"
	"strconv"
	"strings"
)

// MinRows is the smallest number of data rows Read accepts by default:
// with fewer there is nothing to fit or to estimate a noise level from.
const MinRows = 3

// Sentinel errors wrapped by *Error; test for them with errors.Is.
var (
	ErrEmpty           = errors.New("empty input")
	ErrRagged          = errors.New("wrong number of fields")
	ErrNotNumber       = errors.New("not a number")
	ErrMissing         = errors.New("missing value")
	ErrNonFinite       = errors.New("non-finite value")
	ErrTooFewRows      = errors.New("too few data rows")
	ErrUnknownColumn   = errors.New("unknown column")
	ErrDuplicateColumn = errors.New("duplicate column name")
	ErrUnnamedColumn   = errors.New("column has no name")
	ErrNoFeatures      = errors.New("no feature columns")
	ErrNumericHeader   = errors.New("the header line holds numbers, not column names")
	ErrDelimiter       = errors.New("unsupported delimiter")
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

// Table is a numeric CSV file, or the columns of one that were asked
// for: their names and row-major values.
type Table struct {
	File       string    // name used in error messages
	Names      []string  // column names, trimmed, in file order or the order asked for
	Rows, Cols int       // data rows (header excluded) and columns
	Data       []float64 // Rows×Cols, row-major
	// IDs holds the text of the Columns.ID column, one per row; nil
	// without one.
	IDs []string
	// Dropped lists the lines of the rows left out by Options.DropMissing.
	Dropped []int
	// RowNumbers holds, with Options.DropMissing, the data row of the
	// file (1-based, the header and blank lines not counted) each row
	// came from; nil otherwise, where row i is data row i+1.
	RowNumbers []int
	// Index, if not "", is the header cell of the file's first column,
	// quoted (`""`, `"row.names"`, `"Unnamed: 0"`): a column of row names
	// as R's write.csv and pandas' to_csv write them, which is never data.
	// IDs holds its text unless Columns.ID named another column.
	Index string
}

// Options says how to read a file. The zero value reads a file with a
// header line whose delimiter is detected, and fails on missing values.
type Options struct {
	// Delimiter is ',', ';' or '\t'; 0 detects it from the first line (the
	// one of the three occurring most often outside quotes, comma if none).
	Delimiter rune
	// NoHeader says the file has no header line: the columns are named
	// x1, x2, ..., and y for the last. Without it, a first line made only of
	// numbers is ErrNumericHeader.
	NoHeader bool
	// DropMissing drops rows with a missing value (an empty cell, NA, N/A,
	// NaN, null or ?) in a column being read, instead of failing with
	// ErrMissing; Table.Dropped lists their lines.
	DropMissing bool
	// MinRows is the fewest data rows accepted (after dropping); 0 means
	// the package's MinRows.
	MinRows int
	// MaxLineBytes bounds the bytes of one record (a line, or the lines a
	// quoted field spans), decompressed: a longer one is ErrLineTooLong,
	// read no further. 0 means DefaultMaxLineBytes; negative, no limit.
	MaxLineBytes int64
	// Open opens a file for Open, standard input ("-") included; nil means
	// os.Open and os.Stdin. The command's MPI build reads every input on
	// rank 0 (the only rank mpirun gives standard input) and broadcasts
	// its bytes to the other ranks.
	Open func(path string) (io.ReadCloser, error)
}

// Columns says which columns Reader.Read parses.
type Columns struct {
	// Numeric names the columns parsed as numbers, in the order they are
	// wanted; nil means every column except ID, in file order. Any other
	// column is skipped unread, whatever it holds.
	Numeric []string
	// ID names a column kept as text in Table.IDs; "" means none.
	ID string
	// Optional names columns of Numeric whose missing cells (see
	// Options.DropMissing) read as NaN: neither an error nor a reason to
	// drop the row. A prediction file's target column is one: a row
	// without its target is still predicted.
	Optional []string
}

// Reader reads one file: Open or NewReader parse the header, Names lists
// the columns, Read parses the data.
type Reader struct {
	name   string
	opts   Options
	cr     *csv.Reader
	lr     *lineReader
	names  []string // every column's, the index column's too
	index  bool     // whether the first column holds row names (Table.Index)
	first  []string // with NoHeader, the first data record
	line1  int      // its line
	closer io.Closer
	done   bool
}

// Open opens the file at path for reading; "-" is standard input. The
// caller must Close the Reader. See NewReader.
func Open(path string, opts Options) (*Reader, error) {
	name := path
	if path == "-" {
		name = "stdin"
		if opts.Open == nil {
			return NewReader(os.Stdin, name, opts)
		}
	}
	var f io.ReadCloser
	var err error
	if opts.Open != nil {
		f, err = opts.Open(path)
	} else {
		f, err = os.Open(path)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read data: %w", err)
	}
	r, err := NewReader(f, name, opts)
	if err != nil {
		f.Close()
		return nil, err
	}
	r.closer = f
	return r, nil
}

// Close closes the file Open opened.
func (r *Reader) Close() error {
	if r.closer == nil {
		return nil
	}
	return r.closer.Close()
}

// NewReader reads the header of a CSV file from in, which may be
// gzip-compressed (recognised by its magic bytes, whatever the name).
// name is the file name used in error messages. Every failure is an *Error.
func NewReader(in io.Reader, name string, opts Options) (*Reader, error) {
	r := &Reader{name: name, opts: opts}
	br := bufio.NewReaderSize(in, 64<<10)
	if p, err := br.Peek(2); err == nil && p[0] == 0x1f && p[1] == 0x8b {
		zr, err := newGzipStream(br)
		if err != nil {
			return nil, r.errorf(0, 0, 0, fmt.Errorf("gzip: %w", err))
		}
		br = bufio.NewReaderSize(zr, 64<<10)
	}
	// Discard a byte order mark before csv sees it, so it cannot end up in
	// the first column's name.
	if p, err := br.Peek(3); err == nil && bytes.Equal(p, []byte("\uFEFF")) {
		br.Discard(3)
	}
	delim := opts.Delimiter
	switch delim {
	case 0:
		p, _ := br.Peek(64 << 10)
		delim = detectDelimiter(p)
	case ',', ';', '\t':
	default:
		return nil, r.errorf(0, 0, 0, fmt.Errorf("%w %q (want comma, semicolon or tab)", ErrDelimiter, delim))
	}
	max := opts.MaxLineBytes
	if max == 0 {
		max = DefaultMaxLineBytes
	}
	p, _ := br.Peek(64 << 10)
	r.lr = &lineReader{r: br, max: max, cr: crOnly(p), start: 1}
	r.cr = csv.NewReader(r.lr)
	r.cr.Comma = delim
	r.cr.FieldsPerRecord = -1 // ragged rows are reported below, with column counts
	r.cr.ReuseRecord = true
	// So that `1, "2"` parses; trailing spaces are trimmed per field. Not
	// with tabs, where it would swallow empty fields.
	r.cr.TrimLeadingSpace = delim != '\t'

	rec, line, err := r.next(0)
	if err != nil {
		return nil, err
	}
	if rec == nil {
		return nil, r.errorf(0, 0, 0, fmt.Errorf("%w: no header line", ErrEmpty))
	}
	if opts.NoHeader {
		r.first, r.line1 = slices.Clone(rec), line
		r.names = make([]string, len(rec))
		for j := range rec {
			r.names[j] = fmt.Sprintf("x%d", j+1)
		}
		r.names[len(rec)-1] = "y"
		return r, nil
	}
	if err := r.setHeader(rec); err != nil {
		return nil, err
	}
	return r, nil
}

// Names returns the column names: the header's, or x1, ..., y with
// Options.NoHeader. A first column of row names (Table.Index) is left out.
func (r *Reader) Names() []string {
	if r.index {
		return slices.Clone(r.names[1:])
	}
	return slices.Clone(r.names)
}

// Index returns the header cell of a first column of row names, quoted,
// or "" if there is none; see Table.Index.
func (r *Reader) Index() string {
	if r.index {
		return strconv.Quote(r.names[0])
	}
	return ""
}

// Delimiter returns the field delimiter in use.
func (r *Reader) Delimiter() rune { return r.cr.Comma }

// detectDelimiter picks comma, semicolon or tab, whichever occurs most
// often outside quotes in the first line of p.
func detectDelimiter(p []byte) rune {
	counts := map[byte]int{}
	quoted := false
	for _, c := range p {
		if c == '"' {
			quoted = !quoted
			continue
		}
		if c == '\n' && !quoted {
			break
		}
		if !quoted {
			counts[c]++
		}
	}
	best := byte(',')
	for _, c := range []byte{';', '\t'} {
		if counts[c] > counts[best] {
			best = c
		}
	}
	return rune(best)
}

// next returns the next non-blank record and its line, or nil at the end.
func (r *Reader) next(row int) ([]string, int, error) {
	for {
		rec, err := r.cr.Read()
		if err == io.EOF {
			return nil, 0, nil
		}
		if err != nil {
			var pe *csv.ParseError
			var e *Error
			switch {
			case errors.As(err, &e): // from the byte stream, which knows the line
				e.File, e.Row = r.name, row
				return nil, 0, e
			case errors.As(err, &pe) && errors.Is(pe.Err, csv.ErrQuote) && pe.StartLine < pe.Line && r.atEOF():
				// csv reports an unterminated quote where the file ends;
				// the quote is on the line the record starts.
				return nil, 0, r.errorf(pe.StartLine, row, 0,
					fmt.Errorf("%w: a quoted field on this line is never closed (the file ends at line %d)", pe.Err, pe.Line))
			case errors.As(err, &pe):
				return nil, 0, r.errorf(pe.Line, row, 0, pe.Err)
			}
			return nil, 0, r.errorf(0, 0, 0, err)
		}
		if !isBlank(rec) {
			line, _ := r.cr.FieldPos(0)
			return rec, line, nil
		}
	}
}

// atEOF reports whether the file has nothing left after an error.
func (r *Reader) atEOF() bool {
	_, err := r.cr.Read()
	return err == io.EOF
}

func (r *Reader) errorf(line, row, col int, err error) error {
	e := &Error{File: r.name, Line: line, Row: row, Col: col, Err: err}
	if col > 0 && col <= len(r.names) {
		e.Column = r.names[col-1]
	}
	return e
}

// Read parses the data rows: the columns cols names, every other one
// skipped unread. It can be called once.
func (r *Reader) Read(cols Columns) (*Table, error) {
	if r.done {
		return nil, r.errorf(0, 0, 0, errors.New("dataset: Read called twice"))
	}
	r.done = true
	t := &Table{File: r.name}
	idCol := -1
	switch {
	case cols.ID != "":
		if idCol = index(r.names, cols.ID); idCol < 0 {
			return nil, unknown(r.name, r.Names(), cols.ID)
		}
		t.IDs = []string{}
	case r.index:
		idCol = 0
		t.IDs = []string{}
	}
	t.Index = r.Index()
	var idx []int
	if cols.Numeric == nil {
		for j, n := range r.names {
			if j != idCol && !(r.index && j == 0) {
				idx = append(idx, j)
				t.Names = append(t.Names, n)
			}
		}
	} else {
		for _, n := range cols.Numeric {
			j := index(r.names, n)
			if j < 0 {
				return nil, unknown(r.name, r.Names(), n)
			}
			idx = append(idx, j)
			t.Names = append(t.Names, n)
		}
	}
	t.Cols = len(idx)
	minRows := r.opts.MinRows
	if minRows <= 0 {
		minRows = MinRows
	}

	optional := make([]bool, len(idx))
	for k, j := range idx {
		optional[k] = slices.Contains(cols.Optional, r.names[j])
	}
	if r.opts.DropMissing {
		t.RowNumbers = []int{}
	}
	row := 0
	vals := make([]float64, len(idx))
	for {
		var rec []string
		var line int
		if r.first != nil {
			rec, line, r.first = r.first, r.line1, nil
		} else {
			var err error
			if rec, line, err = r.next(row + 1); err != nil {
				return nil, err
			}
		}
		if rec == nil {
			break
		}
		row++
		if len(rec) != len(r.names) {
			return nil, r.errorf(line, row, 0, fmt.Errorf("%w: have %d, header has %d", ErrRagged, len(rec), len(r.names)))
		}
		missing := false
		for k, j := range idx {
			v, err := parseNumber(rec[j])
			if errors.Is(err, ErrMissing) && optional[k] {
				v, err = math.NaN(), nil
			}
			if errors.Is(err, ErrMissing) && r.opts.DropMissing {
				missing = true
				break
			}
			if err != nil {
				if r.cr.Comma == ';' && strings.Contains(rec[j], ",") {
					err = fmt.Errorf("%w (decimal commas are not supported)", err)
				}
				l, _ := r.cr.FieldPos(j)
				if l == 0 || r.opts.NoHeader && row == 1 {
					l = line
				}
				return nil, r.errorf(l, row, j+1, err)
			}
			vals[k] = v
		}
		if missing {
			t.Dropped = append(t.Dropped, line)
			continue
		}
		t.Data = append(t.Data, vals...)
		if idCol >= 0 {
			t.IDs = append(t.IDs, strings.TrimSpace(rec[idCol]))
		}
		if t.RowNumbers != nil {
			t.RowNumbers = append(t.RowNumbers, row)
		}
		t.Rows++
	}

	dropped := ""
	if len(t.Dropped) > 0 {
		dropped = fmt.Sprintf(" after dropping %d with missing values", len(t.Dropped))
	}
	switch {
	case t.Rows == 0 && len(t.Dropped) == 0 && !r.opts.NoHeader:
		return nil, r.errorf(0, 0, 0, fmt.Errorf("%w: header but no data rows", ErrEmpty))
	case t.Rows < minRows:
		return nil, r.errorf(0, 0, 0, fmt.Errorf("%w: have %d%s, need at least %d", ErrTooFewRows, t.Rows, dropped, minRows))
	}
	return t, nil
}

// ReadFile reads every column of the CSV file at path ("-" for standard
// input) with the default Options; see NewReader.
func ReadFile(path string) (*Table, error) {
	r, err := Open(path, Options{})
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return r.Read(Columns{})
}

// Read parses every column of a CSV file with the default Options. name is
// the file name used in error messages. Every failure is an *Error.
func Read(in io.Reader, name string) (*Table, error) {
	r, err := NewReader(in, name, Options{})
	if err != nil {
		return nil, err
	}
	return r.Read(Columns{})
}

// setHeader takes the column names from the header record, which the csv
// reader has just returned.
func (r *Reader) setHeader(rec []string) error {
	names := make([]string, len(rec))
	seen := make(map[string]int, len(rec))
	numeric := 0
	for j, f := range rec {
		n := strings.TrimSpace(f)
		line, _ := r.cr.FieldPos(j)
		if j == 0 && len(rec) > 1 && isIndexName(n) {
			// R's write.csv and pandas' to_csv write the row names first,
			// under an empty name or one like these.
			r.index = true
			names[0] = n
			continue
		}
		switch prev, dup := seen[n]; {
		case n == "":
			return &Error{File: r.name, Line: line, Col: j + 1, Err: ErrUnnamedColumn}
		case dup:
			return &Error{File: r.name, Line: line, Col: j + 1, Column: n,
				Err: fmt.Errorf("%w: also column %d", ErrDuplicateColumn, prev+1)}
		}
		if _, err := parseNumber(n); err == nil {
			numeric++
		}
		seen[n] = j
		names[j] = n
	}
	if r.index {
		numeric++ // the row names' header is no number, but no name either
	}
	if numeric == len(names) {
		line, _ := r.cr.FieldPos(0)
		return &Error{File: r.name, Line: line, Err: fmt.Errorf("%w (%s): the first line must name the columns", ErrNumericHeader, abbreviate(names))}
	}
	r.names = names
	return nil
}

// isIndexName reports whether a first header cell names a column of row
// names rather than data: empty (R's write.csv, pandas' to_csv),
// "row.names" or pandas' "Unnamed: 0".
func isIndexName(n string) bool {
	return n == "" || n == "row.names" || n == "Unnamed: 0"
}

// abbreviate quotes the first few of names.
func abbreviate(names []string) string {
	const shown = 4
	q := make([]string, 0, shown+1)
	for j, n := range names {
		if j == shown {
			q = append(q, "...")
			break
		}
		q = append(q, strconv.Quote(n))
	}
	return strings.Join(q, ", ")
}

// isBlank reports whether a record comes from a line holding only white space.
func isBlank(rec []string) bool {
	return len(rec) == 1 && strings.TrimSpace(rec[0]) == ""
}

// parseNumber parses one trimmed field as a finite decimal number.
func parseNumber(field string) (float64, error) {
	s := strings.TrimSpace(field)
	switch strings.ToLower(s) {
	case "":
		return 0, fmt.Errorf("%w (empty cell)", ErrMissing)
	case "na", "n/a", "nan", "null", "?":
		return 0, fmt.Errorf("%w (%q)", ErrMissing, s)
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
func (t *Table) index(name string) int { return index(t.Names, name) }

func index(names []string, name string) int { return slices.Index(names, name) }

// unknown builds the error for a column name not in the header, listing
// the ones that are (up to a limit, for very wide files).
func (t *Table) unknown(name string) error { return unknown(t.File, t.Names, name) }

func unknown(file string, names []string, name string) error {
	const maxListed = 20
	var b strings.Builder
	for j, n := range names {
		if j == maxListed {
			fmt.Fprintf(&b, " and %d more", len(names)-maxListed)
			break
		}
		if j > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", n)
	}
	return &Error{File: file, Column: name,
		Err: fmt.Errorf("%w; available columns: %s", ErrUnknownColumn, b.String())}
}
