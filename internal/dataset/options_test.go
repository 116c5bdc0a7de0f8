package dataset

import (
	"bytes"
	"compress/gzip"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

func open(t *testing.T, in string, o Options) *Reader {
	t.Helper()
	r, err := NewReader(strings.NewReader(in), "in.csv", o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestDelimiters(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		o        Options
		delim    rune
	}{
		{"comma", "a,b,y\n1,2,3\n4,5,6\n7,8,9\n", Options{}, ','},
		{"semicolon", "a;b;y\n1;2;3\n4;5;6\n7;8;9\n", Options{}, ';'},
		{"tab", "a\tb\ty\n1\t2\t3\n4\t5\t6\n7\t8\t9\n", Options{}, '\t'},
		{"quoted comma in a semicolon header", "\"a,1\";b;y\n1;2;3\n4;5;6\n7;8;9\n", Options{}, ';'},
		{"forced semicolon", "a;b;y\n1;2;3\n4;5;6\n7;8;9\n", Options{Delimiter: ';'}, ';'},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := open(t, tc.in, tc.o)
			if r.Delimiter() != tc.delim {
				t.Errorf("delimiter %q, want %q", r.Delimiter(), tc.delim)
			}
			tab, err := r.Read(Columns{})
			if err != nil {
				t.Fatal(err)
			}
			if tab.Cols != 3 || !slices.Equal(tab.Data, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9}) {
				t.Errorf("got %v %v", tab.Names, tab.Data)
			}
		})
	}
	if _, err := NewReader(strings.NewReader("a|b\n"), "in.csv", Options{Delimiter: '|'}); !errors.Is(err, ErrDelimiter) {
		t.Errorf("delimiter |: %v", err)
	}
	// An empty tab-separated cell stays a cell.
	_, err := open(t, "a\tb\ty\n1\t\t3\n", Options{}).Read(Columns{})
	if !errors.Is(err, ErrMissing) || !strings.Contains(err.Error(), `line 2, column "b"`) {
		t.Errorf("empty tab cell: %v", err)
	}
}

func TestNoHeader(t *testing.T) {
	const in = "1,2,3\n4,5,6\n7,8,x\n"
	r := open(t, in, Options{NoHeader: true})
	if want := []string{"x1", "x2", "y"}; !slices.Equal(r.Names(), want) {
		t.Errorf("names %q, want %q", r.Names(), want)
	}
	_, err := r.Read(Columns{})
	if !errors.Is(err, ErrNotNumber) || !strings.Contains(err.Error(), `line 3, column "y"`) {
		t.Errorf("err %v", err)
	}
	tab, err := open(t, "1,2,3\n4,5,6\n7,8,9\n", Options{NoHeader: true}).Read(Columns{})
	if err != nil || tab.Rows != 3 || tab.Data[0] != 1 {
		t.Errorf("no header: %v %+v", err, tab)
	}
	// The same error from the first line, which is data here.
	_, err = open(t, "1,z,3\n4,5,6\n7,8,9\n", Options{NoHeader: true}).Read(Columns{})
	if !errors.Is(err, ErrNotNumber) || !strings.Contains(err.Error(), `line 1, column "x2"`) {
		t.Errorf("err %v", err)
	}
}

