package dataset

import (
	"encoding/csv"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestReadValid(t *testing.T) {
	tests := []struct {
		name string
		in   string
	}{
		{"plain", "a,b,y\n1,2,3\n4,5,6\n7,8,9\n"},
		{"bom", "\uFEFFa,b,y\n1,2,3\n4,5,6\n7,8,9\n"},
		{"crlf", "a,b,y\r\n1,2,3\r\n4,5,6\r\n7,8,9\r\n"},
		{"spaces and quotes", " a , \"b\",y \n 1, 2 ,3\n\"4\",5,  6\n7,8,9"},
		{"blank lines", "\n  \na,b,y\n1,2,3\n\n4,5,6\n7,8,9\n\n   \n\t\n"},
		{"no final newline", "a,b,y\n1,2,3\n4,5,6\n7,8,9"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tab, err := Read(strings.NewReader(tc.in), "in.csv")
			if err != nil {
				t.Fatal(err)
			}
			if want := []string{"a", "b", "y"}; !slices.Equal(tab.Names, want) {
				t.Errorf("Names = %q, want %q", tab.Names, want)
			}
			if tab.Rows != 3 || tab.Cols != 3 {
				t.Errorf("shape = %d×%d, want 3×3", tab.Rows, tab.Cols)
			}
			if want := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9}; !slices.Equal(tab.Data, want) {
				t.Errorf("Data = %v, want %v", tab.Data, want)
			}
		})
	}
}

func TestReadNumberForms(t *testing.T) {
	in := "x,y\n-1.5e3,+2\n.5,1E-2\n0,-0.0\n1e-999,7.\n"
	tab, err := Read(strings.NewReader(in), "in.csv")
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{-1500, 2, 0.5, 0.01, 0, 0, 0, 7}
	if !slices.Equal(tab.Data, want) {
		t.Errorf("Data = %v, want %v", tab.Data, want)
	}
}

