package simd

import (
	"math"
	"runtime"
	"slices"
	"sync"
)

// parMinElems is the number of matrix elements read below which Gemv and
// Symv run on the calling goroutine: smaller products finish in tens of
// microseconds, where starting goroutines costs more than it saves.
const parMinElems = 1 << 16

// workers returns how many goroutines to split work of the given number of
// matrix elements over.
func workers(elems, rows int) int {
	w := runtime.GOMAXPROCS(0)
	if elems < parMinElems || w < 2 {
		return 1
	}
	return min(w, max(rows/4, 1))
}

// scaleY sets y = beta·y, with y = 0 when beta is 0 whatever y held (as in
// BLAS, where β = 0 means y is output only).
func scaleY(beta float64, y []float64) {
	switch beta {
	case 0:
		clear(y)
	case 1:
	default:
		for i := range y {
			y[i] *= beta
		}
	}
}

// Gemv sets y = alpha·A·x + beta·y for the m×n row-major matrix A with
// leading dimension lda ≥ n, x of length n and y of length m. Large
// products are split over GOMAXPROCS goroutines by blocks of rows.
func Gemv(m, n int, alpha float64, a []float64, lda int, x []float64, beta float64, y []float64) {
	if m < 0 || n < 0 || lda < max(n, 1) || len(x) < n || len(y) < m || m > 0 && n > 0 && len(a) < (m-1)*lda+n {
		panic("simd: Gemv bad shape")
	}
	x, y = x[:n], y[:m]
	if alpha == 0 || n == 0 {
		scaleY(beta, y)
		return
	}
	w := workers(m*n, m)
	if w == 1 {
		gemvRows(0, m, alpha, a, lda, x, beta, y)
		return
	}
	var wg sync.WaitGroup
	for p := range w {
		r0, r1 := p*m/w&^3, (p+1)*m/w&^3
		if p == w-1 {
			r1 = m
		}
		wg.Go(func() { gemvRows(r0, r1, alpha, a, lda, x, beta, y) })
	}
	wg.Wait()
}

// gemvRows does rows [r0, r1) of Gemv.
func gemvRows(r0, r1 int, alpha float64, a []float64, lda int, x []float64, beta float64, y []float64) {
	var d [4]float64
	i := r0
	for ; i+4 <= r1; i += 4 {
		dot4(a[i*lda:], lda, x, &d)
		for r, v := range d {
			y[i+r] = axpby(alpha, v, beta, y[i+r])
		}
	}
	for ; i < r1; i++ {
		row := a[i*lda : i*lda+len(x)]
		var s float64
		for k, v := range x {
			s += row[k] * v
		}
		y[i] = axpby(alpha, s, beta, y[i])
	}
}

// axpby returns alpha·v + beta·y, ignoring y when beta is 0.
func axpby(alpha, v, beta, y float64) float64 {
	if beta == 0 {
		return alpha * v
	}
	return alpha*v + beta*y
}

// accPool recycles the per-goroutine accumulators of a parallel Symv.
var accPool sync.Pool

// Symv sets y = alpha·A·x + beta·y for the symmetric n×n row-major matrix A
// with leading dimension lda ≥ n, reading only its upper triangle (upper)
// or its lower triangle: n²/2 elements instead of n². Each 8-row block of
// the triangle is read once and used twice, as rows (dot products with x)
// and, by symmetry, as columns (updates of y). Large products split the
// rows over GOMAXPROCS goroutines in bands of equal area, each
// accumulating into its own vector; the vectors are summed at the end.
func Symv(upper bool, n int, alpha float64, a []float64, lda int, x []float64, beta float64, y []float64) {
	SymvStop(nil, upper, n, alpha, a, lda, x, beta, y)
}

