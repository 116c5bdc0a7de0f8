package kernelop

import (
	"context"

	"github.com/kpls-go/kpls/internal/hugepage"
)

// The goroutines' shares of a pass are balanced by cost estimates per
// entry of a tile, relative to computing it (an exp, a distance, the
// centring): cachedCost to read a cached entry from memory, applyCost to
// apply an entry to one vector (both sides). Applying matters once there
// are several vectors: at k = 9 a cached tile costs about as much as a
// computed one does at k = 1, and a split that ignored k left one
// goroutine with every cached tile (they come first) and the other idle
// (pprof of a 45,730-row pass, three quarters cached).
const (
	cachedCost = 0.15
	applyCost  = 0.1
)

// tiled is the matrix-free and the hybrid operator: K_c recomputed tile by
// tile in every pass, except for the tiles cached (centred, float64).
type tiled struct {
	kind  Kind
	rows  Rows
	blk   Blocks // nil: whole-row strips, n² evaluations per pass
	tl    *tiling
	st    Stats
	cache []float64
	off   []int // offset of tile i in cache, or −1 if it is recomputed
	// The tiles [lo, hi) are this process's share: all of them, or, over
	// a Comm, this rank's (NewDistributed), whose partial products every
	// rank sums.
	lo, hi int
	comm   Comm
}

// NewMatrixFree returns K_c as an operator that stores nothing n×n: every
// Mul recomputes the upper triangle of K tile by tile from rows (n²/2
// kernel evaluations when rows implements Blocks, n² otherwise), centres
// each tile with the column means and applies it to both sides.
// Construction is two such passes (see the package comment). Scratch is a
// tile per goroutine and, during Mul, a k×n accumulator
// per goroutine.
func NewMatrixFree(ctx context.Context, rows Rows, progress Progress) (Operator, error) {
	return newTiled(ctx, rows, 0, nil, KindMatrixFree, nil, progress)
}

// NewHybrid is NewMatrixFree with as many centred tiles cached (float64)
// as budgetBytes allows; the others are recomputed in every pass. Budget 0
// is matrix-free; from 8n² bytes every tile is cached (the tiles cover
// the upper triangle and the diagonal squares, under n² entries).
//
// buf, when long enough, holds the cache, as NewFloat32's buf holds its
// storage (the same rule: not in use elsewhere while this operator
// lives); nil allocates.
func NewHybrid(ctx context.Context, rows Rows, budgetBytes int64, buf []float64, progress Progress) (Operator, error) {
	return newTiled(ctx, rows, budgetBytes, buf, KindHybrid, nil, progress)
}

func newTiled(ctx context.Context, rows Rows, budget int64, buf []float64, kind Kind, comm Comm, progress Progress) (*tiled, error) {
	n := rows.N()
	blk, _ := rows.(Blocks)
	tl := newTiling(n, blk != nil)
	o := &tiled{kind: kind, rows: rows, blk: blk, tl: tl, off: make([]int, len(tl.tiles)), hi: len(tl.tiles), comm: comm}
	if comm != nil {
		b := partition(areaCost(tl), comm.Size())
		o.lo, o.hi = b[comm.Rank()], b[comm.Rank()+1]
	}
	// Cache tiles in order while they fit: every entry cached saves one
	// evaluation per pass for 8 bytes, whichever tile it is in.
	avail, used := budget/8, 0
	for i, t := range tl.tiles {
		if i >= o.lo && i < o.hi && int64(used+t.area()) <= avail {
			o.off[i] = used
			used += t.area()
		} else {
			o.off[i] = -1
		}
	}
	if len(buf) < used {
		buf = make([]float64, used)
	}
	hugepage.Float64s(buf[:used])
	o.cache = buf[:used]

	pc := newProgress(progress, passes(rows)*(o.hi-o.lo))
	mean, grand, err := columnMeans(ctx, tl, rows, blk, o.lo, o.hi, comm, pc.tickFunc())
	if err != nil {
		return nil, err
	}
	// Second pass: centre every tile, for the trace and Frobenius norm of
	// K_c, keeping the tiles that are cached.
	nw := workers(n, len(tl.tiles))
	scr := newScratch(tl, nw)
	frob2, trace := make([]float64, len(tl.tiles)), make([]float64, len(tl.tiles))
	err = run(ctx, partitionRange(areaCost(tl), o.lo, o.hi, nw), func(p, i int) {
		t := tl.tiles[i]
		a := o.tile(i, scr[p].a)
		compute(rows, blk, t, a)
		frob2[i], trace[i] = tl.centre(a, t, mean, grand)
	}, pc.tickFunc())
	if err != nil {
		return nil, err
	}
	sums := []float64{sumInOrder(trace), sumInOrder(frob2)}
	if comm != nil {
		if err := comm.AllreduceSum(sums); err != nil {
			return nil, err
		}
	}
	o.st = Stats{ColMean: mean, Grand: grand, Trace: sums[0], Frob2: sums[1]}
	return o, nil
}

