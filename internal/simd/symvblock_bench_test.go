package simd

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkSymvBlock is SymvBlock on an 8192×8192 matrix (a 256 MiB
// triangle, far beyond the caches) with k vectors, on the SIMD path in
// use and, on an AVX-512 machine, also on its AVX2 path; prefetch=off
// clears symvPrefetch. The metric GFMA/s counts the k·n² multiply–adds of
// the symmetric product; the FMA peak of the machine and its read
// bandwidth (bench's BenchmarkReadBandwidth) bound it. Compare the
// prefetch variants in one run, interleaved:
//
//	go test -run '^$' -bench SymvBlock -benchtime 10x -count 8 ./internal/simd/
func BenchmarkSymvBlock(b *testing.B) {
	const n = 8192
	rng := rand.New(rand.NewPCG(1, 2))
	a := make([]float64, n*n)
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
			for _, pf := range []bool{true, false} {
				name := fmt.Sprintf("path=%s/n=%d/k=%d/prefetch=%s", path, n, k, map[bool]string{true: "on", false: "off"}[pf])
				b.Run(name, func(b *testing.B) {
					defer func(p, v bool) { symvPrefetch, useAVX512 = p, v }(symvPrefetch, useAVX512)
					symvPrefetch = pf
					if path == "avx2" {
						useAVX512 = false
					}
					for b.Loop() {
						SymvBlock(k, n, 1, a, n, x, n, 0, y, n)
					}
					sec := b.Elapsed().Seconds() / float64(b.N)
					b.ReportMetric(float64(k)*n*n/sec/1e9, "GFMA/s")
				})
			}
		}
	}
}
