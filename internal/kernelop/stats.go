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
// is symmetric. It returns the column means and the grand mean.
func columnMeans(ctx context.Context, tl *tiling, rows Rows, blk Blocks, tick func()) (mean []float64, grand float64, err error) {
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
	err = run(ctx, partition(areaCost(tl), nw), func(p, i int) {
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
