//go:build !linux

package hugepage

import "unsafe"

// Advise does nothing outside Linux.
func Advise(unsafe.Pointer, int) {}

// Float64s does nothing outside Linux.
func Float64s([]float64) {}

// Float32s does nothing outside Linux.
func Float32s([]float32) {}
