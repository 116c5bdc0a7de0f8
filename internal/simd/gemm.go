package simd

import "sync"

// Blocking of Gemm: four rows of a column block of B (4 × 512 × 8 B =
// 16 KiB) stay in L1 while they are added into a chunk of 32 rows of C,
// whose column block (128 KiB) stays in L2.
const (
	gemmBlock = 512
	gemmRows  = 32
)

// Gemm sets C = alpha·A·B + beta·C for row-major A (m×k), B (k×n) and C
// (m×n), none transposed. B is streamed four rows at a time and each block
// is added into 32 rows of C while it is in L1 (rank-4 updates, two rows
// of C per pass), so B is read from memory once per 32 rows of A: once
// for the short A of a Vᵀ·K product. Work is split over GOMAXPROCS
// goroutines by column blocks, or by rows of C when there are too few
// columns.
func Gemm(m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	checkGemm(m, n, k, a, lda, b, ldb, c, ldc)
	if m == 0 || n == 0 {
		return
	}
	part := func(i0, i1, j0, j1 int) {
		for i := i0; i < i1; i++ {
			scaleY(beta, c[i*ldc+j0:i*ldc+j1])
		}
		if alpha != 0 {
			gemmPart(i0, i1, j0, j1, k, alpha, a, lda, b, ldb, c, ldc)
		}
	}
	w := workers(m*n*k/8, max(m/4, n/gemmBlock+1))
	if w == 1 {
		part(0, m, 0, n)
		return
	}
	var wg sync.WaitGroup
	for p := range w {
		if n >= w*gemmBlock/2 {
			j0, j1 := p*n/w&^3, (p+1)*n/w&^3
			if p == w-1 {
				j1 = n
			}
			wg.Go(func() { part(0, m, j0, j1) })
		} else {
			i0, i1 := p*m/w, (p+1)*m/w
			wg.Go(func() { part(i0, i1, 0, n) })
		}
	}
	wg.Wait()
}

// checkGemm panics on inconsistent Gemm arguments, as BLAS does.
func checkGemm(m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) {
	if m < 0 || n < 0 || k < 0 || lda < max(k, 1) || ldb < max(n, 1) || ldc < max(n, 1) ||
		m > 0 && k > 0 && len(a) < (m-1)*lda+k || k > 0 && n > 0 && len(b) < (k-1)*ldb+n ||
		m > 0 && n > 0 && len(c) < (m-1)*ldc+n {
		panic("simd: Gemm bad shape")
	}
}

// GemmSerial is Gemm on the calling goroutine, for callers that already
// split their work over goroutines (a tile of a kernel operator).
func GemmSerial(m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	checkGemm(m, n, k, a, lda, b, ldb, c, ldc)
	if m == 0 || n == 0 {
		return
	}
	for i := range m {
		scaleY(beta, c[i*ldc:i*ldc+n])
	}
	if alpha != 0 {
		gemmPart(0, m, 0, n, k, alpha, a, lda, b, ldb, c, ldc)
	}
}

// gemmPart adds alpha·A·B to the block rows [i0, i1) × columns [j0, j1)
// of C.
func gemmPart(i0, i1, j0, j1, k int, alpha float64, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) {
	var xs [4]float64
	var xs2 [8]float64
	for c0 := j0; c0 < j1; c0 += gemmBlock {
		c1 := min(j1, c0+gemmBlock)
		for r0 := i0; r0 < i1; r0 += gemmRows {
			r1 := min(i1, r0+gemmRows)
			l := 0
			for ; l+4 <= k; l += 4 {
				i := r0
				for ; i+2 <= r1; i += 2 {
					for r := range 4 {
						xs2[r] = alpha * a[i*lda+l+r]
						xs2[4+r] = alpha * a[(i+1)*lda+l+r]
					}
					rank4x2(b[l*ldb+c0:], ldb, c[i*ldc+c0:], ldc, c1-c0, &xs2)
				}
				if i < r1 {
					for r := range xs {
						xs[r] = alpha * a[i*lda+l+r]
					}
					rank4(b[l*ldb+c0:], ldb, c[i*ldc+c0:i*ldc+c1], &xs)
				}
			}
			for ; l < k; l++ {
				row := b[l*ldb+c0 : l*ldb+c1]
				for i := r0; i < r1; i++ {
					s := alpha * a[i*lda+l]
					out := c[i*ldc+c0 : i*ldc+c1]
					for j, v := range row {
						out[j] += s * v
					}
				}
			}
		}
	}
}
