package blas

import "gonum.org/v1/gonum/blas/gonum"

// Default returns the backend selected at build time: pure Go unless the
// openblas build tag is set.
func Default() Float64 { return defaultBackend }

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

var defaultBackend Float64 = gonum.Implementation{}
