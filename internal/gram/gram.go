package gram

import (
	"context"
	"math"
)

// RBF fills dst (n×n, row-major, both triangles) with
// exp(-‖x_i − x_j‖² / (2·width)) for the rows of x (n×d, row-major).
func RBF(ctx context.Context, dst, x []float64, n, d int, width float64) error {
	if len(dst) < n*n || len(x) < n*d {
		panic("gram: slice too short")
	}
	s := -1 / (2 * width)
	for i := 0; i < n; i++ {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		xi := x[i*d : i*d+d]
		dst[i*n+i] = 1
		for j := i + 1; j < n; j++ {
			xj := x[j*d : j*d+d]
			var s2 float64
			for k, v := range xi {
				t := v - xj[k]
				s2 += t * t
			}
			e := math.Exp(s * s2)
			dst[i*n+j] = e
			dst[j*n+i] = e
		}
	}
	return nil
}

// RBFCross fills dst (m×n, row-major) with exp(-‖z_i − x_j‖² / (2·width)).
func RBFCross(dst, z []float64, m int, x []float64, n, d int, width float64) {
	if len(dst) < m*n || len(z) < m*d || len(x) < n*d {
		panic("gram: slice too short")
	}
	s := -1 / (2 * width)
	for i := 0; i < m; i++ {
		zi := z[i*d : i*d+d]
		row := dst[i*n : i*n+n]
		for j := range row {
			xj := x[j*d : j*d+d]
			var s2 float64
			for k, v := range zi {
				t := v - xj[k]
				s2 += t * t
			}
			row[j] = math.Exp(s * s2)
		}
	}
}

// Linear fills dst (n×n) with x_iᵀx_j.
func Linear(ctx context.Context, dst, x []float64, n, d int) error {
	if len(dst) < n*n || len(x) < n*d {
		panic("gram: slice too short")
	}
	for i := 0; i < n; i++ {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		xi := x[i*d : i*d+d]
		for j := i; j < n; j++ {
			xj := x[j*d : j*d+d]
			var s float64
			for k, v := range xi {
				s += v * xj[k]
			}
			dst[i*n+j] = s
			dst[j*n+i] = s
		}
	}
	return nil
}

// LinearCross fills dst (m×n) with z_iᵀx_j.
func LinearCross(dst, z []float64, m int, x []float64, n, d int) {
	if len(dst) < m*n || len(z) < m*d || len(x) < n*d {
		panic("gram: slice too short")
	}
	for i := 0; i < m; i++ {
		zi := z[i*d : i*d+d]
		for j := 0; j < n; j++ {
			xj := x[j*d : j*d+d]
			var s float64
			for k, v := range zi {
				s += v * xj[k]
			}
			dst[i*n+j] = s
		}
	}
}

// Center replaces the symmetric n×n matrix k by JKJ, J = I − 11ᵀ/n, and
// writes the column means of the uncentred matrix into colMean (length n).
// It returns the grand mean. These are what centring a new point needs.
func Center(k []float64, n int, colMean []float64) (grand float64) {
	if len(k) < n*n || len(colMean) < n {
		panic("gram: slice too short")
	}
	for j := range colMean[:n] {
		colMean[j] = 0
	}
	for i := 0; i < n; i++ {
		row := k[i*n : i*n+n]
		for j, v := range row {
			colMean[j] += v
		}
	}
	inv := 1 / float64(n)
	for j := range colMean[:n] {
		colMean[j] *= inv
		grand += colMean[j]
	}
	grand *= inv
	for i := 0; i < n; i++ {
		row := k[i*n : i*n+n]
		ci := colMean[i] - grand
		for j := range row {
			row[j] -= ci + colMean[j]
		}
	}
	return grand
}

// CenterCross centres the rows of a cross matrix c (m×n, rows k(z_i, ·))
// with the training statistics from Center:
// k_c(z)_j = k(z,x_j) − mean_l k(z,x_l) − colMean_j + grand.
func CenterCross(c []float64, m, n int, colMean []float64, grand float64) {
	if len(c) < m*n || len(colMean) < n {
		panic("gram: slice too short")
	}
	for i := 0; i < m; i++ {
		row := c[i*n : i*n+n]
		var s float64
		for _, v := range row {
			s += v
		}
		off := s/float64(n) - grand
		for j := range row {
			row[j] -= off + colMean[j]
		}
	}
}
