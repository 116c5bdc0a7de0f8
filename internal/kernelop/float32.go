package kernelop

import (
	"context"

	"github.com/kpls-go/kpls/internal/hugepage"
)

// packed is K_c's upper triangle in float32, packed by rows: row i holds
// columns i..n−1 from offset start(i). Packing, not full or tiled
// symmetric storage, because it is the least memory (2n(n+1) bytes; 4.2 GB
// at n = 45,730) and every row is one contiguous stretch for the product.
type packed struct {
	p  []float32
	n  int
	st Stats
	tl *tiling // the upper triangle's tiles, for products with blocks
}

// start returns the offset of row i in the packed triangle.
func (o *packed) start(i int) int { return i*o.n - i*(i-1)/2 }

// NewFloat32 returns K_c stored as float32, built in two passes over the
// upper triangle from rows: the first for the column means, the second
// centring each tile in float64 and only then rounding it. Each stored
// entry is therefore within 2⁻²⁴|K_c,ij| of the float64 K_c (or 2⁻¹⁵⁰ in
// float32's subnormal range); products accumulate in float64, so a product
// errs by at most 2⁻²⁴·Σ_j|K_c,ij||v_j| beyond float64 rounding. Not for
// near-identity kernels or fits near breakdown, whose DoF depend on the
// digits this loses.
//
// buf, when it holds at least n(n+1)/2 entries, becomes the storage, so
// that a caller building one operator after another (a grid of widths)
// reuses 2n² bytes instead of allocating them per operator; the caller
// must not use buf, or an operator built in it before, while this one
// lives. nil allocates.
func NewFloat32(ctx context.Context, rows Rows, buf []float32, progress Progress) (Operator, error) {
	n := rows.N()
	blk, _ := rows.(Blocks)
	tl := newTiling(n, blk != nil)
	pc := newProgress(progress, passes(rows)*len(tl.tiles))
	mean, grand, err := columnMeans(ctx, tl, rows, blk, pc.tickFunc())
	if err != nil {
		return nil, err
	}
	size := n * (n + 1) / 2
	if len(buf) < size {
		buf = make([]float32, size)
	}
	hugepage.Float32s(buf[:size])
	o := &packed{p: buf[:size], n: n, tl: tl}
	nw := workers(n, len(tl.tiles))
	scr := newScratch(tl, nw)
	frob2, trace := make([]float64, len(tl.tiles)), make([]float64, len(tl.tiles))
	sFrob2, sTrace := make([]float64, len(tl.tiles)), make([]float64, len(tl.tiles))
	err = run(ctx, partition(areaCost(tl), nw), func(p, i int) {
		t := tl.tiles[i]
		a := scr[p].a[:t.area()]
		compute(rows, blk, t, a)
		frob2[i], trace[i] = tl.centre(a, t, mean, grand)
		// Store the entries on and right of the diagonal; tiles are
		// disjoint in those, so goroutines write disjoint memory.
		w := t.c1 - t.c0
		for r := t.r0; r < t.r1; r++ {
			j0 := max(t.c0, r)
			if j0 >= t.c1 {
				continue
			}
			src := a[(r-t.r0)*w+j0-t.c0 : (r-t.r0)*w+w]
			dst := o.p[o.start(r)+j0-r:]
			dst = dst[:len(src)]
			off := pack32(dst, src)
			if j0 == r { // the diagonal entry counts once, the others twice
				d := float64(dst[0])
				sTrace[i] += d
				off -= d * d / 2
			}
			sFrob2[i] += 2 * off
		}
	}, pc.tickFunc())
	if err != nil {
		return nil, err
	}
	o.st = Stats{ColMean: mean, Grand: grand, Trace: sumInOrder(trace), Frob2: sumInOrder(frob2),
		StoredTrace: sumInOrder(sTrace), StoredFrob2: sumInOrder(sFrob2)}
	return o, nil
}

// pack32 rounds src into dst and returns Σ float64(dst[j])². Four sums,
// not one: a single running sum is a chain of dependent adds, four
// cycles an entry, which made packing half of the construction pass's
// time (pprof of protein's cross-validation).
func pack32(dst []float32, src []float64) float64 {
	dst = dst[:len(src)]
	var s0, s1, s2, s3 float64
	j := 0
	for ; j+4 <= len(src); j += 4 {
		a, b, c, d := float32(src[j]), float32(src[j+1]), float32(src[j+2]), float32(src[j+3])
		dst[j], dst[j+1], dst[j+2], dst[j+3] = a, b, c, d
		s0 += float64(a) * float64(a)
		s1 += float64(b) * float64(b)
		s2 += float64(c) * float64(c)
		s3 += float64(d) * float64(d)
	}
	for ; j < len(src); j++ {
		a := float32(src[j])
		dst[j] = a
		s0 += float64(a) * float64(a)
	}
	return (s0 + s1) + (s2 + s3)
}

func (o *packed) N() int       { return o.n }
func (o *packed) Kind() Kind   { return KindFloat32 }
func (o *packed) Stats() Stats { return o.st }
func (o *packed) Bytes() int64 { return 4*int64(len(o.p)) + 8*int64(len(o.st.ColMean)) }

// tileMinVectors is the block size from which Mul widens each tile of the
// triangle to float64 once and applies it to all the vectors with the
// tiled operators' gemm-based apply: the row-group kernel re-reads and
// re-widens its rows once per vector, which for blocks (the approximate
// DoF multiplies the fit's scores and its probes) is compute-bound at a
// fraction of what a register-blocked product does.
const tileMinVectors = 16

// Mul multiplies the triangle row band by row band (upper.mul), each
// entry widened once for up to six vectors (symRank4); blocks of
// tileMinVectors or more vectors go tile by tile instead.
func (o *packed) Mul(ctx context.Context, dst, v []float64, k int) error {
	n := o.n
	checkMul(n, dst, v, k)
	if k == 0 || n == 0 {
		return ctx.Err()
	}
	if k >= tileMinVectors {
		return o.mulTiles(ctx, dst, v, k)
	}
	return (&upper[float32]{data: o.p, n: n, packed: true}).mul(ctx, dst, v, k)
}

// mulTiles is Mul through the tiles of the upper triangle: each tile is
// widened to float64 (the diagonal squares in full, from the mirror) and
// applied to both sides for all k vectors, as the tiled operators do.
func (o *packed) mulTiles(ctx context.Context, dst, v []float64, k int) error {
	n, tl := o.n, o.tl
	nw := workers(n, len(tl.tiles))
	accs := accumulators(dst, k, n, nw)
	scr := newScratch(tl, nw)
	err := run(ctx, partition(areaCost(tl), nw), func(p, i int) {
		t := tl.tiles[i]
		a := scr[p].a[:t.area()]
		o.widen(t, a)
		tl.apply(a, t, v, k, accs[p])
	}, nil)
	if err != nil {
		return err
	}
	reduce(accs)
	return nil
}

// widen fills a with the tile t of K_c in float64: entries on and right
// of the diagonal from their rows, those left of it (in a diagonal
// square) from their mirror images.
func (o *packed) widen(t tile, a []float64) {
	w := t.c1 - t.c0
	for r := t.r0; r < t.r1; r++ {
		dst := a[(r-t.r0)*w : (r-t.r0+1)*w]
		c := t.c0
		for ; c < min(r, t.c1); c++ {
			dst[c-t.c0] = float64(o.p[o.start(c)+r-c])
		}
		if c < t.c1 {
			src := o.p[o.start(r)+c-r : o.start(r)+t.c1-r]
			for j, x := range src {
				dst[c-t.c0+j] = float64(x)
			}
		}
	}
}
