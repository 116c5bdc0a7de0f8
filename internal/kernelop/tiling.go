package kernelop

import (
	"context"
	"runtime"
	"sort"
	"sync"

	"github.com/kpls-go/kpls/internal/simd"
)

// tileRows × tileCols is the largest tile of the upper triangle computed
// at once. A tile (256 KiB) stays in this machine's L2 (512 KiB a core)
// between computing, centring and applying it; 512
// columns keep the dot products of the row side long and the strip's
// tiles few. tileCols ≥ tileRows, so a strip's diagonal square lies in its
// first tile.
const tileRows, tileCols = 64, 512

// stripRows is the height of the whole-row strips used when the Rows has
// no Block method: scratch of stripRows×n per goroutine.
const stripRows = 16

// parMinEntries is the number of distinct entries below which a pass runs
// on the calling goroutine: starting goroutines costs more than it saves.
const parMinEntries = 1 << 15

// tile is the block rows [r0, r1) × columns [c0, c1) of K.
type tile struct{ r0, r1, c0, c1 int }

func (t tile) area() int { return (t.r1 - t.r0) * (t.c1 - t.c0) }

// tiling cuts K into tiles: with sym, the upper triangle, each strip of
// tileRows rows from its diagonal square rightwards; without, whole-row
// strips covering all of K.
type tiling struct {
	n     int
	sym   bool
	tiles []tile
}

func newTiling(n int, sym bool) *tiling {
	tl := &tiling{n: n, sym: sym}
	if sym {
		for r0 := 0; r0 < n; r0 += tileRows {
			r1 := min(n, r0+tileRows)
			for c0 := r0; c0 < n; c0 += tileCols {
				tl.tiles = append(tl.tiles, tile{r0, r1, c0, min(n, c0+tileCols)})
			}
		}
	} else {
		for r0 := 0; r0 < n; r0 += stripRows {
			tl.tiles = append(tl.tiles, tile{r0, min(n, r0+stripRows), 0, n})
		}
	}
	return tl
}

// square returns how many leading columns of t lie in the diagonal square
// [r0, r1) of its strip: entries there are applied to the row side only
// (the square is computed in full), the others to both sides.
func (tl *tiling) square(t tile) int {
	if !tl.sym || t.c0 != t.r0 {
		return 0
	}
	return min(t.r1, t.c1) - t.c0
}

// maxArea is the largest tile, the scratch each goroutine needs.
func (tl *tiling) maxArea() int {
	if tl.sym {
		return min(tl.n, tileRows) * min(tl.n, tileCols)
	}
	return min(tl.n, stripRows) * tl.n
}

// compute fills a with the uncentred tile t.
func compute(rows Rows, blk Blocks, t tile, a []float64) {
	if blk != nil {
		blk.Block(a, t.r0, t.r1, t.c0, t.c1)
	} else {
		rows.Rows(a, t.r0, t.r1)
	}
}

// centre centres the tile t (in a) in place with the column means m and the
// grand mean g, as K_ij − m_i − m_j + g, and returns its contributions to
// ‖K_c‖² (entries outside the diagonal square count twice, for their
// mirror images) and to the trace of K_c.
func (tl *tiling) centre(a []float64, t tile, m []float64, g float64) (frob2, trace float64) {
	w, sq := t.c1-t.c0, tl.square(t)
	for i := range t.r1 - t.r0 {
		row := a[i*w : i*w+w]
		c := m[t.r0+i] - g
		inner := simd.CenterRow(row[:sq], m[t.c0:], c)
		outer := simd.CenterRow(row[sq:], m[t.c0+sq:], c)
		if tl.sym {
			outer *= 2
		}
		frob2 += inner + outer
		if j := t.r0 + i - t.c0; j >= 0 && j < w {
			trace += row[j]
		}
	}
	return frob2, trace
}

// bothMaxVectors is the block size up to which apply reads each group of
// eight rows of a tile once for both sides of all vectors
// (simd.GemvBothBlock); from there on it multiplies each side as a
// product of blocks, which does more work per entry read. With AVX-512
// the vectors go through a group two at a time, and that stays ahead
// longer (2026-11-27, n = 8192, medians of interleaved runs: hybrid
// storage at 20 vectors 58 against 66 ms; at 32 level, 87 against 85,
// and matrix-free 86 against 99).
func bothMaxVectors() int {
	if simd.Path() == simd.AVX512 {
		return 32
	}
	return 4
}