// SymvStop is Symv that can be stopped part way: each goroutine calls
// stop before every block of stopRows rows of the triangle, and once a
// call reports true the goroutines quit at their next block and SymvStop
// returns false, leaving y unspecified. stop must be safe for concurrent
// use and, once true, stay true; nil never stops. Otherwise y is Symv's,
// bit for bit: the checks change neither the split nor the order of the
// sums.
func SymvStop(stop func() bool, upper bool, n int, alpha float64, a []float64, lda int, x []float64, beta float64, y []float64) bool {
	if n < 0 || lda < max(n, 1) || len(x) < n || len(y) < n || n > 0 && len(a) < (n-1)*lda+n {
		panic("simd: Symv bad shape")
	}
	x, y = x[:n], y[:n]
	scaleY(beta, y)
	if alpha == 0 || n == 0 {
		return true
	}
	w := workers(n*n/2, n)
	if w == 1 {
		return symvRows(stop, upper, 0, n, alpha, a, lda, x, y)
	}
	// Row r of the upper triangle holds n−r elements, of the lower r+1:
	// band p ends where the area above it reaches (p+1)/w of the total.
	bounds := make([]int, w+1)
	for p := 1; p < w; p++ {
		f := float64(p) / float64(w)
		var r float64
		if upper {
			r = float64(n) * (1 - math.Sqrt(1-f))
		} else {
			r = float64(n) * math.Sqrt(f)
		}
		bounds[p] = int(r) &^ 7
	}
	bounds[w] = n
	accs := make([][]float64, w)
	accs[0] = y
	for p := 1; p < w; p++ {
		acc, _ := accPool.Get().(*[]float64)
		if acc == nil || cap(*acc) < n {
			acc = new(make([]float64, n))
		}
		accs[p] = (*acc)[:n]
		clear(accs[p])
	}
	finished := make([]bool, w)
	var wg sync.WaitGroup
	for p := range w {
		wg.Go(func() { finished[p] = symvRows(stop, upper, bounds[p], bounds[p+1], alpha, a, lda, x, accs[p]) })
	}
	wg.Wait()
	all := !slices.Contains(finished, false)
	for _, acc := range accs[1:] {
		if all {
			for i, v := range acc {
				y[i] += v
			}
		}
		accPool.Put(&acc)
	}
	return all
}

// stopRows is the rows of a triangle (or, in GemmNT, the columns of C)
// between two calls of a stop function: at n = 8192, 64 rows of the
// upper triangle are at most half a million entries, a millisecond or
// so of memory traffic, and the check (an indirect call and an atomic
// load) is lost in it.
const stopRows = 64

// stopped reports whether the block of rows starting at offset off (from
// the first row of a goroutine's share, a multiple of 8) is not to be
// done: off starts a block of stopRows and stop says so.
func stopped(stop func() bool, off int) bool {
	return stop != nil && off%stopRows == 0 && stop()
}

// symvRows adds alpha times the contribution of the triangle's rows
// [r0, r1) to A·x into acc: blocks of eight rows, then of four, then
// single rows. It returns false if stop (see SymvStop) ended it early.
func symvRows(stop func() bool, upper bool, r0, r1 int, alpha float64, a []float64, lda int, x, acc []float64) bool {
	n := len(x)
	i := r0
	var xs8 [8][4]float64
	var d8 [8]float64
	for ; i+8 <= r1; i += 8 {
		if stopped(stop, i-r0) {
			return false
		}
		for r := range xs8 {
			v := alpha * x[i+r]
			xs8[r] = [4]float64{v, v, v, v}
		}
		symvDiag(upper, i, 8, alpha, a, lda, x, acc)
		if upper && i+8 < n {
			symRank8(a[i*lda+i+8:], lda, x[i+8:], acc[i+8:], &xs8, &d8)
		} else if !upper && i > 0 {
			symRank8(a[i*lda:], lda, x[:i], acc[:i], &xs8, &d8)
		} else {
			continue
		}
		for r, v := range d8 {
			acc[i+r] += alpha * v
		}
	}
	var xs, d [4]float64
	for ; i+4 <= r1; i += 4 {
		for r := range xs {
			xs[r] = alpha * x[i+r]
		}
		symvDiag(upper, i, 4, alpha, a, lda, x, acc)
		if upper && i+4 < n {
			symRank4(a[i*lda+i+4:], lda, x[i+4:], acc[i+4:], &xs, &d)
		} else if !upper && i > 0 {
			symRank4(a[i*lda:], lda, x[:i], acc[:i], &xs, &d)
		} else {
			continue
		}
		for r, v := range d {
			acc[i+r] += alpha * v
		}
	}
	for ; i < r1; i++ {
		lo, hi := i+1, n
		if !upper {
			lo, hi = 0, i
		}
		row := a[i*lda : i*lda+n]
		s := row[i] * x[i]
		xi := alpha * x[i]
		for k := lo; k < hi; k++ {
			s += row[k] * x[k]
			acc[k] += xi * row[k]
		}
		acc[i] += alpha * s
	}
	return true
}

// symvDiag adds the contribution of the h×h diagonal block at (i, i),
// given by its upper or lower triangle, to acc.
func symvDiag(upper bool, i, h int, alpha float64, a []float64, lda int, x, acc []float64) {
	for r := range h {
		row := a[(i+r)*lda+i : (i+r)*lda+i+h]
		acc[i+r] += alpha * row[r] * x[i+r]
		lo, hi := r+1, h
		if !upper {
			lo, hi = 0, r
		}
		xr := alpha * x[i+r]
		for c := lo; c < hi; c++ {
			acc[i+r] += alpha * row[c] * x[i+c]
			acc[i+c] += xr * row[c]
		}
	}
}

