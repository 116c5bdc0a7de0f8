//go:build !amd64 || noasm

package kernelop

// Without the assembly kernels every path is the generic one.
var useAVX2, useAVX512 = false, false

func kernels[T elem]() *symKernels[T] { return &symKernels[T]{} }
