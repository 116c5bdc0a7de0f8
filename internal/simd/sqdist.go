package simd

// SqDist sets dst[j] = ‖x_j − xi‖² = Σ_k (xt[k·ld+j] − xi[k])² for
// j < len(dst), where xt holds the points x_j feature-major: feature k of
// point j at xt[k·ld+j] (the transpose of the usual row-major layout,
// ld ≥ len(dst)). The layout lets the kernel subtract and square four
// points per instruction; differencing first keeps full relative accuracy
// for close points, which the expansion ‖x‖²+‖y‖²−2xᵀy loses.
func SqDist(dst, xt []float64, ld int, xi []float64) {
	n, d := len(dst), len(xi)
	if n == 0 {
		return
	}
	if ld < n || d > 0 && len(xt) < (d-1)*ld+n {
		panic("simd: SqDist slice too short")
	}
	if d == 0 {
		clear(dst)
		return
	}
	m := sqDistAsm(dst, xt, ld, xi)
	if m < n {
		sqDistGeneric(dst[m:], xt[m:], ld, xi)
	}
}
