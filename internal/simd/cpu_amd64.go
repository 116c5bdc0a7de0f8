//go:build !noasm

package simd

import "golang.org/x/sys/cpu"

// useAVX2 selects the AVX2+FMA kernels. It is set once from the CPU's
// features; tests clear it to run the generic twins.
var useAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

//go:noescape
func expAVX2(dst, src *float64, n int, scale float64)

// expAsm runs the assembly kernel on the longest prefix it handles and
// returns that prefix's length.
func expAsm(dst, x []float64, s float64) int {
	n := len(x) &^ 3
	if !useAVX2 || n == 0 {
		return 0
	}
	expAVX2(&dst[0], &x[0], n, s)
	return n
}

//go:noescape
func sqDistAVX2(dst, xt *float64, ld int, xi *float64, d, n int)

func sqDistAsm(dst, xt []float64, ld int, xi []float64) int {
	n := len(dst) &^ 3
	if !useAVX2 || n == 0 {
		return 0
	}
	sqDistAVX2(&dst[0], &xt[0], ld, &xi[0], len(xi), n)
	return n
}
