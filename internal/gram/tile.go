package gram

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/kpls-go/kpls/internal/simd"
)

// tileSize is the side of the square tiles of a symmetric kernel matrix.
// A 128×128 tile (128 KiB) stays in L2 while it is mirrored, and gives each
// goroutine about 20 µs of work between context checks at d = 8.
const tileSize = 128

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
// [c0, c0+len(dst)).
type rowFunc func(dst []float64, i, c0 int)

// symmetric fills the n×n matrix dst from its upper triangle: row(…, i, c0)
// computes the entries on and right of the diagonal tile by tile, and each
// tile is then mirrored into the lower triangle, so every distinct entry
// is computed once. With unitDiag the diagonal is set to 1 instead of
// computed. Tiles are handed out
// to GOMAXPROCS goroutines, each writing only its own tile and that tile's
// mirror image, and the context is checked before each tile.
func symmetric(ctx context.Context, dst []float64, n int, unitDiag bool, row rowFunc) error {
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
			dst: dst, n: n, unitDiag: unitDiag, row: row,
			stream: n*n >= streamMinEntries,
			a:      make([]float64, tileSize*tileSize),
			at:     make([]float64, tileSize*tileSize),
		}
		for {
			k := next.Add(1) - 1
			if k >= int64(len(tiles)) || failed.Load() {
				return nil
			}
			if err := ctx.Err(); err != nil {
				failed.Store(true)
				return err
			}
			bi, bj := int(tiles[k][0]), int(tiles[k][1])
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
	dst      []float64
	n        int
	unitDiag bool
	stream   bool
	row      rowFunc
	a, at    []float64
}

// fill computes the tile rows [r0, r1) × columns [c0, c1) of the upper
// triangle into scratch, then writes it and its transpose, the matching
// tile of the lower triangle, to dst. On a diagonal tile (r0 == c0) only
// the entries on and right of the diagonal are computed.
func (t *tiler) fill(r0, r1, c0, c1 int) {
	h, w, n := r1-r0, c1-c0, t.n
	a := t.a[:h*w]
	onDiag := r0 == c0
	for i := range h {
		out := a[i*w : i*w+w]
		lo := 0
		if onDiag {
			lo = i
			if t.unitDiag {
				out[i] = 1
				lo++
			}
		}
		if lo < w {
			t.row(out[lo:], r0+i, c0+lo)
		}
	}
	if onDiag {
		for i := range h {
			for j := i + 1; j < w; j++ {
				a[j*w+i] = a[i*w+j]
			}
		}
	}
	for i := range h {
		t.write(t.dst[(r0+i)*n+c0:(r0+i)*n+c1], a[i*w:i*w+w])
	}
	if !onDiag {
		at := t.at[:w*h]
		transpose4(at, a, h, w)
		for j := range w {
			t.write(t.dst[(c0+j)*n+r0:(c0+j)*n+r1], at[j*h:j*h+h])
		}
	}
	if t.stream {
		simd.StreamFence()
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
func transpose4(dst, src []float64, h, w int) {
	i := 0
	for ; i+4 <= h; i += 4 {
		r0, r1, r2, r3 := src[i*w:i*w+w], src[(i+1)*w:(i+1)*w+w], src[(i+2)*w:(i+2)*w+w], src[(i+3)*w:(i+3)*w+w]
		for j := range w {
			d := dst[j*h+i : j*h+i+4 : j*h+i+4]
			d[0], d[1], d[2], d[3] = r0[j], r1[j], r2[j], r3[j]
		}
	}
	for ; i < h; i++ {
		for j := range w {
			dst[j*h+i] = src[i*w+j]
		}
	}
}

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
