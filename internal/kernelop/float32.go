package kernelop

import (
	"context"
	"math"
	"sync"

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
	mean, grand, err := columnMeans(ctx, tl, rows, blk, 0, len(tl.tiles), nil, pc.tickFunc())
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

// groupChunk is the columns of a four-row group multiplied with every
// vector before moving on, so that for k > 1 the four stretches of rows
// (4 × 2048 × 4 B = 32 KiB) are read from memory once, not k times.
const groupChunk = 2048

// ctxRows is the rows of the triangle between context checks.
const ctxRows = 256

// tileMinVectors is the block size from which Mul widens each tile of the
// triangle to float64 once and applies it to all the vectors with the
// tiled operators' gemm-based apply: the AVX2 row-group kernel re-reads
// and re-widens its rows once per vector, which for blocks (the
// approximate DoF multiplies the fit's scores and its probes) is
// compute-bound at a fraction of what a register-blocked product does.
// With AVX-512 the rows are widened once per pair of vectors and the
// row groups stay ahead up to 64 vectors (n = 8192: 132 against 165 ms;
// at 128 vectors 382 against 292).
func tileMinVectors() int {
	if useAVX512 {
		return 96
	}
	return 16
}

// Mul splits the triangle's rows into bands of equal area, one per
// goroutine (static, so the rounding is the same from call to call), each
// adding both the row side and the mirror image into its own accumulator.
// Blocks of tileMinVectors() or more vectors go tile by tile instead.
func (o *packed) Mul(ctx context.Context, dst, v []float64, k int) error {
	n := o.n
	checkMul(n, dst, v, k)
	if k == 0 || n == 0 {
		return ctx.Err()
	}
	if k >= tileMinVectors() {
		return o.mulTiles(ctx, dst, v, k)
	}
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
	errs := make([]error, nw)
	var wg sync.WaitGroup
	for p := range nw {
		wg.Go(func() { errs[p] = o.mulRows(ctx, bounds[p], bounds[p+1], v, k, accs[p]) })
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
// times the k vectors v into acc: groups of four rows share every load of
// v and acc; the 4×4 diagonal block and leftover rows are done entry by
// entry.
func (o *packed) mulRows(ctx context.Context, r0, r1 int, v []float64, k int, acc []float64) error {
	n := o.n
	i := r0
	for ; i+4 <= r1; i += 4 {
		if (i-r0)%ctxRows == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		for q := range k {
			o.diag(i, 4, v[q*n:q*n+n], acc[q*n:q*n+n])
		}
		var rs [4][]float32
		for r := range rs {
			rs[r] = o.p[o.start(i+r)+4-r : o.start(i+r)+n-i-r]
		}
		for c0 := i + 4; c0 < n; c0 += groupChunk {
			c1 := min(n, c0+groupChunk)
			a0, a1, a2, a3 := rs[0][c0-i-4:c1-i-4], rs[1][c0-i-4:c1-i-4], rs[2][c0-i-4:c1-i-4], rs[3][c0-i-4:c1-i-4]
			// Vectors in pairs: one widening of the rows serves both.
			// While they reuse the stretch in hand from the cache, the
			// first two pairs fetch two rows each of the next stretch
			// (a single pair all four), which memory would otherwise
			// deliver only once the next stretch is asked for.
			next, ok := o.nextStretch(i, c1, r1)
			q := 0
			for ; q+1 < k; q += 2 {
				var pf [4]*float32
				npf := 0
				switch {
				case !ok || q > 2: // nothing to fetch, or fetched already
				case k < 4:
					pf, npf = next, 4
				case q == 0:
					pf, npf = next, 2
				default: // q == 2: the other two rows
					pf, npf = [4]*float32{next[2], next[3]}, 2
				}
				x0, y0 := v[q*n:q*n+n], acc[q*n:q*n+n]
				x1, y1 := v[(q+1)*n:(q+2)*n], acc[(q+1)*n:(q+2)*n]
				s := rank4x2(a0, a1, a2, a3, x0[c0:c1], y0[c0:c1], x1[c0:c1], y1[c0:c1],
					[2][4]float64{{x0[i], x0[i+1], x0[i+2], x0[i+3]}, {x1[i], x1[i+1], x1[i+2], x1[i+3]}}, &pf, npf)
				for r := range 4 {
					y0[i+r] += s[0][r]
					y1[i+r] += s[1][r]
				}
			}
			if q < k {
				x, y := v[q*n:q*n+n], acc[q*n:q*n+n]
				s := rank4(a0, a1, a2, a3, x[c0:c1], y[c0:c1], [4]float64{x[i], x[i+1], x[i+2], x[i+3]})
				for r, sr := range s {
					y[i+r] += sr
				}
			}
		}
	}
	if i < r1 {
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	for ; i < r1; i++ {
		row := o.p[o.start(i) : o.start(i)+n-i]
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
	return nil
}

// nextStretch returns where the rows of the stretch after columns
// [.., c1) of the four-row group at i start: the same rows from column c1
// on, or the next group's (rows i+4.., from column i+8); false when the
// band of rows [.., r1) ends there.
func (o *packed) nextStretch(i, c1, r1 int) (pf [4]*float32, ok bool) {
	switch {
	case c1 < o.n:
		for r := range pf {
			pf[r] = &o.p[o.start(i+r)+c1-i-r]
		}
	case i+8 <= r1 && i+8 < o.n:
		for r := range pf {
			pf[r] = &o.p[o.start(i+4+r)+4-r]
		}
	default:
		return pf, false
	}
	return pf, true
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

// diag adds the h×h diagonal block at (i, i) times x into y.
func (o *packed) diag(i, h int, x, y []float64) {
	for a := range h {
		row := o.p[o.start(i+a) : o.start(i+a)+h-a]
		y[i+a] += float64(row[0]) * x[i+a]
		for b := 1; b < h-a; b++ {
			kv := float64(row[b])
			y[i+a] += kv * x[i+a+b]
			y[i+a+b] += kv * x[i+a]
		}
	}
}

// rank4Generic returns the dot products of four stretches of rows a0..a3 with x
// and adds their mirror image, x4 times the rows, into y.
func rank4Generic(a0, a1, a2, a3 []float32, x, y []float64, x4 [4]float64) (s [4]float64) {
	m := len(x)
	a0, a1, a2, a3, y = a0[:m], a1[:m], a2[:m], a3[:m], y[:m]
	x0, x1, x2, x3 := x4[0], x4[1], x4[2], x4[3]
	var s0, s1, s2, s3 float64
	for j, xj := range x {
		v0, v1, v2, v3 := float64(a0[j]), float64(a1[j]), float64(a2[j]), float64(a3[j])
		s0 += v0 * xj
		s1 += v1 * xj
		s2 += v2 * xj
		s3 += v3 * xj
		y[j] += x0*v0 + x1*v1 + x2*v2 + x3*v3
	}
	return [4]float64{s0, s1, s2, s3}
}
