package simd

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/kpls-go/kpls/internal/hugepage"
)

// BenchmarkSymvBlock is SymvBlock on an 8192×8192 matrix (a 256 MiB
// triangle, far beyond the caches; on transparent huge pages where the
// system gives them, as the library's kernel matrices are) with k
// vectors, on the SIMD path in use and, on an AVX-512 machine, also on its
// AVX2 path. Its rows are ld apart: 8192, where eight consecutive rows
// fall in one set of the first-level cache, or 8200, the stride
// kernelop.DenseStride gives, where they fall in eight. prefetch=off
// clears symvPrefetch. The metric GFMA/s counts the k·n² multiply–adds of
// the symmetric product; the machine's FMA peak and its read bandwidth
// (bench's BenchmarkReadBandwidth) bound it. Compare variants in one run,
// interleaved:
//
//	go test -run '^$' -bench SymvBlock -benchtime 10x -count 8 ./internal/simd/
func BenchmarkSymvBlock(b *testing.B) {
	const n = 8192
	rng := rand.New(rand.NewPCG(1, 2))
	a := make([]float64, n*(n+8))
	hugepage.Float64s(a)
	for i := range a {
		a[i] = rng.Float64()
	}
	paths := []string{"default"}
	if useAVX512 {
		paths = append(paths, "avx2")
	}
	for _, path := range paths {
		for _, k := range []int{2, 5, 9} {
			x, y := make([]float64, k*n), make([]float64, k*n)
			for i := range x {
				x[i] = rng.Float64()
			}
			for _, ld := range []int{n, n + 8} {
				for _, pf := range []string{"on", "off"} {
					b.Run(fmt.Sprintf("path=%s/n=%d/ld=%d/k=%d/prefetch=%s", path, n, ld, k, pf), func(b *testing.B) {
						defer func(p, v bool) { symvPrefetch, useAVX512 = p, v }(symvPrefetch, useAVX512)
						symvPrefetch = pf == "on"
						if path == "avx2" {
							useAVX512 = false
						}
						for b.Loop() {
							SymvBlock(k, n, 1, a, ld, x, n, 0, y, n)
						}
						sec := b.Elapsed().Seconds() / float64(b.N)
						b.ReportMetric(float64(k)*n*n/sec/1e9, "GFMA/s")
					})
				}
			}
		}
	}
}
