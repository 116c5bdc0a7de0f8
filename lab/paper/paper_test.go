package paper

import (
	"context"
	"errors"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFigures(t *testing.T) {
	if testing.Short() {
		t.Skip("fits every figure of the paper")
	}
	dir := t.TempDir()
	files, err := Figures(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 9 {
		t.Errorf("%d files: %v", len(files), files)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		switch filepath.Ext(f) {
		case ".png":
			if _, err := png.Decode(strings.NewReader(string(b))); err != nil {
				t.Errorf("%s: %v", f, err)
			}
		case ".svg":
			if !strings.Contains(string(b[:min(len(b), 512)]), "<svg") {
				t.Errorf("%s does not look like SVG", f)
			}
		default:
			t.Errorf("unexpected file %s", f)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Figures(ctx, t.TempDir()); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// TestWriteDocs regenerates the images in docs/:
//
//	KPLS_WRITE_DOCS=1 go test ./lab/paper -run TestWriteDocs
func TestWriteDocs(t *testing.T) {
	if os.Getenv("KPLS_WRITE_DOCS") != "1" {
		t.Skip("set KPLS_WRITE_DOCS=1 to regenerate docs/")
	}
	files, err := Figures(context.Background(), filepath.Join("..", "..", "docs"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() > 300<<10 {
			t.Errorf("%s is %d KB (> 300 KB)", f, fi.Size()>>10)
		}
		t.Log(f, fi.Size()>>10, "KB")
	}
}
