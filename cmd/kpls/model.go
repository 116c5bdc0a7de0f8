package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/kpls-go/kpls/kpls"
)

// saveModel writes the model to path through a temporary file, so that a
// failed write never leaves half a model behind.
func saveModel(m *kpls.Model, path string) (err error) {
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
	if err := m.Save(tmp); err != nil {
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

// loadModel reads a model file, naming it in errors.
func loadModel(path string) (*kpls.Model, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--model: %w", err)
	}
	defer f.Close()
	m, err := kpls.Load(f)
	if err != nil {
		return nil, fmt.Errorf("--model %s: %w", path, err)
	}
	return m, nil
}
