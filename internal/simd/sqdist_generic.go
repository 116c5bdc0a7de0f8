package simd

import "math"

// sqDistGeneric sets dst[j] = Σ_k (xt[k·ld+j] − xi[k])², k in order, each
// term added with one fused multiply–add. It is the reference for
// sqDistAVX2, which agrees with it bit for bit.
func sqDistGeneric(dst, xt []float64, ld int, xi []float64) {
	for j := range dst {
		var s float64
		for k, v := range xi {
			t := xt[k*ld+j] - v
			s = math.FMA(t, t, s)
		}
		dst[j] = s
	}
}
