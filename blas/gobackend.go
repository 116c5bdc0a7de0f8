package blas

import "gonum.org/v1/gonum/blas/gonum"

// goBackend is gonum's implementation with the two level-2 routines that
// dominate a KPLS fit replaced by the SIMD kernels of internal/simd.
type goBackend struct{ gonum.Implementation }

func (goBackend) Name() string { return "go" }
