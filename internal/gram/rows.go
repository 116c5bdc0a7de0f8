package gram

import "github.com/kpls-go/kpls/internal/simd"

// StationaryRows evaluates rows and rectangular blocks of a stationary
// kernel matrix f(‖x_i − x_j‖²) (RBF, Laplacian, Matérn) of fixed training
// rows, for operators that recompute K instead of storing it
// (internal/kernelop) and for building stored ones tile by tile. What the
// cross-kernel routines recompute on every call (the feature-major copy of
// x, or the augmented rows) is prepared once here, so a call costs only
// distances and the profile. Calls are serial (the caller splits work over
// goroutines) and safe for concurrent use, since they only read the
// prepared inputs.
type StationaryRows struct {
	x, xt  []float64 // x row-major (n×d); xt feature-major (d×n), for SqDist
	aug    augmented // for d ≥ productMinDim, instead of xt
	n, d   int
	finish Profile
}

// NewStationaryRows prepares the kernel f(‖x_i − x_j‖²) over the rows of x
// (n×d, row-major; kept, not copied). Distances are computed as Stationary
// computes them (direct differences below 24 features, a product of rows
// augmented about the column means from 24 on), so blocks agree with its
// matrix.
func NewStationaryRows(x []float64, n, d int, f Profile) *StationaryRows {
	if len(x) < n*d {
		panic("gram: slice too short")
	}
	r := &StationaryRows{x: x, n: n, d: d, finish: f}
	if d >= productMinDim {
		r.aug = augment(x, n, d, ColumnMeans(x, n, d))
	} else {
		r.xt = transpose(x, n, d)
	}
	return r
}

// NewRBFRows prepares the RBF kernel exp(−‖x_i − x_j‖²/(2·width)); see
// NewStationaryRows.
func NewRBFRows(x []float64, n, d int, width float64) *StationaryRows {
	return NewStationaryRows(x, n, d, RBFProfile(width))
}

// N returns the number of training rows.
func (r *StationaryRows) N() int { return r.n }

// Rows fills dst ((r1−r0)×n, row-major) with K[r0:r1, :].
func (r *StationaryRows) Rows(dst []float64, r0, r1 int) { r.Block(dst, r0, r1, 0, r.n) }

// Block fills dst ((r1−r0)×(c1−c0), row-major) with K[r0:r1, c0:c1]. The
// diagonal entries in the block are exactly f(0) = 1.
func (r *StationaryRows) Block(dst []float64, r0, r1, c0, c1 int) {
	h, w := r1-r0, c1-c0
	if r0 < 0 || c0 < 0 || h < 0 || w < 0 || r1 > r.n || c1 > r.n || len(dst) < h*w {
		panic("gram: bad block")
	}
	t := dst[:h*w]
	switch {
	case h == 0 || w == 0:
		return
	case r.d == 0:
		clear(t)
	case r.d >= productMinDim:
		a := r.aug
		simd.GemmNTSerial(h, w, a.ld, 1, a.left[r0*a.ld:], a.ld, a.right[c0*a.ld:], a.ld, 0, t, w)
	default:
		for i := range h {
			simd.SqDist(t[i*w:i*w+w], r.xt[c0:], r.n, r.x[(r0+i)*r.d:(r0+i+1)*r.d])
		}
	}
	// One call over the whole block keeps the vector loops long.
	r.finish(t)
	for i := max(r0, c0); i < min(r1, c1); i++ {
		t[(i-r0)*w+i-c0] = 1
	}
}

// LinearRows evaluates rows and blocks of the linear kernel matrix x_iᵀx_j
// of fixed training rows; see StationaryRows.
type LinearRows struct {
	x    []float64
	n, d int
}

// NewLinearRows prepares the linear kernel over the rows of x (n×d,
// row-major; kept, not copied). Rows of x are already the layout the dot
// products of simd.GemmNTSerial read, so nothing is precomputed.
func NewLinearRows(x []float64, n, d int) *LinearRows {
	if len(x) < n*d {
		panic("gram: slice too short")
	}
	return &LinearRows{x: x, n: n, d: d}
}

// N returns the number of training rows.
func (l *LinearRows) N() int { return l.n }

// Rows fills dst ((r1−r0)×n, row-major) with K[r0:r1, :].
func (l *LinearRows) Rows(dst []float64, r0, r1 int) { l.Block(dst, r0, r1, 0, l.n) }

// Block fills dst ((r1−r0)×(c1−c0), row-major) with K[r0:r1, c0:c1].
func (l *LinearRows) Block(dst []float64, r0, r1, c0, c1 int) {
	h, w := r1-r0, c1-c0
	if r0 < 0 || c0 < 0 || h < 0 || w < 0 || r1 > l.n || c1 > l.n || len(dst) < h*w {
		panic("gram: bad block")
	}
	if h == 0 || w == 0 {
		return
	}
	if l.d == 0 {
		clear(dst[:h*w])
		return
	}
	simd.GemmNTSerial(h, w, l.d, 1, l.x[r0*l.d:], l.d, l.x[c0*l.d:], l.d, 0, dst, w)
}
