package kernelop

import (
	"context"

	"github.com/kpls-go/kpls/internal/simd"
)

// scratch is one goroutine's space for a tile.
type scratch struct{ a []float64 }

func newScratch(tl *tiling, nw int) []scratch {
	s := make([]scratch, nw)
	for p := range s {
		s[p] = scratch{a: make([]float64, tl.maxArea())}
	}
	return s
}

// areaCost returns the cumulative areas of the tiles, the cost of a pass
// that computes every tile, for partition.
func areaCost(tl *tiling) []float64 {
	cum := make([]float64, len(tl.tiles))
	s := 0.0
	for i, t := range tl.tiles {
		s += float64(t.area())
		cum[i] = s
	}
	return cum
}

// columnMeans is the first construction pass: the uncentred product K·1
// over the tiles, i.e. the row sums of K, which are its column sums since K
// is symmetric. It returns the column means and the grand mean. Only the
// tiles [lo, hi) are computed; over a comm (not nil) every rank's sums are
// added.
func columnMeans(ctx context.Context, tl *tiling, rows Rows, blk Blocks, lo, hi int, comm Comm, tick func()) (mean []float64, grand float64, err error) {
	if k, ok := rows.(known); ok {
		m, g := k.means()
		return m, g, ctx.Err()
	}
	n := tl.n
	nw := workers(n, len(tl.tiles))
	ones := make([]float64, n)
	for i := range ones {
		ones[i] = 1
	}
	accs := make([][]float64, nw)
	for p := range accs {
		accs[p] = make([]float64, n)
	}
	scr := newScratch(tl, nw)
	err = run(ctx, partitionRange(areaCost(tl), lo, hi, nw), func(p, i int) {
		t := tl.tiles[i]
		a := scr[p].a[:t.area()]
		compute(rows, blk, t, a)
		tl.apply(a, t, ones, 1, accs[p])
	}, tick)
	if err != nil {
		return nil, 0, err
	}
	mean = accs[0]
	for _, acc := range accs[1:] {
		for j, v := range acc {
			mean[j] += v
		}
	}
	if comm != nil {
		if err := comm.AllreduceSum(mean); err != nil {
			return nil, 0, err
		}
	}
	if n == 0 {
		return mean, 0, nil
	}
	inv := 1 / float64(n)
	for j := range mean {
		mean[j] *= inv
	}
	return mean, simd.Sum(mean) * inv, nil
}

// sumInOrder adds per-tile contributions in tile order, so that the stats
// do not depend on the number of goroutines.
func sumInOrder(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v
	}
	return s
}

// WithMeans returns rows that carry K's column means and grand mean from
// an earlier operator over the same rows (its Stats.ColMean and Grand):
// operators built over them skip the first construction pass, which would
// compute the same numbers again. Cross-validation rebuilds a fold's
// matrix each time it grows the fold's fit, since the folds share one
// buffer. mean is kept, not copied. The result implements Blocks when
// rows does.
func WithMeans(rows Rows, mean []float64, grand float64) Rows {
	if len(mean) != rows.N() {
		panic("kernelop: WithMeans: wrong number of means")
	}
	if b, ok := rows.(Blocks); ok {
		return knownBlocks{b, mean, grand}
	}
	return knownRows{rows, mean, grand}
}

// known is rows with their means attached (WithMeans).
type known interface{ means() ([]float64, float64) }

type knownRows struct {
	r     Rows
	mean  []float64
	grand float64
}

func (k knownRows) N() int                         { return k.r.N() }
func (k knownRows) Rows(dst []float64, r0, r1 int) { k.r.Rows(dst, r0, r1) }
func (k knownRows) means() ([]float64, float64)    { return k.mean, k.grand }

type knownBlocks struct {
	Blocks
	mean  []float64
	grand float64
}

func (k knownBlocks) means() ([]float64, float64) { return k.mean, k.grand }

// passes is the number of construction passes over rows: one when the
// means are known, else two.
func passes(rows Rows) int {
	if _, ok := rows.(known); ok {
		return 1
	}
	return 2
}
