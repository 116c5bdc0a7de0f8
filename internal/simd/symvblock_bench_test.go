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
// AVX2 path. The variants add this session's three changes one by one:
//   - opt=none: rows 8192 apart, where eight consecutive rows fall in one
//     set of the first-level cache; no prefetching; one vector at a time;
//   - opt=prefetch: symvPrefetch set;
//   - opt=stride: also rows 8200 apart, as kernelop.DenseStride gives,
//     in eight sets;
//   - opt=pairs: also two vectors a pass (symvPairs; AVX-512 only).
//
// The metric GFMA/s counts the k·n² multiply–adds of the symmetric
// product; the machine's FMA peak and its read bandwidth (bench's
// BenchmarkReadBandwidth) bound it. Compare variants in one run,
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
		opts := []string{"none", "prefetch", "stride"}
		if path == "default" && useAVX512 {
			opts = append(opts, "pairs")
		}
		for _, k := range []int{2, 5, 9} {
			x, y := make([]float64, k*n), make([]float64, k*n)
			for i := range x {
				x[i] = rng.Float64()
			}
			for o, opt := range opts {
				b.Run(fmt.Sprintf("path=%s/n=%d/k=%d/opt=%s", path, n, k, opt), func(b *testing.B) {
					defer func(p, q, v bool) { symvPrefetch, symvPairs, useAVX512 = p, q, v }(symvPrefetch, symvPairs, useAVX512)
					symvPrefetch, symvPairs = o >= 1, o >= 3
					ld := n
					if o >= 2 {
						ld = n + 8
					}
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
