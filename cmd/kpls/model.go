package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/kpls-go/kpls/internal/atomicfile"
	"github.com/kpls-go/kpls/internal/cli"
	"github.com/kpls-go/kpls/kpls"
)

// saveModel writes the model to path through a temporary file, so that a
// failed write never leaves half a model behind.
func saveModel(m *kpls.Model, path string) error {
	return writeAtomically(path, m.Save)
}

// modelPerm is the permission of a new model file, less the umask: the
// file holds the training inputs and targets, so it is the owner's alone
// unless an old file of a wider mode is replaced (atomicfile keeps that).
const modelPerm = 0o600

// writeAtomically writes a model file through a temporary file in its
// directory renamed into place (internal/atomicfile), so that a failed or
// interrupted write never leaves half a file behind. Errors name --model.
func writeAtomically(path string, write func(io.Writer) error) error {
	if !primary {
		return write(io.Discard) // the same work as rank 0, no file
	}
	if err := atomicfile.Write(path, modelPerm, write); err != nil {
		return fmt.Errorf("--model: %w", err)
	}
	return nil
}

// checkOutput refuses, before any work, an output file (named by its flag)
// that is not a regular file or whose directory is missing, or that is one
// of the inputs, given as flag and path pairs. Only rank 0 of an MPI run
// writes files, so only it looks (its error aborts the others).
func checkOutput(flag, path string, inputs ...string) error {
	if path == "" || !primary {
		return nil
	}
	for i := 0; i+1 < len(inputs); i += 2 {
		if atomicfile.SameFile(path, inputs[i+1]) {
			return cli.Usagef("%s %s is also the input %s %s: give another file", flag, path, inputs[i], inputs[i+1])
		}
	}
	if err := atomicfile.Check(path); err != nil {
		return fmt.Errorf("%s: %w", flag, err)
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
