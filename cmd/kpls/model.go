package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/kpls-go/kpls/kpls"
)

// saveModel writes the model to path through a temporary file, so that a
// failed write never leaves half a model behind.
func saveModel(m *kpls.Model, path string) error {
	return writeAtomically(path, m.Save)
}

// writeAtomically writes a file through a temporary file in its directory
// renamed into place, so that a failed write never leaves half a file
// behind. Errors name --model.
func writeAtomically(path string, write func(io.Writer) error) (err error) {
	if !primary {
		return write(io.Discard) // the same work as rank 0, no file
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".kpls-model-*")
	if err != nil {
		return fmt.Errorf("--model: cannot write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			os.Remove(tmp.Name())
		}
	}()
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return fmt.Errorf("--model: writing %s: %w", path, err)
	}
	if err := write(tmp); err != nil {
		tmp.Close()
		return fmt.Errorf("--model: writing %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("--model: writing %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("--model: cannot write %s: %w", path, err)
	}
	return nil
}

// loadModels reads a model file of any format version: its models and
// their names (one per target; "" where the file names none), naming the
// file in errors.
func loadModels(path string) ([]string, []*kpls.Model, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("--model: %w", err)
	}
	defer f.Close()
	names, ms, err := kpls.LoadModels(f)
	if err != nil {
		return nil, nil, fmt.Errorf("--model %s: %w", path, err)
	}
	return names, ms, nil
}

// loadMeans reads a model file of any format version as means (a plain
// model is a mean of itself alone) and their names, naming the file in
// errors.
func loadMeans(path string) ([]string, []*kpls.Mean, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("--model: %w", err)
	}
	defer f.Close()
	names, ms, err := kpls.LoadMeans(f)
	if err != nil {
		return nil, nil, fmt.Errorf("--model %s: %w", path, err)
	}
	return names, ms, nil
}

// loadModel reads a model file holding one model, naming it in errors.
func loadModel(path string) (*kpls.Model, error) {
	names, ms, err := loadModels(path)
	if err != nil {
		return nil, err
	}
	if len(ms) > 1 {
		return nil, fmt.Errorf("--model %s: the file holds %d models, one per target (%s); this command reads a file of one model",
			path, len(ms), strings.Join(quoted(names), ", "))
	}
	return ms[0], nil
}

func quoted(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = fmt.Sprintf("%q", n)
	}
	return out
}
