package gram

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/kpls-go/kpls/internal/simd"
)

// tileSize is the side of the square tiles of a symmetric kernel matrix.
// A tile and its transpose (2 × 288 KiB) stay in L2 while they are written
// out, and a tile is about 50 µs of work at d = 8 between context checks.
// Measured at n = 8192, d = 8 on 2 cores, sides from 128 to 224 are within
// 5 % of each other.
const tileSize = 192

// parMinEntries is the number of distinct matrix entries below which work
// stays on the calling goroutine.
const parMinEntries = 1 << 15

// workers returns how many goroutines to use for a job of the given number
// of entries split into the given number of independent units.
func workers(entries, units int) int {
	if entries < parMinEntries {
		return 1
	}
	return max(1, min(runtime.GOMAXPROCS(0), units))
}

// rowFunc fills dst, row i of a kernel matrix restricted to the columns
// [c0, c0+len(dst)), or, with a tileFunc, an intermediate (the squared
// distances of an RBF kernel).
type rowFunc func(dst []float64, i, c0 int)

// tileFunc finishes, in place, a tile of intermediates made by a rowFunc
// (the RBF kernel's exponentials). Working on a whole tile at once keeps
// the vector loop long.
type tileFunc func(tile []float64)

// blockFunc fills dst (row-major, (r1−r0)×(c1−c0)) with the block rows
// [r0, r1) × columns [c0, c1) of a kernel matrix, or of intermediates
// that a tileFunc finishes, all at once (through a matrix product).
type blockFunc func(dst []float64, r0, r1, c0, c1 int)

// kernel describes how to fill a symmetric kernel matrix: row by row, or
// block by block when block is set.
type kernel struct {
	row      rowFunc
	block    blockFunc
	finish   tileFunc // nil when row writes final values
	unitDiag bool     // the diagonal is exactly 1 and is not computed
}

// symmetric fills the n×n matrix dst (rows ld apart) from its upper
// triangle: k computes the entries on and right of the diagonal tile by
// tile, and each tile is then mirrored into the lower triangle, so every
// distinct entry is computed once. Tiles are handed out to GOMAXPROCS
// goroutines, each writing only its own tile and that tile's mirror image,
// and the context is checked before each tile.
func symmetric(ctx context.Context, dst []float64, ld, n int, k kernel) error {
	nb := (n + tileSize - 1) / tileSize
	ntiles := nb * (nb + 1) / 2
	// tiles lists the upper-triangle tiles (bi ≤ bj), row of tiles by row.
	tiles := make([][2]int32, 0, ntiles)
	for bi := range nb {
		for bj := bi; bj < nb; bj++ {
			tiles = append(tiles, [2]int32{int32(bi), int32(bj)})
		}
	}
	var next atomic.Int64
	var failed atomic.Bool
	work := func() error {
		t := &tiler{
			dst: dst, ld: ld, kernel: k,
			stream: n*n >= streamMinEntries,
			a:      make([]float64, tileSize*tileSize),
			at:     make([]float64, tileSize*tileSize),
		}
		if t.stream {
			// Once, not per tile, so that the stores drain while the next
			// tiles are computed.
			defer simd.StreamFence()
		}
		for {
			i := next.Add(1) - 1
			if i >= int64(len(tiles)) || failed.Load() {
				return nil
			}
			if err := ctx.Err(); err != nil {
				failed.Store(true)
				return err
			}
			bi, bj := int(tiles[i][0]), int(tiles[i][1])
			t.fill(bi*tileSize, min(n, (bi+1)*tileSize), bj*tileSize, min(n, (bj+1)*tileSize))
		}
	}
	w := workers(n*(n-1)/2, ntiles)
	if w == 1 {
		return work()
	}
	errs := make([]error, w)
	var wg sync.WaitGroup
	for p := range w {
		wg.Go(func() { errs[p] = work() })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return ctx.Err()
}

// streamMinEntries is the matrix size from which tiles are written with
// non-temporal stores: beyond the caches, a tile's cache lines would only
// be read from memory to be overwritten (and would evict the inputs),
// while a smaller matrix is better left in cache for its first reader.
const streamMinEntries = 1 << 20

// tiler fills tiles of one matrix; each goroutine has its own, with
// scratch space for a tile and its transpose.
type tiler struct {
	kernel
	dst    []float64
	ld     int // dst's row stride
	stream bool
	a, at  []float64
}

// fill computes the tile rows [r0, r1) × columns [c0, c1) of the upper
// triangle into scratch, then writes it and its transpose, the matching
// tile of the lower triangle, to dst. On a diagonal tile (r0 == c0) a
// row function computes only the entries on and right of the diagonal.
func (t *tiler) fill(r0, r1, c0, c1 int) {
	h, w, ld := r1-r0, c1-c0, t.ld
	a := t.a[:h*w]
	onDiag := r0 == c0
	if t.block != nil {
		// On a diagonal tile this also computes the entries below the
		// diagonal, which the mirroring then overwrites.
		t.block(a, r0, r1, c0, c1)
	} else {
		for i := range h {
			lo := 0
			if onDiag {
				lo = i
				if t.unitDiag {
					lo++
				}
			}
			if lo < w {
				t.row(a[i*w+lo:i*w+w], r0+i, c0+lo)
			}
		}
	}
	if t.finish != nil {
		// On a diagonal tile this also transforms the stale entries below
		// the diagonal, which the mirroring then overwrites.
		t.finish(a)
	}
	if onDiag {
		for i := range h {
			if t.unitDiag {
				a[i*w+i] = 1
			}
			for j := i + 1; j < w; j++ {
				a[j*w+i] = a[i*w+j]
			}
		}
	}
	for i := range h {
		t.write(t.dst[(r0+i)*ld+c0:(r0+i)*ld+c1], a[i*w:i*w+w])
	}
	if !onDiag {
		at := t.at[:w*h]
		simd.Transpose(at, h, a, w, h, w)
		for j := range w {
			t.write(t.dst[(c0+j)*ld+r0:(c0+j)*ld+r1], at[j*h:j*h+h])
		}
	}
}

func (t *tiler) write(dst, src []float64) {
	if t.stream {
		simd.StreamCopy(dst, src)
	} else {
		copy(dst, src)
	}
}

// transpose4 sets dst (w×h) to the transpose of src (h×w), in 4×4 blocks
// so that both sides are read and written a cache line at a time.
// rows runs f over [0, m) split into contiguous chunks of rows, on up to
// GOMAXPROCS goroutines when the job has at least parMinEntries entries.
func rows(m, entries int, f func(r0, r1 int)) {
	w := workers(entries, m)
	if w == 1 {
		f(0, m)
		return
	}
	var wg sync.WaitGroup
	for p := range w {
		r0, r1 := p*m/w, (p+1)*m/w
		wg.Go(func() { f(r0, r1) })
	}
	wg.Wait()
}

// span is the length of an n×n matrix whose rows are ld apart: the last
// row needs no padding after it.
func span(ld, n int) int {
	if n == 0 {
		return 0
	}
	return (n-1)*ld + n
}

// checkSquare panics unless dst can hold an n×n matrix with rows ld apart.
func checkSquare(dst []float64, ld, n int) {
	if ld < n || len(dst) < span(ld, n) {
		panic("gram: bad stride or slice too short")
	}
}
