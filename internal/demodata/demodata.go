package demodata

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// kin8nm.csv is stored gzip-compressed (a third of its 1.1 MB) and read
// through the decompressor, so the values are those of the original file.
//
//go:embed kin8nm.csv.gz
var kin8nmGz []byte

var kin8nm = sync.OnceValue(func() table {
	zr, err := gzip.NewReader(bytes.NewReader(kin8nmGz))
	if err != nil {
		// The file is part of the binary: failing to read it is a build defect.
		panic("demodata: kin8nm.csv.gz: " + err.Error())
	}
	// parse reads to the end, where gzip checks the length and CRC.
	t, err := parse(zr, "y")
	if err != nil {
		panic("demodata: kin8nm.csv.gz: " + err.Error())
	}
	return t
})

type table struct {
	x     []float64
	n, d  int
	y     []float64
	names []string
}

// Kin8nm returns the kin8nm data: x is n×d row-major (n = 8192, d = 8),
// y the target, names the d feature names followed by the target's. The
// slices are fresh copies the caller may modify.
func Kin8nm() (x []float64, n, d int, y []float64, names []string) {
	t := kin8nm()
	return append([]float64(nil), t.x...), t.n, t.d, append([]float64(nil), t.y...), append([]string(nil), t.names...)
}

// Protein reads the protein tertiary structure file (the UCI "Physicochemical
// Properties of Protein Tertiary Structure" set, protein.csv: 45,730 rows,
// the target RMSD in the first column, features F1..F9 after it). x is n×d
// row-major with every feature standardised to mean 0 and standard deviation
// 1 (divisor n−1); y is RMSD as read. The target is found by its header name,
// the features are all other columns in file order. Errors name the file,
// and for a bad value its line and column.
func Protein(path string) (x []float64, n, d int, y []float64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, 0, nil, err
	}
	defer f.Close()
	t, err := parse(f, "RMSD")
	if err == nil {
		err = standardize(t.x, t.n, t.d, t.names)
	}
	if err != nil {
		return nil, 0, 0, nil, fmt.Errorf("%s: %w", path, err)
	}
	return t.x, t.n, t.d, t.y, nil
}

// parse reads a numeric CSV file with a header line. The column named
// target is y, the others, in file order, are x; names lists the features'
// names followed by the target's.
func parse(in io.Reader, target string) (table, error) {
	r := csv.NewReader(in)
	r.TrimLeadingSpace = true
	r.ReuseRecord = true
	head, err := r.Read()
	if err == io.EOF {
		return table{}, errors.New("empty file: no header line")
	}
	if err != nil {
		return table{}, err
	}
	head = slices.Clone(head)
	ty := slices.Index(head, target)
	if ty < 0 {
		return table{}, fmt.Errorf("line 1: no column %q in the header %q", target, head)
	}
	if len(head) < 2 {
		return table{}, fmt.Errorf("line 1: header has %d column, need at least 2", len(head))
	}
	t := table{d: len(head) - 1, names: append(slices.Delete(slices.Clone(head), ty, ty+1), target)}
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return table{}, err
		}
		for j, f := range rec {
			v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				line, _ := r.FieldPos(j)
				return table{}, fmt.Errorf("line %d, column %d (%s): %q is not a finite number", line, j+1, head[j], f)
			}
			if j == ty {
				t.y = append(t.y, v)
			} else {
				t.x = append(t.x, v)
			}
		}
		t.n++
	}
	if t.n == 0 {
		return table{}, errors.New("no data rows after the header")
	}
	return t, nil
}

// standardize scales each column of the n×d row-major x to mean 0 and
// standard deviation 1 (divisor n−1); names are the columns' names for the
// error about a constant column.
func standardize(x []float64, n, d int, names []string) error {
	if n < 2 {
		return fmt.Errorf("%d data row: need at least 2 to standardise", n)
	}
	for k := range d {
		var s, s2 float64
		for i := range n {
			s += x[i*d+k]
		}
		mean := s / float64(n)
		for i := range n {
			s2 += (x[i*d+k] - mean) * (x[i*d+k] - mean)
		}
		sd := math.Sqrt(s2 / float64(n-1))
		if sd == 0 {
			return fmt.Errorf("column %s is constant: cannot standardise", names[k])
		}
		for i := range n {
			x[i*d+k] = (x[i*d+k] - mean) / sd
		}
	}
	return nil
}
