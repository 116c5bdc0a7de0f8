package gram

import "github.com/kpls-go/kpls/internal/simd"

// Center replaces the symmetric n×n matrix k (rows ld apart) by JKJ,
// J = I − 11ᵀ/n, and writes the column means of the uncentred matrix into
// colMean (length n).
// It returns the grand mean. These are what centring a new point needs.
func Center(k []float64, ld, n int, colMean []float64) (grand float64) {
	grand, _, _ = CenterStats(k, ld, n, colMean)
	return grand
}

// CenterStats is Center that also returns the trace and the squared
// Frobenius norm of the centred matrix, accumulated while it is written
// (no extra pass over k).
//
// k must be symmetric: the column means are computed as row means, which
// reads k in order and splits over goroutines by rows. Both passes (row
// sums, then the update) run on GOMAXPROCS goroutines for large n.
func CenterStats(k []float64, ld, n int, colMean []float64) (grand, trace, frob2 float64) {
	checkSquare(k, ld, n)
	if len(colMean) < n {
		panic("gram: slice too short")
	}
	if n == 0 {
		return 0, 0, 0
	}
	inv := 1 / float64(n)
	rows(n, n*n, func(r0, r1 int) {
		for i := r0; i < r1; i++ {
			colMean[i] = simd.Sum(k[i*ld:i*ld+n]) * inv
		}
	})
	grand = simd.Sum(colMean[:n]) * inv
	// Per-row statistics, summed in row order afterwards so the result
	// does not depend on the number of goroutines.
	rowSq := make([]float64, n)
	rows(n, n*n, func(r0, r1 int) {
		for i := r0; i < r1; i++ {
			rowSq[i] = simd.CenterRow(k[i*ld:i*ld+n], colMean, colMean[i]-grand)
		}
	})
	for i := range n {
		trace += k[i*ld+i]
	}
	return grand, trace, simd.Sum(rowSq)
}

// CenterCross centres the rows of a cross matrix c (m×n, rows k(z_i, ·))
// with the training statistics from Center:
// k_c(z)_j = k(z,x_j) − mean_l k(z,x_l) − colMean_j + grand.
func CenterCross(c []float64, m, n int, colMean []float64, grand float64) {
	if len(c) < m*n || len(colMean) < n {
		panic("gram: slice too short")
	}
	if n == 0 {
		return
	}
	rows(m, m*n, func(r0, r1 int) {
		for i := r0; i < r1; i++ {
			row := c[i*n : i*n+n]
			simd.CenterRow(row, colMean, simd.Sum(row)/float64(n)-grand)
		}
	})
}