// passCost returns the cumulative cost of a Mul pass with k vectors over
// the tiles, for partition.
func (o *tiled) passCost(k int) []float64 {
	cum := make([]float64, len(o.tl.tiles))
	cost := 0.0
	for i, t := range o.tl.tiles {
		c := 1.0
		if o.off[i] >= 0 {
			c = cachedCost
		}
		cost += float64(t.area()) * (c + applyCost*float64(k))
		cum[i] = cost
	}
	return cum
}

// tile returns where tile i's values live: its place in the cache, or the
// scratch a.
func (o *tiled) tile(i int, a []float64) []float64 {
	area := o.tl.tiles[i].area()
	if off := o.off[i]; off >= 0 {
		return o.cache[off : off+area]
	}
	return a[:area]
}

func (o *tiled) N() int       { return o.tl.n }
func (o *tiled) Kind() Kind   { return o.kind }
func (o *tiled) Stats() Stats { return o.st }

// Bytes counts the cached tiles, the column means and the tile list.
func (o *tiled) Bytes() int64 {
	return 8*int64(len(o.cache)+len(o.st.ColMean)) + int64(len(o.tl.tiles))*(32+8+8)
}

// CachedFraction reports the fraction of the tiles' entries that are
// cached: 0 for matrix-free, 1 when the budget held every tile (of this
// rank's share, for a distributed operator).
func (o *tiled) CachedFraction() float64 {
	total := 0
	for _, t := range o.tl.tiles[o.lo:o.hi] {
		total += t.area()
	}
	if total == 0 {
		return 1
	}
	return float64(len(o.cache)) / float64(total)
}

// Evaluations reports the kernel evaluations one Mul pass computes: the
// entries of the tiles not cached (about n²/2 for matrix-free with
// Blocks, plus the lower halves of the diagonal squares; this rank's
// share of them for a distributed operator).
func (o *tiled) Evaluations() int64 {
	var e int64
	for i, t := range o.tl.tiles {
		if o.off[i] < 0 && i >= o.lo && i < o.hi {
			e += int64(t.area())
		}
	}
	return e
}

func (o *tiled) Mul(ctx context.Context, dst, v []float64, k int) error {
	n := o.tl.n
	checkMul(n, dst, v, k)
	if k == 0 || n == 0 {
		return ctx.Err()
	}
	nw := workers(n, o.hi-o.lo)
	accs := accumulators(dst, k, n, nw)
	scr := newScratch(o.tl, nw)
	m, g := o.st.ColMean, o.st.Grand
	err := run(ctx, partitionRange(o.passCost(k), o.lo, o.hi, nw), func(p, i int) {
		t := o.tl.tiles[i]
		a := o.tile(i, scr[p].a)
		if o.off[i] < 0 {
			compute(o.rows, o.blk, t, a)
			o.tl.centre(a, t, m, g)
		}
		o.tl.apply(a, t, v, k, accs[p])
	}, nil)
	if err != nil {
		return err
	}
	reduce(accs)
	if o.comm != nil {
		return o.comm.AllreduceSum(dst[:k*n])
	}
	return nil
}
