//go:build !openblas || !cgo

package blas

// OpenBLAS returns ErrUnavailable: this binary was built without the
// openblas build tag (or without cgo).
func OpenBLAS() (Float64, error) { return nil, ErrUnavailable }
