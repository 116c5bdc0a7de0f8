package simd

import "sync"

// gemmBlock is the width of the column blocks of GemmShort: four rows of B
// (16 KiB) stay in L1 while they are added into every row of C.
const gemmBlock = 512

// GemmShort sets C = alpha·A·B + beta·C for row-major A (m×k), B (k×n) and
// C (m×n) when A is short (m small, say ≤ 32) and B large: the shape of
// K·V products written as (Vᵀ)·K. It reads B once, four rows at a time,
// adding each 4-row block into every row of C, where the row-by-row
// method reads all of B once per row of A. Columns are split over
// GOMAXPROCS goroutines for large B.
func GemmShort(m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	if m < 0 || n < 0 || k < 0 || lda < max(k, 1) || ldb < max(n, 1) || ldc < max(n, 1) ||
		m > 0 && k > 0 && len(a) < (m-1)*lda+k || k > 0 && n > 0 && len(b) < (k-1)*ldb+n ||
		m > 0 && n > 0 && len(c) < (m-1)*ldc+n {
		panic("simd: GemmShort bad shape")
	}
	if m == 0 || n == 0 {
		return
	}
	cols := func(j0, j1 int) {
		for i := range m {
			scaleY(beta, c[i*ldc+j0:i*ldc+j1])
		}
		if alpha == 0 {
			return
		}
		var xs [4]float64
		var xs2 [8]float64
		for c0 := j0; c0 < j1; c0 += gemmBlock {
			c1 := min(j1, c0+gemmBlock)
			l := 0
			for ; l+4 <= k; l += 4 {
				i := 0
				for ; i+2 <= m; i += 2 {
					for r := range 4 {
						xs2[r] = alpha * a[i*lda+l+r]
						xs2[4+r] = alpha * a[(i+1)*lda+l+r]
					}
					rank4x2(b[l*ldb+c0:], ldb, c[i*ldc+c0:], ldc, c1-c0, &xs2)
				}
				if i < m {
					for r := range xs {
						xs[r] = alpha * a[i*lda+l+r]
					}
					rank4(b[l*ldb+c0:], ldb, c[i*ldc+c0:i*ldc+c1], &xs)
				}
			}
			for ; l < k; l++ {
				row := b[l*ldb+c0 : l*ldb+c1]
				for i := range m {
					s := alpha * a[i*lda+l]
					out := c[i*ldc+c0 : i*ldc+c1]
					for j, v := range row {
						out[j] += s * v
					}
				}
			}
		}
	}
	w := workers(n*k, n/gemmBlock+1)
	if w == 1 {
		cols(0, n)
		return
	}
	var wg sync.WaitGroup
	for p := range w {
		j0, j1 := p*n/w&^3, (p+1)*n/w&^3
		if p == w-1 {
			j1 = n
		}
		wg.Go(func() { cols(j0, j1) })
	}
	wg.Wait()
}