func TestColumnsAndIDs(t *testing.T) {
	const in = "id,a,name,b,y\nr1,1,alpha,2,3\nr2,4,beta,5,6\nr3,7,,8,9\n"
	tab, err := open(t, in, Options{}).Read(Columns{Numeric: []string{"b", "a"}, ID: "id"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(tab.Names, []string{"b", "a"}) || !slices.Equal(tab.Data, []float64{2, 1, 5, 4, 8, 7}) ||
		!slices.Equal(tab.IDs, []string{"r1", "r2", "r3"}) {
		t.Errorf("got %q %v %q", tab.Names, tab.Data, tab.IDs)
	}
	if _, err := open(t, in, Options{}).Read(Columns{Numeric: []string{"zz"}}); !errors.Is(err, ErrUnknownColumn) {
		t.Errorf("unknown: %v", err)
	}
	if _, err := open(t, in, Options{}).Read(Columns{ID: "zz"}); !errors.Is(err, ErrUnknownColumn) {
		t.Errorf("unknown id: %v", err)
	}
	// Every column but the ID: the text column is used, and named.
	_, err = open(t, in, Options{}).Read(Columns{ID: "id"})
	if !errors.Is(err, ErrNotNumber) || !strings.Contains(err.Error(), `line 2, column "name": not a number: "alpha"`) {
		t.Errorf("text column: %v", err)
	}
}

func TestDropMissing(t *testing.T) {
	const in = "a,b,y\n1,2,3\n4,,6\n7,NA,9\n10,11,12\n13,14,15\n"
	_, err := open(t, in, Options{}).Read(Columns{})
	if !errors.Is(err, ErrMissing) || !strings.Contains(err.Error(), `in.csv: line 3, column "b": missing value (empty cell)`) {
		t.Errorf("default: %v", err)
	}
	tab, err := open(t, in, Options{DropMissing: true}).Read(Columns{})
	if err != nil {
		t.Fatal(err)
	}
	if tab.Rows != 3 || !slices.Equal(tab.Dropped, []int{3, 4}) || tab.Data[3] != 10 {
		t.Errorf("rows %d dropped %v data %v", tab.Rows, tab.Dropped, tab.Data)
	}
	// Missing values in columns not read do not count.
	tab, err = open(t, in, Options{}).Read(Columns{Numeric: []string{"a", "y"}})
	if err != nil || tab.Rows != 5 {
		t.Errorf("unused column: %v", err)
	}
	_, err = open(t, "a,y\n1,\n2,\n3,4\n", Options{DropMissing: true}).Read(Columns{})
	if !errors.Is(err, ErrTooFewRows) || !strings.Contains(err.Error(), "have 1 after dropping 2") {
		t.Errorf("too few after dropping: %v", err)
	}
}

// TestOptionalColumns: a missing cell in an optional column reads as NaN
// and keeps its row; RowNumbers gives each kept row's data row.
func TestOptionalColumns(t *testing.T) {
	const in = "a,b,y\n1,2,NA\n4,,6\n\n7,8,\n10,11,12\n"
	for _, drop := range []bool{false, true} {
		tab, err := open(t, in, Options{DropMissing: drop, MinRows: 1}).Read(Columns{Numeric: []string{"a", "y"}, Optional: []string{"y"}})
		if err != nil || tab.Rows != 4 || !math.IsNaN(tab.Data[1]) || !math.IsNaN(tab.Data[5]) || tab.Data[7] != 12 || len(tab.Dropped) != 0 {
			t.Errorf("drop %v: %v, rows %d, data %v, dropped %v", drop, err, tab.Rows, tab.Data, tab.Dropped)
		}
	}
	_, err := open(t, in, Options{MinRows: 1}).Read(Columns{Numeric: []string{"a", "b", "y"}, Optional: []string{"y"}})
	if !errors.Is(err, ErrMissing) || !strings.Contains(err.Error(), `line 3, column "b"`) {
		t.Errorf("a missing cell elsewhere: %v", err)
	}
	tab, err := open(t, in, Options{DropMissing: true, MinRows: 1}).Read(Columns{Numeric: []string{"a", "b", "y"}, Optional: []string{"y"}})
	if err != nil || tab.Rows != 3 || !slices.Equal(tab.Dropped, []int{3}) || !slices.Equal(tab.RowNumbers, []int{1, 3, 4}) {
		t.Errorf("dropped: %v, rows %d, dropped %v, row numbers %v", err, tab.Rows, tab.Dropped, tab.RowNumbers)
	}
	if _, err := open(t, "a,y\n1,x\n", Options{MinRows: 1}).Read(Columns{Optional: []string{"y"}}); !errors.Is(err, ErrNotNumber) {
		t.Errorf("text in an optional column: %v", err)
	}
}

func TestGzipAndMinRows(t *testing.T) {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte("a,y\n1,2\n"))
	zw.Close()
	r, err := NewReader(&b, "in.csv.gz", Options{MinRows: 1})
	if err != nil {
		t.Fatal(err)
	}
	tab, err := r.Read(Columns{})
	if err != nil || tab.Rows != 1 || tab.Data[1] != 2 {
		t.Errorf("gzip: %v %+v", err, tab)
	}
	_, err = NewReader(strings.NewReader("\x1f\x8bnot gzip"), "in.csv.gz", Options{})
	var e *Error
	if !errors.As(err, &e) || !strings.Contains(err.Error(), "in.csv.gz: gzip") {
		t.Errorf("bad gzip: %v", err)
	}
}

// FuzzReadOptions reads arbitrary input with the non-default options and
// a column subset: errors are *Error naming the file, results keep the
// Table invariants.
func FuzzReadOptions(f *testing.F) {
	f.Add([]byte("id;a;b\nr1;1;2\nr2;;3\n"), true, true)
	f.Add([]byte("1\t2\n3\t4\n"), false, true)
	f.Fuzz(func(t *testing.T, in []byte, noHeader, drop bool) {
		r, err := NewReader(bytes.NewReader(in), "fuzz.csv", Options{NoHeader: noHeader, DropMissing: drop, MinRows: 1})
		if err == nil {
			names := r.Names()
			cols := Columns{}
			if len(names) > 1 {
				cols = Columns{Numeric: names[1:], ID: names[0]}
			}
			var tab *Table
			if tab, err = r.Read(cols); err == nil {
				if len(tab.Data) != tab.Rows*tab.Cols || (cols.ID != "" && len(tab.IDs) != tab.Rows) || tab.Rows < 1 {
					t.Fatalf("shape: %d×%d, %d values, %d ids", tab.Rows, tab.Cols, len(tab.Data), len(tab.IDs))
				}
				return
			}
		}
		var e *Error
		if !errors.As(err, &e) || !strings.HasPrefix(err.Error(), "fuzz.csv: ") {
			t.Fatalf("error %q (%T)", err, err)
		}
	})
}
