// Package dataset reads the numeric CSV files taken by the kpls command.
//
// # Format
//
// A file is comma-separated text with a header line naming every column,
// followed by at least three data lines of numbers. Fields may carry
// surrounding spaces and may be quoted; a leading UTF-8 byte order mark is
// skipped; lines holding nothing but white space are ignored, as
// encoding/csv already ignores empty lines. Numbers are decimal
// (strconv.ParseFloat syntax without hexadecimal forms or underscores).
// Column names must be non-empty and distinct.
//
// # Errors
//
// Everything that can be wrong with a file is reported as an *Error that
// names the file, the line of the file and, where it applies, the column,
// for example
//
//	data.csv: line 7, column "x3": not a number: "abc"
//
// and that wraps one of the sentinel errors (ErrEmpty, ErrRagged,
// ErrNotNumber, ErrNonFinite, ...) so callers can test for it with
// errors.Is. Missing values, NaN and infinities are rejected rather than
// imputed: the fit has no sensible default for them, so the user has to
// decide.
//
// # Layout
//
// A Table holds the whole file as one row-major []float64, the layout the
// fitting code consumes. Split separates the target from the features for
// training; Select picks the training features, by name, out of a file to
// predict on, which may order its columns differently or include the target.
package dataset
