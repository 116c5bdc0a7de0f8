package main

import (
	"fmt"
	"io"
	"os"

	"github.com/kpls-go/kpls/cmd/cli"
	"github.com/kpls-go/kpls/internal/atomicfile"
	"github.com/kpls-go/kpls/kpls"
)

// saveModel writes the model to path through a temporary file, so that a
// failed write never leaves half a model behind.
func saveModel(m *kpls.Model, path string) error {
	return writeAtomically(path, func(w io.Writer) error { return kpls.Save(w, m) })
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
