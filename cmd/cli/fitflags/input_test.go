package fitflags

import (
	"github.com/kpls-go/kpls/cmd/cli"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kpls-go/kpls/internal/dataset"
)

// readPredictionAll reads every column of a prediction file.
func readPredictionAll(path string) (*dataset.Table, error) {
	t, _, err := (&Input{}).ReadPrediction(&cli.Env{}, path, nil)
	return t, err
}

// writeFile writes content to name in a fresh temporary directory.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestReadPredictionShortFiles(t *testing.T) {
	for _, c := range []struct {
		content string
		rows    int
	}{
		{"a,b\n1,2\n", 1},
		{"\uFEFF\"a\", b\r\n1,2\r\n3,4", 2},
		{"a,b\n1,2\n3,4\n5,6\n", 3},
	} {
		tb, err := readPredictionAll(writeFile(t, "p.csv", c.content))
		if err != nil {
			t.Fatalf("%q: %v", c.content, err)
		}
		if tb.Rows != c.rows || len(tb.Data) != c.rows*2 || tb.Data[0] != 1 || tb.Data[len(tb.Data)-1] != float64(2*c.rows) {
			t.Errorf("%q: %d rows, data %v", c.content, tb.Rows, tb.Data)
		}
	}
	_, err := readPredictionAll(writeFile(t, "p.csv", "a,b\n1,x\n"))
	var de *dataset.Error
	if err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("err = %v (%T), want line 2", err, de)
	}
	if _, err := readPredictionAll(writeFile(t, "p.csv", "a,b\n")); err == nil {
		t.Error("header only accepted")
	}
}
