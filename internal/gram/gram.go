package gram

import (
	"context"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"

	"github.com/kpls-go/kpls/internal/simd"
)

// transpose returns the n×d row-major x feature-major (d×n): the layout
// simd.SqDist reads four points at a time from.
func transpose(x []float64, n, d int) []float64 {
	xt := make([]float64, n*d)
	for j := range n {
		for k, v := range x[j*d : j*d+d] {
			xt[k*n+j] = v
		}
	}
	return xt
}

// sqDistRow returns the function that fills a stretch of row i with the
// squared distances between z_i (rows of z) and the points whose transpose
// is xt, by direct differences, which keeps full relative accuracy for
// close points.
func sqDistRow(z []float64, d int, xt []float64, ldx int) rowFunc {
	if d == 0 {
		return func(dst []float64, _, _ int) { clear(dst) }
	}
	return func(dst []float64, i, c0 int) {
		simd.SqDist(dst, xt[c0:], ldx, z[i*d:i*d+d])
	}
}

// rbfFinish turns squared distances into RBF kernel values in place.
func rbfFinish(width float64) tileFunc {
	s := -1 / (2 * width)
	return func(t []float64) { simd.ScaledExp(t, t, s) }
}

// RBF fills dst (n×n, row-major, both triangles) with
// exp(-‖x_i − x_j‖² / (2·width)) for the rows of x (n×d, row-major).
// Each distinct entry is computed once, tile by tile on GOMAXPROCS
// goroutines; the context is checked between tiles. The diagonal is
// exactly 1 and the matrix exactly symmetric.
func RBF(ctx context.Context, dst, x []float64, n, d int, width float64) error {
	if len(dst) < n*n || len(x) < n*d {
		panic("gram: slice too short")
	}
	adviseHugePages(dst[:n*n])
	xt := transpose(x, n, d)
	return symmetric(ctx, dst, n, kernel{row: sqDistRow(x, d, xt, n), finish: rbfFinish(width), unitDiag: true})
}

// RBFCross fills dst (m×n, row-major) with exp(-‖z_i − x_j‖² / (2·width)).
func RBFCross(dst, z []float64, m int, x []float64, n, d int, width float64) {
	if len(dst) < m*n || len(z) < m*d || len(x) < n*d {
		panic("gram: slice too short")
	}
	adviseHugePages(dst[:m*n])
	xt := transpose(x, n, d)
	row, finish := sqDistRow(z, d, xt, n), rbfFinish(width)
	rows(m, m*n, func(r0, r1 int) {
		// Column blocks keep the stretch of xt in use in cache across rows.
		for c0 := 0; c0 < n; c0 += 8 * tileSize {
			c1 := min(n, c0+8*tileSize)
			for i := r0; i < r1; i++ {
				row(dst[i*n+c0:i*n+c1], i, c0)
				finish(dst[i*n+c0 : i*n+c1])
			}
		}
	})
}

// Linear fills dst (n×n) with x_iᵀx_j.
func Linear(ctx context.Context, dst, x []float64, n, d int) error {
	if len(dst) < n*n || len(x) < n*d {
		panic("gram: slice too short")
	}
	adviseHugePages(dst[:n*n])
	return symmetric(ctx, dst, n, kernel{row: func(out []float64, i, c0 int) {
		// out = X[c0:c0+len(out)] · x_i
		simd.Gemv(len(out), d, 1, x[c0*d:], max(d, 1), x[i*d:i*d+d], 0, out)
	}})
}

// LinearCross fills dst (m×n) with z_iᵀx_j.
func LinearCross(dst, z []float64, m int, x []float64, n, d int) {
	if len(dst) < m*n || len(z) < m*d || len(x) < n*d {
		panic("gram: slice too short")
	}
	if m == 0 || n == 0 {
		return
	}
	if d == 0 {
		clear(dst[:m*n])
		return
	}
	gonum.Implementation{}.Dgemm(gblas.NoTrans, gblas.Trans, m, n, d, 1, z, d, x, d, 0, dst, n)
}
