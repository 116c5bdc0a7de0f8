package dataset

import (
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// endless is a line that never ends: digits without a newline.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = '1'
	}
	return len(p), nil
}

func TestLongLineRefused(t *testing.T) {
	const limit = 1 << 20
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	in := io.MultiReader(strings.NewReader("a,b,y\n1,2,3\n"), endless{})
	r, err := NewReader(in, "in.csv", Options{MaxLineBytes: limit})
	if err == nil {
		_, err = r.Read(Columns{})
	}
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrLineTooLong) {
		t.Fatalf("error %v, want ErrLineTooLong", err)
	}
	var e *Error
	if !errors.As(err, &e) || e.Line != 3 || !strings.HasPrefix(err.Error(), "in.csv: line 3: ") || !strings.Contains(err.Error(), "MaxLineBytes") {
		t.Errorf("error %q (line %d), want it at in.csv line 3, naming the option", err, e.Line)
	}
	// The line is refused once it passes the limit: the reader has held
	// a few copies of a megabyte at most, not the endless line.
	if got := after.TotalAlloc - before.TotalAlloc; got > 16<<20 {
		t.Errorf("allocated %d bytes reading up to a 1 MiB limit", got)
	}

	// A gzip bomb: a few kilobytes decompressing to 8 MiB on one line.
	var z bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
	zw.Write([]byte("a,y\n"))
	zw.Write(bytes.Repeat([]byte("7"), 8<<20))
	zw.Close()
	r, err = NewReader(bytes.NewReader(z.Bytes()), "bomb.csv.gz", Options{MaxLineBytes: limit})
	if err == nil {
		_, err = r.Read(Columns{})
	}
	if !errors.Is(err, ErrLineTooLong) || !strings.HasPrefix(err.Error(), "bomb.csv.gz: line 2: ") {
		t.Errorf("bomb: %v", err)
	}

	// A raised limit (or none) reads a line as long as the default limit
	// refuses nothing shorter.
	long := "a,y\n1" + strings.Repeat(" ", 3000) + ",2\n3,4\n5,6\n"
	if _, err := open(t, long, Options{MaxLineBytes: 2000}).Read(Columns{}); !errors.Is(err, ErrLineTooLong) {
		t.Errorf("limit 2000: %v", err)
	}
	for _, max := range []int64{0, 4000, -1} {
		tab, err := open(t, long, Options{MaxLineBytes: max}).Read(Columns{})
		if err != nil || tab.Rows != 3 || tab.Data[1] != 2 {
			t.Errorf("limit %d: %v", max, err)
		}
	}
}

func TestUnterminatedQuoteLine(t *testing.T) {
	var b strings.Builder
	b.WriteString("a,b,y\n")
	for i := 2; i <= 200; i++ {
		if i == 41 {
			b.WriteString("4,\"5,6\n")
			continue
		}
		fmt.Fprintf(&b, "%d,%d,%d\n", i, i, i)
	}
	_, err := Read(strings.NewReader(b.String()), "in.csv")
	var e *Error
	if !errors.As(err, &e) || e.Line != 41 || !errors.Is(err, csv.ErrQuote) || !strings.Contains(err.Error(), "in.csv: line 41: ") {
		t.Fatalf("error %v, want a quote error at line 41", err)
	}
	// The same quote with a small limit: the record runs past it, and the
	// error names the line where the quote opened.
	r, err := NewReader(strings.NewReader(b.String()), "in.csv", Options{MaxLineBytes: 100})
	if err == nil {
		_, err = r.Read(Columns{})
	}
	if !errors.As(err, &e) || e.Line != 41 || !errors.Is(err, ErrLineTooLong) || !strings.Contains(err.Error(), "closing quote") {
		t.Fatalf("limited: error %v, want line 41", err)
	}
	// An extraneous quote keeps its own line.
	_, err = Read(strings.NewReader("a,b,y\n1,2,3\n\"4\"x,5,6\n7,8,9\n1,1,1\n"), "in.csv")
	if !errors.As(err, &e) || e.Line != 3 {
		t.Errorf("extraneous quote: %v", err)
	}
}

func TestCarriageReturnLines(t *testing.T) {
	tab, err := Read(strings.NewReader("a,b,y\r1,2,3\r4,5,6\r7,8,9\r"), "mac.csv")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(tab.Names, []string{"a", "b", "y"}) || !slices.Equal(tab.Data, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9}) {
		t.Errorf("got %q %v", tab.Names, tab.Data)
	}
	_, err = Read(strings.NewReader("a,b,y\r1,2,3\r4,5,6\r7,x,9\r"), "mac.csv")
	if !errors.Is(err, ErrNotNumber) || !strings.HasPrefix(err.Error(), `mac.csv: line 4, column "b": `) {
		t.Errorf("error %v, want line 4 column b", err)
	}
	// Windows line ends are unchanged.
	tab, err = Read(strings.NewReader("a,y\r\n1,2\r\n3,4\r\n5,6\r\n"), "win.csv")
	if err != nil || !slices.Equal(tab.Data, []float64{1, 2, 3, 4, 5, 6}) {
		t.Errorf("CRLF: %v %v", err, tab)
	}
}

