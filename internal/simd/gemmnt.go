package simd

import (
	"slices"
	"sync"
)

// gemmNTChunk is how much of the inner dimension one pass covers: four
// rows of B (32 KiB) stay in L1 and the chunk of A (m rows) in L2 while
// every row of A is multiplied with them.
const gemmNTChunk = 1024

// GemmNT sets C = alpha·A·Bᵀ + beta·C for row-major A (m×k), B (n×k) and
// C (m×n). Both operands are read along rows, so every entry of C is a dot
// product of two contiguous rows: three rows of A against four of B at a
// time keep twelve sums in registers, and each vector loaded feeds three
// or four multiply–adds (Gemm's rank-4 updates load and store C for every
// four). For a symmetric B, such as a kernel matrix, A·Bᵀ = A·B. Work is
// split over GOMAXPROCS goroutines by rows of B (columns of C).
func GemmNT(m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	GemmNTStop(nil, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// GemmNTStop is GemmNT that can be stopped part way: each goroutine calls
// stop before every stopRows columns of C (rows of B) of each pass over
// the inner dimension, and once a call reports true GemmNTStop returns
// false with C unspecified. stop must be safe for concurrent use and,
// once true, stay true; nil never stops. Otherwise C is GemmNT's, bit
// for bit.
func GemmNTStop(stop func() bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) bool {
	if !gemmNTScale(m, n, k, alpha, a, lda, b, ldb, beta, c, ldc) {
		return true
	}
	w := workers(m*n*k/8, n/4)
	if w == 1 {
		return gemmNTPart(stop, 0, n, m, k, alpha, a, lda, b, ldb, c, ldc)
	}
	finished := make([]bool, w)
	var wg sync.WaitGroup
	for p := range w {
		j0, j1 := p*n/w&^3, (p+1)*n/w&^3
		if p == w-1 {
			j1 = n
		}
		wg.Go(func() { finished[p] = gemmNTPart(stop, j0, j1, m, k, alpha, a, lda, b, ldb, c, ldc) })
	}
	wg.Wait()
	return !slices.Contains(finished, false)
}

// GemmNTSerial is GemmNT on the calling goroutine, for callers that
// already split their work over goroutines (the tiles of a kernel matrix).
func GemmNTSerial(m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	if gemmNTScale(m, n, k, alpha, a, lda, b, ldb, beta, c, ldc) {
		gemmNTPart(nil, 0, n, m, k, alpha, a, lda, b, ldb, c, ldc)
	}
}

// gemmNTScale checks the shapes (panicking on a bad one, as BLAS does),
// sets C = beta·C and reports whether alpha·A·Bᵀ remains to be added.
func gemmNTScale(m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) bool {
	if m < 0 || n < 0 || k < 0 || lda < max(k, 1) || ldb < max(k, 1) || ldc < max(n, 1) ||
		m > 0 && k > 0 && len(a) < (m-1)*lda+k || n > 0 && k > 0 && len(b) < (n-1)*ldb+k ||
		m > 0 && n > 0 && len(c) < (m-1)*ldc+n {
		panic("simd: GemmNT bad shape")
	}
	if m == 0 || n == 0 {
		return false
	}
	for i := range m {
		scaleY(beta, c[i*ldc:i*ldc+n])
	}
	return alpha != 0 && k != 0
}

// gemmNTPart adds alpha·A·Bᵀ to the columns [j0, j1) of C. It returns
// false if stop (see GemmNTStop) ended it early.
func gemmNTPart(stop func() bool, j0, j1, m, k int, alpha float64, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) bool {
	var o12 [12]float64
	var o4 [4]float64
	for l0 := 0; l0 < k; l0 += gemmNTChunk {
		kc := min(gemmNTChunk, k-l0)
		j := j0
		for ; j+4 <= j1; j += 4 {
			if stopped(stop, j-j0) {
				return false
			}
			bj := b[j*ldb+l0:]
			i := 0
			for ; i+3 <= m; i += 3 {
				dot3x4(a[i*lda+l0:], lda, bj, ldb, kc, &o12)
				for r := range 3 {
					cr := c[(i+r)*ldc+j : (i+r)*ldc+j+4]
					for q := range cr {
						cr[q] += alpha * o12[4*r+q]
					}
				}
			}
			for ; i < m; i++ {
				dot4(bj, ldb, a[i*lda+l0:i*lda+l0+kc], &o4)
				cr := c[i*ldc+j : i*ldc+j+4]
				for q := range cr {
					cr[q] += alpha * o4[q]
				}
			}
		}
		for ; j < j1; j++ {
			bj := b[j*ldb+l0 : j*ldb+l0+kc]
			for i := range m {
				ai := a[i*lda+l0 : i*lda+l0+kc]
				var s float64
				for l, v := range bj {
					s += v * ai[l]
				}
				c[i*ldc+j] += alpha * s
			}
		}
	}
	return true
}
