package simd

import (
	"math"
	"slices"
	"sync"
)

// symvBlockCols is the columns of an eight-row group applied to every
// vector before moving on: 8 × 256 × 8 B = 16 KiB of the triangle stays
// in the first-level cache while the k vectors pass over it, so that it
// is read from memory once, not k times.
const symvBlockCols = 256

// symvPrefetch has each group of eight rows fetch, spread over its
// vectors' passes, the group read next (see symvBlockRows); benchmarks
// clear it to measure what that gains.
var symvPrefetch = true

// symvPairs has the AVX-512 path take the vectors through each group of
// rows two at a time (symRank8x2); benchmarks clear it to measure what
// that gains.
var symvPairs = true

// SymvBlockMaxVectors is the largest block for which SymvBlock was
// measured faster than GemmNT (which reads both triangles, with register
// blocking) on the path in use, from n = 2048 on:
//   - AVX-512, with vectors in pairs and the rows DenseStride apart
//     (2026-11-27, tenth session, a 2-core AMD EPYC): at n = 8192, 12
//     vectors take 23 ms against 39, 24 43 against 62, 32 60 against 78,
//     64 112 against 133; at n = 4096, 32 vectors 20 against 22 ms; at
//     n = 2048, 32 vectors 4.5 against 5.6 ms, while at 16 GemmNT was
//     ahead (3.5 against 3.8 ms). Before the pairs the two were level at
//     16 vectors at n = 8192;
//   - AVX2 and the generic twins (2026-11-26, a 2-core AVX2 EPYC): 5
//     vectors at n = 8192 take 29 ms against 42, 7 35 against 42, and at 9
//     the two are level (46 and 48 ms) while at n = 2048 GemmNT wins (2.4
//     against 3.0 ms). On the AVX2 path of the AVX-512 machine, with this
//     session's prefetching and padded rows, SymvBlock now wins at 16
//     (45 against 49 ms), but an AVX2 machine was not there to measure:
//     the limit stays 8.
func SymvBlockMaxVectors() int {
	if useAVX512 {
		return 32
	}
	return 8
}

// SymvBlock sets y_q = alpha·A·x_q + beta·y_q for the k vectors x_q (row q
// of the k×n row-major X, rows ldx apart) and y_q (rows of Y, ldy apart),
// for the symmetric n×n row-major A of which it reads only the upper
// triangle, once for all k vectors. It is Symv for a block: each
// stretch of eight rows of the triangle is brought into the cache once
// and used by every vector, as rows (dot products) and, by symmetry, as
// columns. One vector costs about what Symv costs; k vectors cost k times
// the arithmetic of one over a single read of the matrix, where k Symv
// calls would read it k times. Large products split the rows over
// GOMAXPROCS goroutines in bands of equal area, each accumulating into its
// own k×n block; the blocks are summed at the end in a fixed order.
func SymvBlock(k, n int, alpha float64, a []float64, lda int, x []float64, ldx int, beta float64, y []float64, ldy int) {
	SymvBlockStop(nil, k, n, alpha, a, lda, x, ldx, beta, y, ldy)
}

// SymvBlockStop is SymvBlock that can be stopped part way, as SymvStop
// is Symv: stop is called before every stopRows rows of each goroutine's
// band, and once it reports true SymvBlockStop returns false with Y
// unspecified; otherwise Y is SymvBlock's, bit for bit.
func SymvBlockStop(stop func() bool, k, n int, alpha float64, a []float64, lda int, x []float64, ldx int, beta float64, y []float64, ldy int) bool {
	if k < 0 || n < 0 || lda < max(n, 1) || ldx < max(n, 1) || ldy < max(n, 1) ||
		k > 0 && n > 0 && (len(a) < (n-1)*lda+n || len(x) < (k-1)*ldx+n || len(y) < (k-1)*ldy+n) {
		panic("simd: SymvBlock bad shape")
	}
	if k == 0 || n == 0 {
		return true
	}
	for q := range k {
		scaleY(beta, y[q*ldy:q*ldy+n])
	}
	if alpha == 0 {
		return true
	}
	w := workers(k*n*n/2, n)
	bounds := make([]int, w+1)
	for p := 1; p < w; p++ {
		f := float64(p) / float64(w)
		bounds[p] = int(float64(n)*(1-math.Sqrt(1-f))) &^ 7
	}
	bounds[w] = n
	accs := make([][]float64, w)
	for p := range accs {
		acc, _ := accPool.Get().(*[]float64)
		if acc == nil || cap(*acc) < k*n {
			acc = new(make([]float64, k*n))
		}
		accs[p] = (*acc)[:k*n]
		clear(accs[p])
	}
	finished := make([]bool, w)
	var wg sync.WaitGroup
	for p := range w {
		wg.Go(func() { finished[p] = symvBlockRows(stop, bounds[p], bounds[p+1], k, n, a, lda, x, ldx, accs[p]) })
	}
	wg.Wait()
	if slices.Contains(finished, false) {
		for _, acc := range accs {
			accPool.Put(&acc)
		}
		return false
	}
	for q := range k {
		yq := y[q*ldy : q*ldy+n]
		for _, acc := range accs {
			for i, v := range acc[q*n : q*n+n] {
				yq[i] += alpha * v
			}
		}
	}
	for _, acc := range accs {
		accPool.Put(&acc)
	}
	return true
}