func gz(s string) []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(s))
	zw.Close()
	return b.Bytes()
}

func TestGzipTrailingData(t *testing.T) {
	for _, tail := range [][]byte{[]byte("garbage after the stream\n"), {0, 0, 0, 0}, {'x'}} {
		in := append(gz("a,y\n1,2\n3,4\n5,6\n"), tail...)
		_, err := Read(bytes.NewReader(in), "in.csv.gz")
		var e *Error
		if !errors.Is(err, ErrTrailing) || !errors.As(err, &e) || !strings.HasPrefix(err.Error(), "in.csv.gz: after line 4: ") ||
			!strings.Contains(err.Error(), fmt.Sprintf("%d bytes that are not gzip", len(tail))) {
			t.Errorf("tail %q: %v", tail, err)
		}
	}
	// Concatenated members are one file, as for gunzip.
	in := append(gz("a,y\n1,2\n"), gz("3,4\n5,6\n")...)
	tab, err := Read(bytes.NewReader(in), "in.csv.gz")
	if err != nil || !slices.Equal(tab.Data, []float64{1, 2, 3, 4, 5, 6}) {
		t.Errorf("two members: %v %v", err, tab)
	}
	// A truncated stream names the line it stopped in.
	full := gz("a,y\n1,2\n3,4\n5,6\n")
	_, err = Read(bytes.NewReader(full[:len(full)-6]), "in.csv.gz")
	if err == nil || !strings.HasPrefix(err.Error(), "in.csv.gz: ") || !strings.Contains(err.Error(), "gzip") {
		t.Errorf("truncated: %v", err)
	}
}

// R's write.csv(df) of a data frame with a text column and a missing
// value, byte for byte.
const rWriteCSV = `"","site","x1","x2","y"
"1","a",0.5,1,2.5
"2","b",NA,2,3
"3","c",1.5,3,4
"4","d",2,4,5.5
`

// pandas' df.to_csv("f.csv") with its default index; read back and
// written again, the index column is called "Unnamed: 0".
const (
	pandasCSV = `,x1,x2,y
0,0.5,1.0,2.5
1,1.25,2.0,3.0
2,1.5,3.0,4.0
`
	pandasAgainCSV = `Unnamed: 0,x1,x2,y
0,0.5,1.0,2.5
1,1.25,2.0,3.0
2,1.5,3.0,4.0
`
)

func TestRowNameColumn(t *testing.T) {
	r := open(t, rWriteCSV, Options{DropMissing: true})
	if want := []string{"site", "x1", "x2", "y"}; !slices.Equal(r.Names(), want) {
		t.Errorf("Names() = %q, want %q", r.Names(), want)
	}
	tab, err := r.Read(Columns{Numeric: []string{"x1", "x2", "y"}})
	if err != nil {
		t.Fatal(err)
	}
	if tab.Index != `""` || !slices.Equal(tab.IDs, []string{"1", "3", "4"}) || !slices.Equal(tab.Dropped, []int{3}) ||
		!slices.Equal(tab.Data, []float64{0.5, 1, 2.5, 1.5, 3, 4, 2, 4, 5.5}) {
		t.Errorf("R: index %s, ids %q, dropped %v, data %v", tab.Index, tab.IDs, tab.Dropped, tab.Data)
	}
	// Another ID column asked for wins; the row names are still no data.
	tab, err = open(t, rWriteCSV, Options{DropMissing: true}).Read(Columns{ID: "site"})
	if err != nil || tab.Index != `""` || !slices.Equal(tab.IDs, []string{"a", "c", "d"}) || !slices.Equal(tab.Names, []string{"x1", "x2", "y"}) {
		t.Errorf("R with --id site: %v %+v", err, tab)
	}

	for _, tc := range []struct{ in, index string }{{pandasCSV, `""`}, {pandasAgainCSV, `"Unnamed: 0"`}} {
		tab, err := Read(strings.NewReader(tc.in), "pd.csv")
		if err != nil {
			t.Fatal(err)
		}
		if tab.Index != tc.index || !slices.Equal(tab.Names, []string{"x1", "x2", "y"}) || !slices.Equal(tab.IDs, []string{"0", "1", "2"}) ||
			!slices.Equal(tab.Data, []float64{0.5, 1, 2.5, 1.25, 2, 3, 1.5, 3, 4}) {
			t.Errorf("pandas %s: %+v", tc.index, tab)
		}
	}
	// Only the first column can be one of row names; an empty name
	// elsewhere is still an error, and a file without one has no Index.
	if _, err := Read(strings.NewReader("a,,y\n1,2,3\n4,5,6\n7,8,9\n"), "in.csv"); !errors.Is(err, ErrUnnamedColumn) {
		t.Errorf("empty second name: %v", err)
	}
	if tab := readTable(t, "a,b,y\n1,2,3\n4,5,6\n7,8,9\n"); tab.Index != "" || tab.IDs != nil {
		t.Errorf("no index: %q %q", tab.Index, tab.IDs)
	}
}
