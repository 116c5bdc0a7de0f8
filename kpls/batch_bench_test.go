package kpls

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// BenchmarkCVStep compares one Krylov step of five cross-validation folds
// run in lock-step on the kernel matrix over all rows (one block product
// of five vectors) with one step of a single fit on that matrix (one
// product), per storage kind. The metric ns/step is per step of all the
// folds, or of the single fit; their ratio is what cross-validation pays
// per step over a fit (issue target ≤ 1.3). Before the batch, five
// folds paid five products with their own matrices, 5·0.64 = 3.2 times
// the single fit's bytes or kernel evaluations.
//
//	go test -run '^$' -bench BenchmarkCVStep -benchtime 3x ./kpls
func BenchmarkCVStep(b *testing.B) {
	const steps, folds = 8, 5
	for _, c := range []struct {
		storage Storage
		ns      []int
	}{
		{StorageDense, []int{8192}},
		{StorageFloat32, []int{8192, 45730}},
		{StorageHybrid, []int{8192, 45730}},
		{StorageMatrixFree, []int{8192, 45730}},
	} {
		for _, n := range c.ns {
			b.Run(fmt.Sprintf("storage=%s/n=%d", c.storage, n), func(b *testing.B) {
				f, err := benchFitter(n, c.storage)
				if err != nil {
					b.Fatal(err)
				}
				op, err := f.operator(context.Background())
				if err != nil {
					b.Fatal(err)
				}
				s := &selector{n: n, folds: folds, repeats: 1, seed: 1}
				idx := s.foldIndices(0)
				cached := 1.0
				if c, ok := op.(interface{ CachedFraction() float64 }); ok {
					cached = c.CachedFraction()
				}
				b.Run("fit=single", func(b *testing.B) {
					for b.Loop() {
						if _, err := nipals(context.Background(), f.opts.Backend, op, f.yc, steps, nil); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*steps), "ns/step")
					b.ReportMetric(cached, "cached")
				})
				b.Run(fmt.Sprintf("fit=folds%d", folds), func(b *testing.B) {
					for b.Loop() {
						fb := &foldBatch{n: n}
						if err := fb.add(0, f.yc, idx, steps); err != nil {
							b.Fatal(err)
						}
						if err := fb.run(context.Background(), &f.opts, op, nil); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*steps), "ns/step")
					b.ReportMetric(cached, "cached")
				})
			})
		}
	}
}

// benchFitter sets up a fit to n Gaussian points in 9 dimensions with a
// smooth response, on the given storage (hybrid caching about half the
// triangle).
func benchFitter(n int, s Storage) (*fitter, error) {
	const d = 9
	rng := rand.New(rand.NewPCG(uint64(n), 9))
	x := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := range n {
		var sum float64
		for j := range d {
			v := rng.NormFloat64()
			x.Set(i, j, v)
			sum += v
		}
		y[i] = sum + 0.1*rng.NormFloat64()
	}
	// Room for the storage asked for; hybrid gets half the triangle's 4n²
	// bytes (BenchmarkCVStep reports the fraction cached). Until
	// 2026-11-27 hybrid had 4n², which holds nearly every tile.
	limit := StorageDense.Bytes(n)
	if s == StorageHybrid {
		limit = 2 * int64(n) * int64(n)
	}
	o := newConfig(Options{Kernel: RBF{Width: 2}, Components: 8, DoF: DoFNone}, &Data{}, &Resources{Storage: s, MemoryLimit: limit})
	f, err := newFitter(x, y, o, nil)
	return f, err
}
