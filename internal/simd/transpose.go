package simd

// Transpose sets dst[j·ldd+i] = src[i·lds+j] for i < h, j < w: dst (w×h,
// leading dimension ldd ≥ h) becomes the transpose of src (h×w, leading
// dimension lds ≥ w). Mirroring a computed tile of a symmetric matrix into
// the other triangle is a transpose.
func Transpose(dst []float64, ldd int, src []float64, lds, h, w int) {
	if h == 0 || w == 0 {
		return
	}
	if ldd < h || lds < w || len(dst) < (w-1)*ldd+h || len(src) < (h-1)*lds+w {
		panic("simd: Transpose bad shape")
	}
	i := transposeAsm(dst, ldd, src, lds, h, w)
	if w4 := w &^ 3; i > 0 && w4 < w { // columns the blocks left over
		transposeGeneric(dst[w4*ldd:], ldd, src[w4:], lds, i, w-w4)
	}
	if i < h {
		transposeGeneric(dst[i:], ldd, src[i*lds:], lds, h-i, w)
	}
}
