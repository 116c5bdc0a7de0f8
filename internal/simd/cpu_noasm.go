//go:build !amd64 || noasm

package simd

// useAVX2 is always false without the assembly kernels; the tests that
// compare kernels with their generic twins then compare the twin with itself.
var useAVX2 = false

func expAsm(dst, x []float64, s float64) int { return 0 }

func sqDistAsm(dst, xt []float64, ld int, xi []float64) int { return 0 }

func dot4(a []float64, lda int, x []float64, out *[4]float64) { dot4Generic(a, lda, x, out) }

func symRank4(a []float64, lda int, x, y []float64, xs, out *[4]float64) {
	symRank4Generic(a, lda, x, y, xs, out)
}

func streamAsm(dst, src []float64) int { return 0 }

func fence() {}

func transposeAsm(dst []float64, ldd int, src []float64, lds, h, w int) int { return 0 }

func sumKernel(x []float64) float64 { return sumGeneric(x) }

func centerRowKernel(row, mean []float64, c float64) float64 {
	return centerRowGeneric(row, mean, c)
}

func rank4(b []float64, ldb int, y []float64, xs *[4]float64) { rank4Generic(b, ldb, y, xs) }

func rank4x2(b []float64, ldb int, c []float64, ldc, n int, xs *[8]float64) {
	rank4x2Generic(b, ldb, c, ldc, n, xs)
}

func symRank8(a []float64, lda int, x, y []float64, xs *[8][4]float64, out *[8]float64) {
	symRank8Generic(a, lda, x, y, xs, out)
}

func symRank8Prefetch(a []float64, lda int, x, y []float64, xs *[8][4]float64, out *[8]float64, _ []float64, _ int) {
	symRank8Generic(a, lda, x, y, xs, out)
}

func symRank8x2(a []float64, lda int, x0, y0, x1, y1 []float64, xs *[2][8][4]float64, out *[2][8]float64, _ []float64, _ int) {
	symRank8Generic(a, lda, x0, y0, &xs[0], &out[0])
	symRank8Generic(a, lda, x1, y1, &xs[1], &out[1])
}

func dot3x4(a []float64, lda int, b []float64, ldb, n int, out *[12]float64) {
	dot3x4Generic(a, lda, b, ldb, n, out)
}

var useAVX512 = false

func scaledSqrtKernel(dst, x []float64, a float64) { scaledSqrtGeneric(dst, x, a) }
