package demodata

import (
	"bytes"
	_ "embed"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
)

//go:embed kin8nm.csv
var kin8nmCSV []byte

var kin8nm = sync.OnceValue(func() table {
	t, err := parse(kin8nmCSV)
	if err != nil {
		// The file is part of the binary: failing to parse it is a build defect.
		panic("demodata: kin8nm.csv: " + err.Error())
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

// parse reads a numeric CSV file with a header whose last column is the
// target.
func parse(b []byte) (table, error) {
	r := csv.NewReader(bytes.NewReader(b))
	r.TrimLeadingSpace = true
	r.ReuseRecord = true
	head, err := r.Read()
	if err != nil {
		return table{}, err
	}
	t := table{names: append([]string(nil), head...), d: len(head) - 1}
	if t.d < 1 {
		return table{}, fmt.Errorf("header has %d columns, need at least 2", len(head))
	}
	for {
		rec, err := r.Read()
		if err != nil {
			if err == io.EOF {
				break
			}
			return table{}, err
		}
		for j, f := range rec {
			v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
			if err != nil {
				line, _ := r.FieldPos(j)
				return table{}, fmt.Errorf("line %d, column %d: %w", line, j+1, err)
			}
			if j < t.d {
				t.x = append(t.x, v)
			} else {
				t.y = append(t.y, v)
			}
		}
		t.n++
	}
	return t, nil
}
