package gram

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
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
		for {
			t := next.Add(1) - 1
			if t >= int64(len(tiles)) || failed.Load() {
				return nil
			}
			if err := ctx.Err(); err != nil {
				failed.Store(true)
				return err
			}
			bi, bj := int(tiles[t][0]), int(tiles[t][1])
			fillTile(dst, n, bi*tileSize, min(n, (bi+1)*tileSize), bj*tileSize, min(n, (bj+1)*tileSize), unitDiag, row)
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

// fillTile computes the tile rows [r0, r1) × columns [c0, c1) of the upper
// triangle and mirrors it. On a diagonal tile (r0 == c0) only the entries
// on and right of the diagonal are computed.
func fillTile(dst []float64, n, r0, r1, c0, c1 int, unitDiag bool, row rowFunc) {
	onDiag := r0 == c0
	for i := r0; i < r1; i++ {
		lo := c0
		if onDiag {
			lo = i
			if unitDiag {
				dst[i*n+i] = 1
				lo++
			}
		}
		if lo < c1 {
			row(dst[i*n+lo:i*n+c1], i, lo)
		}
	}
	// Mirror: column j of the tile becomes row j of the lower triangle.
	for j := c0; j < c1; j++ {
		hi := r1
		if onDiag {
			hi = j
		}
		out := dst[j*n+r0 : j*n+hi]
		for k := range out {
			out[k] = dst[(r0+k)*n+j]
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