func TestReadErrors(t *testing.T) {
	const three = "1,2,3\n4,5,6\n7,8,9\n"
	tests := []struct {
		name string
		in   string
		want error
		// Fragments the message must contain, besides the file name.
		msg []string
		// Expected location; checked only for the fields set.
		line, row, col int
		column         string
	}{
		{name: "empty", in: "", want: ErrEmpty, msg: []string{"no header"}},
		{name: "blank only", in: "\n \n\t\n", want: ErrEmpty, msg: []string{"no header"}},
		{name: "header only", in: "a,b,y\n", want: ErrEmpty, msg: []string{"no data rows"}},
		{name: "bom only", in: "\uFEFF", want: ErrEmpty},
		{name: "too few rows", in: "a,b,y\n1,2,3\n4,5,6\n", want: ErrTooFewRows, msg: []string{"have 2, need at least 3"}},
		{
			name: "ragged short", in: "a,b,y\n1,2,3\n4,5\n7,8,9\n", want: ErrRagged,
			msg: []string{"line 3", "have 2, header has 3"}, line: 3, row: 2,
		},
		{
			name: "ragged long", in: "a,b,y\n1,2,3\n4,5,6\n7,8,9,10\n", want: ErrRagged,
			msg: []string{"line 4", "have 4"}, line: 4, row: 3,
		},
		{
			name: "not a number", in: "a,b,x3\n1,2,3\n4,5,6\n\n\n7,8,abc\n", want: ErrNotNumber,
			msg: []string{`in.csv: line 6, column "x3": not a number: "abc"`}, line: 6, row: 3, col: 3, column: "x3",
		},
		{
			name: "empty cell", in: "a,b,y\n1,,3\n" + three, want: ErrMissing,
			msg: []string{"line 2", `column "b"`, "empty cell"}, line: 2, row: 1, col: 2, column: "b",
		},
		{
			name: "quoted empty cell", in: "a,b,y\n1,2,3\n4,5,\" \"\n7,8,9\n", want: ErrMissing,
			msg: []string{"line 3", `column "y"`, "empty cell"}, line: 3, row: 2, col: 3,
		},
		{name: "NA", in: "a,b,y\n1,NA,3\n" + three, want: ErrMissing, msg: []string{`"NA"`}, col: 2},
		{name: "hex", in: "a,b,y\n1,0x1p-2,3\n" + three, want: ErrNotNumber, msg: []string{`"0x1p-2"`}},
		{name: "underscore", in: "a,b,y\n1,1_000,3\n" + three, want: ErrNotNumber, msg: []string{`"1_000"`}},
		{name: "comma decimal", in: "a;b;y\n1;2,5;3\n" + three, want: ErrNotNumber, msg: []string{`column "b"`, "decimal commas"}},
		{name: "NaN", in: "a,b,y\n1,2,NaN\n" + three, want: ErrMissing, msg: []string{`column "y"`, `"NaN"`}, col: 3},
		{name: "nan", in: "a,b,y\n" + three + "nan,2,3\n", want: ErrMissing, msg: []string{"line 5", `column "a"`}, line: 5, row: 4},
		{name: "inf", in: "a,b,y\n1,-inf,3\n" + three, want: ErrNonFinite, msg: []string{`"-inf"`}},
		{name: "Infinity", in: "a,b,y\n1,+Infinity,3\n" + three, want: ErrNonFinite},
		{name: "overflow", in: "a,b,y\n1,1e999,3\n" + three, want: ErrNonFinite, msg: []string{"overflows"}},
		{
			name: "duplicate", in: "a,b, a\n" + three, want: ErrDuplicateColumn,
			msg: []string{"line 1", `column "a"`, "also column 1"}, line: 1, row: 0, col: 3, column: "a",
		},
		{name: "unnamed", in: "a,,y\n" + three, want: ErrUnnamedColumn, msg: []string{"line 1", "column 2"}, col: 2},
		{name: "numeric header", in: three + three, want: ErrNumericHeader, msg: []string{"line 1", `"1", "2", "3"`}, line: 1},
		{name: "bad quote", in: "a,b,y\n1,2,3\n4,\"5,6\n", want: csv.ErrQuote, msg: []string{"line"}},
		{name: "bare quote", in: "a,b,y\n1,2,3\n4,5\"x,6\n7,8,9\n", want: csv.ErrBareQuote, msg: []string{"line 3"}, line: 3, row: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tab, err := Read(strings.NewReader(tc.in), "in.csv")
			if err == nil {
				t.Fatalf("got %d×%d table, want error %v", tab.Rows, tab.Cols, tc.want)
			}
			if !errors.Is(err, tc.want) {
				t.Errorf("error %q is not %q", err, tc.want)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %q is %T, not *Error", err, err)
			}
			msg := err.Error()
			for _, frag := range append([]string{"in.csv: "}, tc.msg...) {
				if !strings.Contains(msg, frag) {
					t.Errorf("message %q lacks %q", msg, frag)
				}
			}
			if tc.line != 0 && e.Line != tc.line {
				t.Errorf("Line = %d, want %d", e.Line, tc.line)
			}
			if (tc.row != 0 || tc.line != 0) && e.Row != tc.row {
				t.Errorf("Row = %d, want %d", e.Row, tc.row)
			}
			if tc.col != 0 && e.Col != tc.col {
				t.Errorf("Col = %d, want %d", e.Col, tc.col)
			}
			if tc.column != "" && e.Column != tc.column {
				t.Errorf("Column = %q, want %q", e.Column, tc.column)
			}
		})
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "train.csv")
	if err := os.WriteFile(path, []byte("a,y\n1,2\n3,4\n5,6\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tab, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if tab.File != path || tab.Rows != 3 || tab.Cols != 2 {
		t.Errorf("got File %q, %d×%d", tab.File, tab.Rows, tab.Cols)
	}

	missing := filepath.Join(dir, "missing.csv")
	_, err = ReadFile(missing)
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: error %v is not fs.ErrNotExist", err)
	}
	if err != nil && !strings.Contains(err.Error(), missing) {
		t.Errorf("missing file: message %q does not name the path", err)
	}

	bad := filepath.Join(dir, "bad.csv")
	if err := os.WriteFile(bad, []byte("a,y\n1,2\n3,x\n5,6\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = ReadFile(bad)
	if want := bad + `: line 3, column "y": not a number: "x"`; err == nil || err.Error() != want {
		t.Errorf("bad file: error %v, want %s", err, want)
	}
}

func readTable(t *testing.T, in string) *Table {
	t.Helper()
	tab, err := Read(strings.NewReader(in), "in.csv")
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

func TestSplit(t *testing.T) {
	tab := readTable(t, "a,b,c\n1,2,3\n4,5,6\n7,8,9\n")
	tests := []struct {
		target   string
		X, y     []float64
		features []string
	}{
		{"", []float64{1, 2, 4, 5, 7, 8}, []float64{3, 6, 9}, []string{"a", "b"}},
		{"c", []float64{1, 2, 4, 5, 7, 8}, []float64{3, 6, 9}, []string{"a", "b"}},
		{"b", []float64{1, 3, 4, 6, 7, 9}, []float64{2, 5, 8}, []string{"a", "c"}},
		{"a", []float64{2, 3, 5, 6, 8, 9}, []float64{1, 4, 7}, []string{"b", "c"}},
	}
	for _, tc := range tests {
		t.Run("target="+tc.target, func(t *testing.T) {
			X, y, features, err := tab.Split(tc.target)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(X, tc.X) || !slices.Equal(y, tc.y) || !slices.Equal(features, tc.features) {
				t.Errorf("got X=%v y=%v features=%q, want X=%v y=%v features=%q",
					X, y, features, tc.X, tc.y, tc.features)
			}
		})
	}
	// The result must not alias the table.
	X, y, _, _ := tab.Split("")
	X[0], y[0] = -1, -1
	if tab.Data[0] != 1 || tab.Data[2] != 3 {
		t.Error("Split results alias the table's data")
	}
}

func TestSplitErrors(t *testing.T) {
	tab := readTable(t, "a,b,c\n1,2,3\n4,5,6\n7,8,9\n")
	_, _, _, err := tab.Split("z")
	if !errors.Is(err, ErrUnknownColumn) {
		t.Errorf("Split(z): error %v is not ErrUnknownColumn", err)
	}
	if want := `in.csv: column "z": unknown column; available columns: "a", "b", "c"`; err == nil || err.Error() != want {
		t.Errorf("Split(z): message %v, want %s", err, want)
	}

	one := readTable(t, "y\n1\n2\n3\n")
	for _, target := range []string{"", "y"} {
		_, _, _, err := one.Split(target)
		if !errors.Is(err, ErrNoFeatures) {
			t.Errorf("Split(%q) on one column: error %v is not ErrNoFeatures", target, err)
		}
		if err != nil && !strings.Contains(err.Error(), `in.csv: column "y"`) {
			t.Errorf("Split(%q) on one column: message %q", target, err)
		}
	}
}

func TestSelect(t *testing.T) {
	// A prediction file with its columns in another order and the target.
	tab := readTable(t, "c,y,a\n1,2,3\n4,5,6\n7,8,9\n")
	X, err := tab.Select([]string{"a", "c"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{3, 1, 6, 4, 9, 7}; !slices.Equal(X, want) {
		t.Errorf("Select(a, c) = %v, want %v", X, want)
	}

	_, err = tab.Select([]string{"a", "b"})
	if !errors.Is(err, ErrUnknownColumn) || !strings.Contains(err.Error(), `column "b"`) ||
		!strings.Contains(err.Error(), `"c", "y", "a"`) {
		t.Errorf("Select(a, b): error %v", err)
	}
	if _, err := tab.Select(nil); !errors.Is(err, ErrNoFeatures) {
		t.Errorf("Select(nil): error %v is not ErrNoFeatures", err)
	}
}

func TestUnknownColumnListIsBounded(t *testing.T) {
	var hdr, row []string
	for j := range 50 {
		hdr = append(hdr, "x"+strings.Repeat("i", j))
		row = append(row, "1")
	}
	r := strings.Join(row, ",") + "\n"
	tab := readTable(t, strings.Join(hdr, ",")+"\n"+r+r+r)
	_, _, _, err := tab.Split("nope")
	if err == nil || !strings.Contains(err.Error(), "and 30 more") {
		t.Errorf("error %v does not truncate the column list", err)
	}
}

// FuzzRead checks that no input makes Read panic and that whatever it
// accepts satisfies the Table invariants.
func FuzzRead(f *testing.F) {
	f.Add([]byte("a,b,y\n1,2,3\n4,5,6\n7,8,9\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		tab, err := Read(strings.NewReader(string(in)), "fuzz.csv")
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %q is %T, not *Error", err, err)
			}
			if !strings.HasPrefix(err.Error(), "fuzz.csv: ") {
				t.Fatalf("message %q does not start with the file name", err)
			}
			return
		}
		if tab.Rows < MinRows {
			t.Fatalf("accepted %d rows", tab.Rows)
		}
		if tab.Cols < 1 || len(tab.Names) != tab.Cols || len(tab.Data) != tab.Rows*tab.Cols {
			t.Fatalf("shape: %d names, %d×%d, len(Data) = %d", len(tab.Names), tab.Rows, tab.Cols, len(tab.Data))
		}
		for i, v := range tab.Data {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("Data[%d] = %v", i, v)
			}
		}
		if tab.Cols > 1 {
			X, y, features, err := tab.Split("")
			if err != nil || len(X) != tab.Rows*(tab.Cols-1) || len(y) != tab.Rows {
				t.Fatalf("Split: %v", err)
			}
			if _, err := tab.Select(features); err != nil {
				t.Fatalf("Select(%q): %v", features, err)
			}
		}
	})
}
