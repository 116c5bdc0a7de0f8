//go:build !amd64 || noasm

package kernelop

// useAVX2 and useAVX512 are false without the assembly kernels.
var useAVX2, useAVX512 = false, false

func rank4(a0, a1, a2, a3 []float32, x, y []float64, x4 [4]float64) [4]float64 {
	return rank4Generic(a0, a1, a2, a3, x, y, x4)
}

func rank4x2(a0, a1, a2, a3 []float32, x0, y0, x1, y1 []float64, xs [2][4]float64, _ *[4]*float32, _ int) [2][4]float64 {
	return [2][4]float64{rank4Generic(a0, a1, a2, a3, x0, y0, xs[0]), rank4Generic(a0, a1, a2, a3, x1, y1, xs[1])}
}