// apply adds the tile t (values in a) times the k vectors v (k×n) into acc
// (k×n): the row side acc_I += V_J·Tᵀ, i.e. K[I,J]·v_J, and, for the
// columns outside the diagonal square, the mirror image acc_J += V_I·T,
// i.e. K[J,I]·v_I. Neither side copies the tile: a transposed copy for
// the mirror image, so that it too was a product of dot products, cost
// more than the products themselves for one vector, and about a fifth of
// a pass at nine (pprof, 45,730 rows).
func (tl *tiling) apply(a []float64, t tile, v []float64, k int, acc []float64) {
	n, h, w := tl.n, t.r1-t.r0, t.c1-t.c0
	sq := tl.square(t)
	if !tl.sym {
		sq = w // whole-row strips: the row side only
	}
	ww := w - sq
	if k <= bothMaxVectors() {
		if sq > 0 {
			simd.GemmNTSerial(k, h, sq, 1, v[t.c0:], n, a, w, 1, acc[t.r0:], n)
		}
		simd.GemvBothBlock(k, h, ww, a[sq:], w, v[t.c0+sq:], v[t.r0:], n, acc[t.r0:], acc[t.c0+sq:], n)
		return
	}
	simd.GemmNTSerial(k, h, w, 1, v[t.c0:], n, a, w, 1, acc[t.r0:], n)
	simd.GemmSerial(k, ww, h, 1, v[t.r0:], n, a[sq:], w, 1, acc[t.c0+sq:], n)
}

// workers is the number of goroutines for a pass over n×n.
func workers(n, tiles int) int {
	if n*n/2 < parMinEntries {
		return 1
	}
	return max(1, min(runtime.GOMAXPROCS(0), tiles))
}

// partition splits the tiles into nw contiguous runs of about equal cost
// (cost[i] is the cumulative cost of tiles [0, i]), returning nw+1
// bounds. A static partition, not a shared counter, keeps each
// goroutine's accumulator, and so the rounding of the sums, the same from
// call to call for a given GOMAXPROCS (as simd.Symv's bands do).
func partition(cum []float64, nw int) []int {
	b := make([]int, nw+1)
	total := 0.0
	if len(cum) > 0 {
		total = cum[len(cum)-1]
	}
	for p := 1; p < nw; p++ {
		target := total * float64(p) / float64(nw)
		b[p] = max(b[p-1], sort.SearchFloat64s(cum, target))
	}
	b[nw] = len(cum)
	return b
}

// partitionRange is partition of the tiles [lo, hi) alone (cum is the
// cumulative cost of all tiles); the bounds it returns are tile indices.
func partitionRange(cum []float64, lo, hi, nw int) []int {
	sub := make([]float64, hi-lo)
	base := 0.0
	if lo > 0 {
		base = cum[lo-1]
	}
	for i := range sub {
		sub[i] = cum[lo+i] - base
	}
	b := partition(sub, nw)
	for p := range b {
		b[p] += lo
	}
	return b
}

// run calls visit(p, i) for every tile i, worker p taking the run
// bounds[p]..bounds[p+1] on its own goroutine (the caller's for p = 0 when
// there is one worker). The context is checked before every tile; after a
// cancellation every worker stops at its next tile and run returns the
// context's error. tick, if not nil, is called after every tile.
func run(ctx context.Context, bounds []int, visit func(p, i int), tick func()) error {
	nw := len(bounds) - 1
	errs := make([]error, nw)
	work := func(p int) {
		for i := bounds[p]; i < bounds[p+1]; i++ {
			if err := ctx.Err(); err != nil {
				errs[p] = err
				return
			}
			visit(p, i)
			if tick != nil {
				tick()
			}
		}
	}
	if nw == 1 {
		work(0)
	} else {
		var wg sync.WaitGroup
		for p := range nw {
			wg.Go(func() { work(p) })
		}
		wg.Wait()
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// progressCounter serialises Progress calls from several goroutines and
// reports at most about a thousand times in all.
type progressCounter struct {
	mu          sync.Mutex
	f           Progress
	done, total int
	last        int
}

func newProgress(f Progress, total int) *progressCounter {
	if f == nil {
		return nil
	}
	return &progressCounter{f: f, total: total}
}

func (pc *progressCounter) tick() {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	pc.done++
	if pc.done == pc.total || pc.done-pc.last >= max(1, pc.total/1000) {
		pc.last = pc.done
		pc.f(pc.done, pc.total)
	}
}

// tickFunc returns pc.tick, or nil for no progress reporting.
func (pc *progressCounter) tickFunc() func() {
	if pc == nil {
		return nil
	}
	return pc.tick
}

// accumulators returns nw zeroed k×n accumulators, one per goroutine of a
// product, the first of them dst itself.
func accumulators(dst []float64, k, n, nw int) [][]float64 {
	accs := make([][]float64, nw)
	accs[0] = dst[:k*n]
	clear(accs[0])
	for p := 1; p < nw; p++ {
		accs[p] = make([]float64, k*n)
	}
	return accs
}

// reduce adds the other accumulators into the first.
func reduce(accs [][]float64) {
	for _, acc := range accs[1:] {
		for j, x := range acc {
			accs[0][j] += x
		}
	}
}
