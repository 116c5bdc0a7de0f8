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

// Round formats a number for reading: four significant digits, whole
// numbers up to a billion without an exponent, "—" for an unknown value.
// JSON keeps full precision.
func Round(v float64) string {
	switch a := math.Abs(v); {
	case math.IsNaN(v):
		return "—"
	case math.IsInf(v, 0):
		return Cell(v)
	case a >= 1e4 && a < 1e9:
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}
