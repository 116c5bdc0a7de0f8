package panel

import (
	"bytes"
	"compress/gzip"
	"embed"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
)

// realData holds the small real data sets exported once from Debian's R
// data packages (data/export.R; data/README.md says where each came from).
// They are compiled in, so panel gen needs neither R nor a path to them.
//
//go:embed data/*.csv data/*.csv.gz
var realData embed.FS

// smallRows is the size under which a data set counts as small: it gets
// more splits by default (defaultSplits) and summarize.py marks it.
const smallRows = 2000

// realSet returns the panel entry of the committed file data/FILE.
func realSet(name, file string) dataSet {
	return dataSet{name, name, func(path string, _ options, _ uint64) (int, int, error) {
		return writeReal(file, path)
	}}
}

// readReal returns the contents of data/FILE, decompressed if it ends in .gz.
func readReal(file string) ([]byte, error) {
	b, err := fs.ReadFile(realData, "data/"+file)
	if err != nil {
		return nil, err
	}
	if strings.HasSuffix(file, ".gz") {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("data/%s: %w", file, err)
		}
		if b, err = io.ReadAll(zr); err != nil {
			return nil, fmt.Errorf("data/%s: %w", file, err)
		}
	}
	return b, nil
}

// writeReal writes data/FILE, decompressed, to dst after checking that every
// field is a finite number and the target is the last column, named y.
func writeReal(file, dst string) (n, d int, err error) {
	b, err := readReal(file)
	if err != nil {
		return 0, 0, err
	}
	head, rows, err := parseCSV("data/"+file, b)
	if err != nil {
		return 0, 0, err
	}
	if head[len(head)-1] != "y" {
		return 0, 0, fmt.Errorf("data/%s: last column is %q, want the target y", file, head[len(head)-1])
	}
	return len(rows), len(head) - 1, os.WriteFile(dst, b, 0o644)
}
