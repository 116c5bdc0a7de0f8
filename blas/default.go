package blas

import (
	"errors"
	"fmt"

	"gonum.org/v1/gonum/blas/gonum"
)

// ErrUnavailable is returned for a backend that this binary was built
// without (OpenBLAS needs the openblas build tag and cgo).
var ErrUnavailable = errors.New("blas: backend not available in this build")

// Default returns the pure-Go backend "go", also in a build with the
// openblas tag: it was as fast as OpenBLAS or faster for every operation
// kpls measures (the figures and their commands: README, "Backends and
// performance"), so OpenBLAS is chosen by name (ByName("openblas"),
// kpls --backend openblas), never by the build alone.
func Default() Float64 { return PureGo() }

// Gonum returns gonum's pure-Go implementation, unchanged.
func Gonum() Float64 { return gonum.Implementation{} }

// PureGo returns the "go" backend: gonum's implementation with Dgemv
// (no transpose, unit strides) and Dsymv (unit strides) replaced by the
// SIMD kernels of internal/simd.
func PureGo() Float64 { return goBackend{} }

// Available lists the names accepted by ByName in this build.
func Available() []string {
	names := []string{"go", "gonum"}
	if _, err := OpenBLAS(); err == nil {
		names = append(names, "openblas")
	}
	return names
}

// ByName returns the backend called name ("go", "gonum" or "openblas").
// An empty name selects Default.
func ByName(name string) (Float64, error) {
	switch name {
	case "":
		return Default(), nil
	case "go":
		return PureGo(), nil
	case "gonum":
		return Gonum(), nil
	case "openblas":
		return OpenBLAS()
	}
	return nil, fmt.Errorf("blas: unknown backend %q (have %v)", name, Available())
}

// Name reports the name of a backend for logs and `kpls version`.
func Name(b Float64) string {
	if n, ok := b.(interface{ Name() string }); ok {
		return n.Name()
	}
	switch b.(type) {
	case gonum.Implementation:
		return "gonum"
	}
	return "custom"
}
