package gram

import (
	"context"
	"sync"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"

	"github.com/kpls-go/kpls/internal/hugepage"
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

// productMinDim is the number of features from which the RBF kernel's
// squared distances come from a matrix product (see augmented) instead of
// direct differences (simd.SqDist). The product needs fewer operations
// per feature, but pads d+2 up to a multiple of 8 and pays a fixed cost
// per block of dot products. Measured at n = 8192 on 2 cores (AVX-512),
// the two are level at d = 22; at d = 64 the product takes half the time.
const productMinDim = 24

// RBF fills dst (n×n, row-major with rows ld apart, both triangles) with
// exp(-‖x_i − x_j‖² / (2·width)) for the rows of x (n×d, row-major).
// Each distinct entry is computed once, tile by tile on GOMAXPROCS
// goroutines; the context is checked between tiles. The diagonal is
// exactly 1 and the matrix exactly symmetric.
func RBF(ctx context.Context, dst []float64, ld int, x []float64, n, d int, width float64) error {
	return rbf(ctx, dst, ld, x, n, d, width, d >= productMinDim)
}

// rbf is RBF with the way of computing squared distances chosen by the
// caller (the tests compare both with the naive loop).
func rbf(ctx context.Context, dst []float64, ld int, x []float64, n, d int, width float64, viaProduct bool) error {
	return stationary(ctx, dst, ld, x, n, d, Profile(rbfFinish(width)), viaProduct)
}

// ColumnMeans returns the means of the columns of x (n×d).
func ColumnMeans(x []float64, n, d int) []float64 {
	mean := make([]float64, d)
	for i := range n {
		for k, v := range x[i*d : i*d+d] {
			mean[k] += v
		}
	}
	for k := range mean {
		mean[k] /= float64(max(n, 1))
	}
	return mean
}

// augmented holds the rows of x, shifted by the training means, as two
// n×ld matrices whose row products are squared distances:
//
//	left_i  = (x_i,    ‖x_i‖², 1,      0…)
//	right_j = (−2x_j,  1,      ‖x_j‖², 0…)
//	left_i · right_j = ‖x_i‖² + ‖x_j‖² − 2x_iᵀx_j = ‖x_i − x_j‖²
//
// so one simd.GemmNT gives a block of squared distances with no pass to
// add the norms. ld is d+2 rounded up to the vector width of the dot
// products, with zeros in the padding. Distances do not change under the
// shift, which keeps the expansion from cancelling catastrophically for
// points far from the origin: its absolute error is a few ulps of the
// squared spread of the data, not of the squared offset.
type augmented struct {
	left, right []float64
	ld          int
}

func augment(x []float64, n, d int, mean []float64) augmented {
	ld := (d + 2 + 7) &^ 7
	a := augmented{left: make([]float64, n*ld), right: make([]float64, n*ld), ld: ld}
	for i := range n {
		l, r := a.left[i*ld:i*ld+ld], a.right[i*ld:i*ld+ld]
		var s float64
		for k, v := range x[i*d : i*d+d] {
			v -= mean[k]
			l[k], r[k] = v, -2*v
			s += v * v
		}
		l[d], l[d+1] = s, 1
		r[d], r[d+1] = 1, s
	}
	return a
}

// sqDistBlock returns the function that fills a block of squared
// distances through a matrix product of the augmented rows.
func sqDistBlock(a augmented) blockFunc {
	return func(dst []float64, r0, r1, c0, c1 int) {
		h, w := r1-r0, c1-c0
		simd.GemmNTSerial(h, w, a.ld, 1, a.left[r0*a.ld:], a.ld, a.right[c0*a.ld:], a.ld, 0, dst, w)
	}
}

// crossBlockRows × crossBlockCols is the block of a cross kernel matrix
// whose squared distances are formed and exponentiated together: 96 KiB,
// in L2 with the 512 augmented training rows it uses.
const crossBlockRows, crossBlockCols = 24, 512

// Points are fixed rows x (n×d, row-major) that kernel rows of new
// points are computed against, with the layouts the distance kernels
// read them in (feature-major, or augmented for the matrix product),
// made once on first use: a model's training rows, so that each
// prediction does not rebuild them (at n = 8192, d = 8 the transpose and
// its allocation took as long as the distances of one new point). Safe
// for concurrent use; x must not change.
type Points struct {
	X    []float64
	N, D int

	once   sync.Once
	xt     []float64 // feature-major (d×n)
	mean   []float64 // column means, with aug
	aug    augmented // for the matrix product (D ≥ productMinDim)
	viaMul bool
}

// NewPoints returns the points x (n×d).
func NewPoints(x []float64, n, d int) *Points {
	if len(x) < n*d {
		panic("gram: slice too short")
	}
	return &Points{X: x, N: n, D: d, viaMul: d >= productMinDim}
}

// layouts makes the layouts p's kernels read, once.
func (p *Points) layouts() {
	p.once.Do(func() {
		if p.viaMul {
			p.mean = ColumnMeans(p.X, p.N, p.D)
			p.aug = augment(p.X, p.N, p.D, p.mean)
		} else {
			p.xt = transpose(p.X, p.N, p.D)
		}
	})
}

// RBFCross fills dst (m×n, row-major) with exp(-‖z_i − x_j‖² / (2·width)).
func RBFCross(dst, z []float64, m int, x []float64, n, d int, width float64) {
	NewPoints(x, n, d).RBFCross(dst, z, m, width)
}

// RBFCross fills dst (m×N) with exp(-‖z_i − x_j‖² / (2·width)) for the
// rows z_i of z (m×D) and the points x_j.
func (p *Points) RBFCross(dst, z []float64, m int, width float64) {
	p.cross(dst, z, m, rbfFinish(width))
}

func rbfCross(dst, z []float64, m int, x []float64, n, d int, width float64, viaProduct bool) {
	p := NewPoints(x, n, d)
	p.viaMul = viaProduct
	p.RBFCross(dst, z, m, width)
}

// cross fills dst (m×N) with finish(‖z_i − x_j‖²), the squared distances
// by direct differences or, for many features, through a matrix product.
func (p *Points) cross(dst, z []float64, m int, finish tileFunc) {
	n, d := p.N, p.D
	if len(dst) < m*n || len(z) < m*d {
		panic("gram: slice too short")
	}
	hugepage.Float64s(dst[:m*n])
	p.layouts()
	if p.viaMul && m > 0 && n > 0 {
		za, xa := augment(z, m, d, p.mean), p.aug
		ld := xa.ld
		// Split by columns, so that one new point still uses every core,
		// and finish each block while it is in cache.
		rows(n, m*n, func(c0, c1 int) {
			for b0 := c0; b0 < c1; b0 += crossBlockCols {
				b1 := min(c1, b0+crossBlockCols)
				for i0 := 0; i0 < m; i0 += crossBlockRows {
					i1 := min(m, i0+crossBlockRows)
					simd.GemmNTSerial(i1-i0, b1-b0, ld, 1, za.left[i0*ld:], ld, xa.right[b0*ld:], ld, 0, dst[i0*n+b0:], n)
					for i := i0; i < i1; i++ {
						finish(dst[i*n+b0 : i*n+b1])
					}
				}
			}
		})
		return
	}
	row := sqDistRow(z, d, p.xt, n)
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

// Linear fills dst (n×n, rows ld apart) with x_iᵀx_j.
func Linear(ctx context.Context, dst []float64, ld int, x []float64, n, d int) error {
	checkSquare(dst, ld, n)
	if len(x) < n*d {
		panic("gram: slice too short")
	}
	hugepage.Float64s(dst[:span(ld, n)])
	return symmetric(ctx, dst, ld, n, kernel{row: func(out []float64, i, c0 int) {
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
