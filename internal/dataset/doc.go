// Package dataset reads the numeric CSV files taken by the kpls and
// kpls-lab commands.
//
// # Format
//
// A file is delimited text: comma, semicolon or tab, detected from the
// first line (whichever occurs most often outside quotes) unless
// Options.Delimiter names it. It starts with a header line naming every
// column; a first line made only of numbers is ErrNumericHeader, since it
// is far more likely a file without a header than one with numeric names,
// and Options.NoHeader reads such a file with the columns named x1, x2,
// ..., and y for the last. Fields may carry surrounding spaces and may be
// quoted; a leading UTF-8 byte order mark is skipped; lines holding
// nothing but white space are ignored. gzip-compressed input is recognised
// by its magic bytes and decompressed; Open reads "-" as standard input.
// Lines may end in a newline, CR LF, or (classic Mac files) a lone
// carriage return. gzip members concatenated are one file; bytes after
// the last member that are not gzip are ErrTrailing. A record (a line,
// or the lines a quoted field spans) longer than Options.MaxLineBytes
// (DefaultMaxLineBytes) is ErrLineTooLong, so that a small compressed
// file cannot make the reader hold gigabytes. A first header cell that
// is empty or "row.names" (R's write.csv) or "Unnamed: 0" (pandas'
// to_csv) names a column of row names: never data, it becomes the row
// identifiers unless Columns.ID names another column, and Table.Index
// says so.
// Numbers are decimal (strconv.ParseFloat syntax without hexadecimal forms
// or underscores; no decimal commas). Column names must be non-empty and
// distinct (but for the row names' column above).
//
// # Columns
//
// Open or NewReader read the header; Reader.Read then parses only the
// columns asked for (Columns.Numeric, in that order), keeps an identifier
// column as text (Columns.ID) and skips every other column unread, so a
// text column that is not used can never make a file fail.
//
// # Missing values
//
// An empty cell, NA, N/A, NaN, null or ? in a column being read is a
// missing value: ErrMissing by default, or, with Options.DropMissing, the
// row is dropped and its line recorded in Table.Dropped. Infinities and
// numbers overflowing float64 are ErrNonFinite: never imputed, the fit has
// no sensible default for them.
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
// ErrNotNumber, ErrMissing, ErrNumericHeader, ...) so callers can test for
// it with errors.Is.
//
// # Layout
//
// A Table holds the columns read as one row-major []float64, the layout
// the fitting code consumes. Split separates the target from the features
// for training; Select picks columns by name.
package dataset
