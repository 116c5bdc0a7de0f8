package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/kpls-go/kpls/kpls"
)

// saveModel writes the model to path through a temporary file, so that a
// failed write never leaves half a model behind.
func saveModel(m *kpls.Model, path string) error {
	return writeAtomically(path, func(w io.Writer) error { return kpls.Save(w, m) })
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

// loadPredictors reads a model file of any format version: its
// predictors, one per target, naming the file in errors.
func loadPredictors(path string) ([]kpls.Predictor, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--model: %w", err)
	}
	defer f.Close()
	ps, err := kpls.Load(f)
	if err != nil {
		return nil, fmt.Errorf("--model %s: %w", path, err)
	}
	return ps, nil
}
