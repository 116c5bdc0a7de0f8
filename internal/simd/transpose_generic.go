package simd

// transposeGeneric sets dst[j·ldd+i] = src[i·lds+j] for i < h, j < w: the
// reference for transpose8AVX2, which does 8×4 blocks of it.
func transposeGeneric(dst []float64, ldd int, src []float64, lds, h, w int) {
	for i := range h {
		row := src[i*lds : i*lds+w]
		for j, v := range row {
			dst[j*ldd+i] = v
		}
	}
}
