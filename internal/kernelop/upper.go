package kernelop

import (
	"context"
	"math"
	"sync"
)

// upper is the upper triangle of a symmetric n×n matrix by rows: entry
// (i, c), c ≥ i, at data[off(i)+c]. Packed, row i holds only columns
// i..n−1 right after row i−1 (float32's storage); otherwise rows are n
// apart (the dense matrix, whose lower triangle is not read).
type upper[T elem] struct {
	data   []T
	n      int
	packed bool
}

func (u *upper[T]) off(i int) int {
	if u.packed {
		return i*u.n - i*(i+1)/2
	}
	return i * u.n
}

// row returns the entries (i, c0..c1−1).
func (u *upper[T]) row(i, c0, c1 int) []T {
	o := u.off(i)
	return u.data[o+c0 : o+c1 : o+c1]
}

// The triangle is multiplied in panels of panelRows rows: each chunk of
// chunkCols columns of the vectors (k·chunkCols·16 bytes of x and y: 20
// KiB for five vectors) is applied to the panel's groups of four rows one
// after the other while it stays in L1, rather than every group sweeping
// all of x and y, which for k vectors at n = 20,000 (k·320 KB) do not fit
// in L2: read from L3 once per four rows, they limited the pass, not the
// matrix. The four rows' chunk (4·chunkCols entries) stays in L1 while
// the vectors' groups of up to six (symRank4) take turns at it.
const (
	panelRows = 32
	chunkCols = 256
)

// ctxRows is the rows of the triangle between context checks.
const ctxRows = 256

// mul sets dst = V·A for the symmetric matrix A given by u and the k
// vectors v (k×n), splitting the triangle's rows into bands of equal
// area, one per goroutine (static, so the rounding is the same from call
// to call), each adding both the row side and the mirror image into its
// own accumulator.
func (u *upper[T]) mul(ctx context.Context, dst, v []float64, k int) error {
	n := u.n
	nw := 1
	if n*n/2 >= parMinEntries {
		nw = workers(n, n/4)
	}
	bounds := make([]int, nw+1)
	for p := 1; p < nw; p++ {
		f := float64(p) / float64(nw)
		bounds[p] = int(float64(n)*(1-math.Sqrt(1-f))) &^ 3
	}
	bounds[nw] = n
	accs := accumulators(dst, k, n, nw)
	kn := kernels[T]()
	errs := make([]error, nw)
	var wg sync.WaitGroup
	for p := range nw {
		wg.Go(func() { errs[p] = u.mulRows(ctx, kn, bounds[p], bounds[p+1], v, k, accs[p]) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	reduce(accs)
	return nil
}

// mulRows adds the rows [r0, r1) of the triangle, and their mirror images,
// times the k vectors v into acc, r0 a multiple of 4: panels of groups of
// four rows, their 4×4 diagonal blocks entry by entry, the rest with
// symRank4; rows past the last group (at the end of the matrix) one by one.
func (u *upper[T]) mulRows(ctx context.Context, kn *symKernels[T], r0, r1 int, v []float64, k int, acc []float64) error {
	n := u.n
	xs, out := make([]float64, 4*k), make([]float64, 4*k)
	// group applies rows i..i+3, columns [c0, c1), to every vector.
	group := func(i, c0, c1 int) {
		if c0 >= c1 {
			return
		}
		for q := range k {
			copy(xs[4*q:4*q+4], v[q*n+i:q*n+i+4])
		}
		symRank4(kn, u.row(i, c0, c1), u.row(i+1, c0, c1), u.row(i+2, c0, c1), u.row(i+3, c0, c1),
			v[c0:], acc[c0:], n, k, xs, out)
		for q := range k {
			y := acc[q*n+i : q*n+i+4]
			for r := range y {
				y[r] += out[4*q+r]
			}
		}
	}
	next := r0
	for i0 := r0; i0 < r1; i0 += panelRows {
		if i0 >= next {
			if err := ctx.Err(); err != nil {
				return err
			}
			next = i0 + ctxRows
		}
		i1 := min(r1, i0+panelRows)
		g1 := i0 + (i1-i0)&^3 // the panel's groups of four rows end here
		for i := i0; i < g1; i += 4 {
			for q := range k {
				u.diag(i, 4, v[q*n:q*n+n], acc[q*n:q*n+n])
			}
			group(i, i+4, g1)
		}
		for c0 := g1; c0 < n; c0 += chunkCols {
			c1 := min(n, c0+chunkCols)
			for i := i0; i < g1; i += 4 {
				group(i, c0, c1)
			}
		}
		for i := g1; i < i1; i++ {
			row := u.row(i, i, n)
			for q := range k {
				x, y := v[q*n:q*n+n], acc[q*n:q*n+n]
				xi := x[i]
				s := float64(row[0]) * xi
				for j, a := range row[1:] {
					kv := float64(a)
					s += kv * x[i+1+j]
					y[i+1+j] += kv * xi
				}
				y[i] += s
			}
		}
	}
	return nil
}

// diag adds the h×h diagonal block at (i, i) times x into y.
func (u *upper[T]) diag(i, h int, x, y []float64) {
	for a := range h {
		row := u.row(i+a, i+a, i+h)
		y[i+a] += float64(row[0]) * x[i+a]
		for b := 1; b < h-a; b++ {
			kv := float64(row[b])
			y[i+a] += kv * x[i+a+b]
			y[i+a+b] += kv * x[i+a]
		}
	}
}
