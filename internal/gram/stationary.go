package gram

import (
	"context"
	"math"
	"sync"

	"github.com/kpls-go/kpls/internal/hugepage"
	"github.com/kpls-go/kpls/internal/simd"
)

// Profile turns squared distances into kernel values in place: the
// stationary kernels k(x, z) = f(‖x − z‖²) with f(0) = 1 are all one
// construction (squared distances, then f) that differs only in f.
type Profile func(t []float64)

// RBFProfile is exp(−s/(2·width)).
func RBFProfile(width float64) Profile { return Profile(rbfFinish(width)) }

// scratch holds the distances r = √s while a profile computes e^{−ar}
// over the same tile; tiles are at most tileSize² or a cross block.
var scratch = sync.Pool{New: func() any { return new([]float64) }}

// radialFactor is the polynomial in r that multiplies e^{−r}.
type radialFactor int

const (
	noFactor  radialFactor = iota // 1: Laplacian
	linear                        // 1 + r: Matérn 3/2
	quadratic                     // 1 + r + r²/3: Matérn 5/2
)

// radial applies f(r)·e^{−r} with r = a·√s: the Laplacian and Matérn
// kernels. The square root (clamped at zero: the product form of squared
// distances can be a few ulps below zero for coincident points) and the
// exponential are the vectorised ones; the polynomial factor is a loop
// per kind, with no call per entry.
func radial(a float64, factor radialFactor) Profile {
	return func(t []float64) {
		p := scratch.Get().(*[]float64)
		if cap(*p) < len(t) {
			*p = make([]float64, len(t))
		}
		r := (*p)[:len(t)]
		simd.ScaledSqrt(r, t, a)
		simd.ScaledExp(t, r, -1)
		switch factor {
		case linear:
			for i, ri := range r {
				t[i] *= 1 + ri
			}
		case quadratic:
			for i, ri := range r {
				t[i] *= 1 + ri + ri*ri/3
			}
		}
		scratch.Put(p)
	}
}

// LaplacianProfile is exp(−r/width) with r = √s, the Euclidean distance.
func LaplacianProfile(width float64) Profile { return radial(1/width, noFactor) }

// Matern32Profile is (1 + √3 r/width)·exp(−√3 r/width).
func Matern32Profile(width float64) Profile { return radial(math.Sqrt(3)/width, linear) }

// Matern52Profile is (1 + √5 r/width + 5r²/(3·width²))·exp(−√5 r/width).
func Matern52Profile(width float64) Profile { return radial(math.Sqrt(5)/width, quadratic) }

// Stationary fills dst (n×n, rows ld apart, both triangles) with
// f(‖x_i − x_j‖²) for the rows of x (n×d), as RBF does for its profile:
// each distinct entry once, tile by tile on GOMAXPROCS goroutines, the
// diagonal exactly f(0) = 1.
func Stationary(ctx context.Context, dst []float64, ld int, x []float64, n, d int, f Profile) error {
	return stationary(ctx, dst, ld, x, n, d, f, d >= productMinDim)
}

func stationary(ctx context.Context, dst []float64, ld int, x []float64, n, d int, f Profile, viaProduct bool) error {
	checkSquare(dst, ld, n)
	if len(x) < n*d {
		panic("gram: slice too short")
	}
	hugepage.Float64s(dst[:span(ld, n)])
	k := kernel{finish: tileFunc(f), unitDiag: true}
	if viaProduct {
		k.block = sqDistBlock(augment(x, n, d, ColumnMeans(x, n, d)))
	} else {
		k.row = sqDistRow(x, d, transpose(x, n, d), n)
	}
	return symmetric(ctx, dst, ld, n, k)
}

// StationaryCross fills dst (m×n) with f(‖z_i − x_j‖²).
func StationaryCross(dst, z []float64, m int, x []float64, n, d int, f Profile) {
	NewPoints(x, n, d).StationaryCross(dst, z, m, f)
}

// StationaryCross fills dst (m×N) with f(‖z_i − x_j‖²) for the rows z_i
// of z (m×D) and the points x_j.
func (p *Points) StationaryCross(dst, z []float64, m int, f Profile) {
	p.cross(dst, z, m, tileFunc(f))
}

// Func fills dst (n×n, rows ld apart) with f(x_i, x_j) for any kernel function, on the
// upper triangle (f is taken to be symmetric) and mirrored, tile by tile
// on GOMAXPROCS goroutines: f must be safe for concurrent calls.
func Func(ctx context.Context, dst []float64, ld int, x []float64, n, d int, f func(a, b []float64) float64) error {
	checkSquare(dst, ld, n)
	if len(x) < n*d {
		panic("gram: slice too short")
	}
	return symmetric(ctx, dst, ld, n, kernel{row: func(out []float64, i, c0 int) {
		xi := x[i*d : i*d+d]
		for j := range out {
			out[j] = f(xi, x[(c0+j)*d:(c0+j)*d+d])
		}
	}})
}

// FuncCross fills dst (m×n) with f(z_i, x_j).
func FuncCross(dst, z []float64, m int, x []float64, n, d int, f func(a, b []float64) float64) {
	if len(dst) < m*n || len(z) < m*d || len(x) < n*d {
		panic("gram: slice too short")
	}
	rows(m, m*n, func(r0, r1 int) {
		for i := r0; i < r1; i++ {
			zi := z[i*d : i*d+d]
			for j := range n {
				dst[i*n+j] = f(zi, x[j*d:j*d+d])
			}
		}
	})
}

// PolynomialFinish turns the inner products in t into
// (scale·t + offset)^degree in place.
func PolynomialFinish(t []float64, degree int, scale, offset float64) {
	for i, v := range t {
		t[i] = intPow(scale*v+offset, degree)
	}
}

// intPow is b^e by squaring: exact for small e, and faster than math.Pow.
func intPow(b float64, e int) float64 {
	r := 1.0
	for e > 0 {
		if e&1 == 1 {
			r *= b
		}
		b *= b
		e >>= 1
	}
	return r
}

// Polynomial fills dst (n×n, rows ld apart) with (scale·x_iᵀx_j + offset)^degree.
func Polynomial(ctx context.Context, dst []float64, ld int, x []float64, n, d, degree int, scale, offset float64) error {
	if err := Linear(ctx, dst, ld, x, n, d); err != nil {
		return err
	}
	rows(n, n*n, func(r0, r1 int) {
		for i := r0; i < r1; i++ {
			PolynomialFinish(dst[i*ld:i*ld+n], degree, scale, offset)
		}
	})
	return nil
}

// PolynomialCross fills dst (m×n) with (scale·z_iᵀx_j + offset)^degree.
func PolynomialCross(dst, z []float64, m int, x []float64, n, d, degree int, scale, offset float64) {
	LinearCross(dst, z, m, x, n, d)
	rows(m, m*n, func(r0, r1 int) { PolynomialFinish(dst[r0*n:r1*n], degree, scale, offset) })
}
