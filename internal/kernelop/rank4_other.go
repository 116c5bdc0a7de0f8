//go:build !amd64 || noasm

package kernelop

// useAVX2 is false without the assembly kernel.
var useAVX2 = false

func rank4(a0, a1, a2, a3 []float32, x, y []float64, x4 [4]float64) [4]float64 {
	return rank4Generic(a0, a1, a2, a3, x, y, x4)
}
