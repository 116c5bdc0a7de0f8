package main

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"os"

	"github.com/kpls-go/kpls/internal/dataset"
)

// readPrediction reads a file of points to predict, which may hold fewer
// rows than a training file. dataset.Read insists on dataset.MinRows; for
// a shorter file the data lines are repeated until it accepts them (every
// cell is still checked, with the right line numbers for the first copy)
// and the copies are dropped again.
func readPrediction(path string) (*dataset.Table, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read data: %w", err)
	}
	t, err := dataset.Read(bytes.NewReader(b), path)
	if !errors.Is(err, dataset.ErrTooFewRows) {
		return t, err
	}
	body, ok := afterHeader(b)
	if !ok {
		return nil, err
	}
	copies := dataset.MinRows
	padded := append([]byte(nil), b...)
	for range copies - 1 {
		padded = append(padded, '\n')
		padded = append(padded, body...)
	}
	t, err2 := dataset.Read(bytes.NewReader(padded), path)
	if err2 != nil || t.Rows%copies != 0 {
		return nil, err
	}
	t.Rows /= copies
	t.Data = t.Data[:t.Rows*t.Cols]
	return t, nil
}

// afterHeader returns the bytes of a CSV file after its header record.
func afterHeader(b []byte) ([]byte, bool) {
	b = bytes.TrimPrefix(b, []byte("\uFEFF"))
	r := csv.NewReader(bytes.NewReader(b))
	r.FieldsPerRecord = -1
	r.TrimLeadingSpace = true
	if _, err := r.Read(); err != nil {
		return nil, false
	}
	return b[r.InputOffset():], true
}
