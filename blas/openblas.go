//go:build openblas && cgo

package blas

import "gonum.org/v1/netlib/blas/netlib"

// openBLAS is gonum's cgo binding of the CBLAS interface, linked against
// OpenBLAS (CGO_LDFLAGS=-lopenblas).
type openBLAS struct{ netlib.Implementation }

func (openBLAS) Name() string { return "openblas" }

// OpenBLAS returns the OpenBLAS backend. See the package documentation
// for its threading.
func OpenBLAS() (Float64, error) { return openBLAS{}, nil }