// symvBlockRows adds the contribution of the upper triangle's rows
// [r0, r1) to A·x_q into acc_q (row q of the k×n acc) for every q: groups
// of eight rows, column block by column block, every vector per block;
// then the leftover rows one at a time. It returns false if stop (see
// SymvBlockStop) ended it early.
func symvBlockRows(stop func() bool, r0, r1, k, n int, a []float64, lda int, x []float64, ldx int, acc []float64) bool {
	xs := make([][8][4]float64, k)
	var d [8]float64
	var d2 [2][8]float64
	// Vectors go through the rows two at a time where the path has the
	// registers for it (AVX-512), one at a time otherwise; the passes
	// share the prefetching of the next block (below).
	width := 1
	if symvPairs && useAVX2 && useAVX512 {
		width = 2
	}
	passes := (k + width - 1) / width
	share := 2
	switch {
	case passes == 1:
		share = 8
	case passes < 4:
		share = 4
	}
	i := r0
	for ; i+8 <= r1; i += 8 {
		if stopped(stop, i-r0) {
			return false
		}
		for q := range k {
			xq := x[q*ldx : q*ldx+n]
			for r := range 8 {
				v := xq[i+r]
				xs[q][r] = [4]float64{v, v, v, v}
			}
			symvDiag(true, i, 8, 1, a, lda, xq, acc[q*n:q*n+n])
		}
		for c0 := i + 8; c0 < n; c0 += symvBlockCols {
			c1 := min(n, c0+symvBlockCols)
			blk := a[i*lda+c0:]
			// Memory would idle while the passes after the first reuse
			// this block from the cache: the first four passes (two, for
			// fewer than four; one) each prefetch a quarter (a half; all)
			// of the block read next, the next column block or the next
			// group's first.
			var next []float64
			switch {
			case !symvPrefetch:
			case c1 < n:
				next = a[i*lda+c1:]
			case i+16 <= r1:
				next = a[(i+8)*lda+i+16:]
			}
			for p, q := 0, 0; q < k; p++ {
				var pf []float64
				if next != nil && p*share < 8 {
					pf = next[p*share*lda:]
				}
				if width == 2 && q+1 < k {
					a0, a1 := acc[q*n:q*n+n], acc[(q+1)*n:(q+1)*n+n]
					symRank8x2(blk, lda, x[q*ldx+c0:q*ldx+c1], a0[c0:c1], x[(q+1)*ldx+c0:(q+1)*ldx+c1], a1[c0:c1],
						(*[2][8][4]float64)(xs[q:q+2]), &d2, pf, share)
					for r := range 8 {
						a0[i+r] += d2[0][r]
						a1[i+r] += d2[1][r]
					}
					q += 2
					continue
				}
				aq := acc[q*n : q*n+n]
				symRank8Prefetch(blk, lda, x[q*ldx+c0:q*ldx+c1], aq[c0:c1], &xs[q], &d, pf, share)
				for r, v := range d {
					aq[i+r] += v
				}
				q++
			}
		}
	}
	for ; i < r1; i++ {
		row := a[i*lda : i*lda+n]
		for q := range k {
			xq, aq := x[q*ldx:q*ldx+n], acc[q*n:q*n+n]
			xi := xq[i]
			s := row[i] * xi
			for c := i + 1; c < n; c++ {
				s += row[c] * xq[c]
				aq[c] += xi * row[c]
			}
			aq[i] += s
		}
	}
	return true
}
