package simd

// ScaledSqrt sets dst[i] = a·√max(x[i], 0): the distances of the radial
// kernels (Laplacian, Matérn) from squared distances that rounding can
// leave a few ulps below zero. dst and x must have the same length and may
// be the same slice. Both the square root and the product are correctly
// rounded, so the paths agree bit for bit and give the same
// value as a·math.Sqrt(math.Max(x[i], 0)); only −0 keeps its sign (math.Max
// makes it +0), which e^{−r} cannot tell apart. NaN stays NaN.
func ScaledSqrt(dst, x []float64, a float64) {
	if len(dst) != len(x) {
		panic("simd: length mismatch")
	}
	m := len(x) &^ 15
	if m > 0 {
		scaledSqrtKernel(dst[:m], x[:m], a)
	}
	scaledSqrtGeneric(dst[m:], x[m:], a)
}
