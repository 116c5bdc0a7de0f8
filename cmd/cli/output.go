package cli

import (
	"encoding/json"
	"io"
	"math"
	"strconv"
)

// Num is a float64 written to JSON as null when it is NaN or infinite
// (a DoF that could not be computed reliably, its criteria, gMDL = +Inf).
type Num float64

// MarshalJSON writes the shortest representation that reads back exactly.
func (v Num) MarshalJSON() ([]byte, error) {
	f := float64(v)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, f, 'g', -1, 64), nil
}

// WriteJSON writes v as one indented JSON document.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// NonNil makes an absent list an empty JSON array.
func NonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Cell formats a number for a table: six significant digits, "—" for an
// unknown value.
func Cell(v float64) string {
	switch {
	case math.IsNaN(v):
		return "—"
	case math.IsInf(v, 1):
		return "+Inf"
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}
