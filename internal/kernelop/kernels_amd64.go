//go:build !noasm

package kernelop

import (
	"golang.org/x/sys/cpu"

	"github.com/kpls-go/kpls/internal/simd"
)

// useAVX2 and useAVX512 select the assembly kernels of the triangle
// products; they follow the SIMD path of internal/simd, so KPLS_SIMD
// restricts them too. Tests clear them to run the other paths.
var (
	useAVX2   = cpu.X86.HasAVX2 && cpu.X86.HasFMA && simd.Path() != simd.Generic
	useAVX512 = useAVX2 && cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL && simd.Path() == simd.AVX512
)

// kernels returns the symRank4 kernels of the path in use for T.
func kernels[T elem]() *symKernels[T] {
	var z T
	switch any(z).(type) {
	case float32:
		return any(pick(symRank4F32AVX2[:], symRank4F32AVX512[:])).(*symKernels[T])
	default:
		return any(pick(symRank4F64AVX2[:], symRank4F64AVX512[:])).(*symKernels[T])
	}
}

func pick[T elem](avx2, avx512 []symRank4Kernel[T]) *symKernels[T] {
	switch {
	case useAVX512:
		return &symKernels[T]{byV: avx512, wide: true}
	case useAVX2:
		return &symKernels[T]{byV: avx2}
	}
	return &symKernels[T]{}
}
