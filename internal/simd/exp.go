package simd

// Exp sets dst[i] = exp(x[i]). See ScaledExp.
func Exp(dst, x []float64) { ScaledExp(dst, x, 1) }

// ScaledExp sets dst[i] = exp(s·x[i]), the product s·x[i] rounded first.
// dst and x must have the same length and may be the same slice.
//
// Accuracy, measured against math.Exp: at most 1 ulp for arguments in
// [−708, 709.78] and at most 1 ulp of the smallest subnormal in the
// subnormal range [−745.13, −708.4]. Arguments below −745.13 (and −Inf)
// give 0, above 709.78 (and +Inf) +Inf, and NaN gives NaN.
func ScaledExp(dst, x []float64, s float64) {
	if len(dst) != len(x) {
		panic("simd: length mismatch")
	}
	n := expAsm(dst, x, s)
	expGeneric(dst[n:], x[n:], s)
}