// GemvBoth adds the h×w block A (row-major with stride lda) times xc to
// yr, and Aᵀ times xr to yc: yr += A·xc, yc += Aᵀ·xr. An off-diagonal
// block of a symmetric matrix contributes both to a product with the
// whole matrix, and GemvBoth reads it once for the two, eight or four rows
// at a time (the kernels of Symv), with no transposed copy. For one
// vector it is the memory-bound way to apply a stored block; for many
// vectors a register-blocked product (GemmNTSerial) does more work per
// entry read. Serial.
func GemvBoth(h, w int, a []float64, lda int, xc, xr, yr, yc []float64) {
	if h < 0 || w < 0 || h > 0 && w > 0 && (lda < w || len(a) < (h-1)*lda+w) ||
		len(xc) < w || len(yc) < w || len(xr) < h || len(yr) < h {
		panic("simd: GemvBoth bad shape")
	}
	if h == 0 || w == 0 {
		return
	}
	xc, yc = xc[:w], yc[:w]
	i := 0
	var xs8 [8][4]float64
	var d8 [8]float64
	for ; i+8 <= h; i += 8 {
		for r := range xs8 {
			v := xr[i+r]
			xs8[r] = [4]float64{v, v, v, v}
		}
		symRank8(a[i*lda:], lda, xc, yc, &xs8, &d8)
		for r, v := range d8 {
			yr[i+r] += v
		}
	}
	var xs, d [4]float64
	for ; i+4 <= h; i += 4 {
		copy(xs[:], xr[i:i+4])
		symRank4(a[i*lda:], lda, xc, yc, &xs, &d)
		for r, v := range d {
			yr[i+r] += v
		}
	}
	for ; i < h; i++ {
		row := a[i*lda : i*lda+w]
		xi := xr[i]
		var s float64
		for j, v := range row {
			s += v * xc[j]
			yc[j] += xi * v
		}
		yr[i] += s
	}
}

// GemvBothBlock is GemvBoth for k vectors: for each q, yr_q += A·xc_q
// and yc_q += Aᵀ·xr_q, where xc_q and xr_q start at xc[q·ldx] and
// xr[q·ldx], yr_q and yc_q at yr[q·ldy] and yc[q·ldy]. Each group of eight
// rows of A serves every vector while it is in the cache, two vectors a
// pass where the path has the registers for it (AVX-512). Each vector's
// result is GemvBoth's, bit for bit, whatever k. Serial.
func GemvBothBlock(k, h, w int, a []float64, lda int, xc, xr []float64, ldx int, yr, yc []float64, ldy int) {
	if k < 0 || h < 0 || w < 0 || k > 0 && (ldx < max(h, w) || ldy < max(h, w) ||
		len(xc) < (k-1)*ldx+w || len(xr) < (k-1)*ldx+h || len(yr) < (k-1)*ldy+h || len(yc) < (k-1)*ldy+w) ||
		h > 0 && w > 0 && (lda < w || len(a) < (h-1)*lda+w) {
		panic("simd: GemvBothBlock bad shape")
	}
	if k == 0 || h == 0 || w == 0 {
		return
	}
	pairs := symvPairs && useAVX2 && useAVX512
	var xs [2][8][4]float64
	var d [2][8]float64
	i := 0
	for ; i+8 <= h; i += 8 {
		blk := a[i*lda:]
		for q := 0; q < k; {
			width := 1
			if pairs && q+1 < k {
				width = 2
			}
			for p := range width {
				for r := range 8 {
					v := xr[(q+p)*ldx+i+r]
					xs[p][r] = [4]float64{v, v, v, v}
				}
			}
			xc0, yc0 := xc[q*ldx:q*ldx+w], yc[q*ldy:q*ldy+w]
			if width == 2 {
				xc1, yc1 := xc[(q+1)*ldx:(q+1)*ldx+w], yc[(q+1)*ldy:(q+1)*ldy+w]
				symRank8x2(blk, lda, xc0, yc0, xc1, yc1, &xs, &d, nil, 0)
			} else {
				symRank8(blk, lda, xc0, yc0, &xs[0], &d[0])
			}
			for p := range width {
				for r, v := range d[p] {
					yr[(q+p)*ldy+i+r] += v
				}
			}
			q += width
		}
	}
	if i < h {
		for q := range k {
			GemvBoth(h-i, w, a[i*lda:], lda, xc[q*ldx:], xr[q*ldx+i:], yr[q*ldy+i:], yc[q*ldy:])
		}
	}
}
