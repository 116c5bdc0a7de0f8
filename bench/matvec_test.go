package bench

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"

	gblas "gonum.org/v1/gonum/blas"

	"github.com/kpls-go/kpls/blas"
	"github.com/kpls-go/kpls/internal/simd"
)

var matSizes = []int{1024, 4096, 8192}

// symMatrix returns a shared random symmetric n×n matrix, built once: at
// n = 8192 it is 512 MiB.
var symMatrix = func() func(n int) []float64 {
	cache := map[int][]float64{}
	return func(n int) []float64 {
		if a, ok := cache[n]; ok {
			return a
		}
		clear(cache) // keep one large matrix alive at a time
		rng := rand.New(rand.NewPCG(uint64(n), 1))
		a := make([]float64, n*n)
		for i := range n {
			for j := i; j < n; j++ {
				v := rng.Float64()
				a[i*n+j], a[j*n+i] = v, v
			}
		}
		cache[n] = a
		return a
	}
}()

func randVec(n int) []float64 {
	rng := rand.New(rand.NewPCG(2, uint64(n)))
	v := make([]float64, n)
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	return v
}

var sink float64

// BenchmarkReadBandwidth measures how fast an n×n matrix can be read: the
// limit for matrix–vector products that do not fit in cache. The sum is
// vectorised (simd.Sum), so that loads, not additions, are the limit.
func BenchmarkReadBandwidth(b *testing.B) {
	for _, n := range matSizes {
		for _, threads := range []int{1, runtime.GOMAXPROCS(0)} {
			b.Run(fmt.Sprintf("n=%d/threads=%d", n, threads), func(b *testing.B) {
				a := symMatrix(n)
				b.SetBytes(int64(8 * len(a)))
				parts := make([]float64, threads)
				b.ReportAllocs()
				for b.Loop() {
					var wg sync.WaitGroup
					for p := range threads {
						lo, hi := p*len(a)/threads, (p+1)*len(a)/threads
						wg.Go(func() { parts[p] = simd.Sum(a[lo:hi]) })
					}
					wg.Wait()
					sink += parts[0]
				}
				reportGBs(b, 8*len(a))
			})
		}
	}
}

// reportGBs adds a GB/s metric (10⁹ bytes) for bytes read per operation.
func reportGBs(b *testing.B, bytes int) {
	b.ReportMetric(float64(bytes)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
}

// backends lists the BLAS backends of this build.
func backends(b *testing.B) []blas.Float64 {
	var out []blas.Float64
	for _, name := range blas.Available() {
		impl, err := blas.ByName(name)
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, impl)
	}
	return out
}

// BenchmarkSymv is y = K·x for a symmetric n×n K given by its upper
// triangle, the product each KPLS component needs. Bytes are those of the
// triangle, which is all a Dsymv reads.
func BenchmarkSymv(b *testing.B) {
	for _, impl := range backends(b) {
		for _, n := range matSizes {
			b.Run(fmt.Sprintf("backend=%s/n=%d", blas.Name(impl), n), func(b *testing.B) {
				a, x, y := symMatrix(n), randVec(n), make([]float64, n)
				bytes := 8 * n * (n + 1) / 2
				b.SetBytes(int64(bytes))
				b.ReportAllocs()
				for b.Loop() {
					impl.Dsymv(gblas.Upper, n, 1, a, n, x, 1, 0, y, 1)
				}
				reportGBs(b, bytes)
			})
		}
	}
}

// BenchmarkGemv is y = A·x reading all of the n×n A: what a symmetric
// product costs when it ignores symmetry.
func BenchmarkGemv(b *testing.B) {
	for _, impl := range backends(b) {
		for _, n := range matSizes {
			b.Run(fmt.Sprintf("backend=%s/n=%d", blas.Name(impl), n), func(b *testing.B) {
				a, x, y := symMatrix(n), randVec(n), make([]float64, n)
				b.SetBytes(int64(8 * n * n))
				b.ReportAllocs()
				for b.Loop() {
					impl.Dgemv(gblas.NoTrans, n, n, 1, a, n, x, 1, 0, y, 1)
				}
				reportGBs(b, 8*n*n)
			})
		}
	}
}

// BenchmarkGemm is C = A·K for an m×n A and the n×n symmetric K: with
// m = 17 the product the approximate DoF repeats (16 probes and y), with
// m = 128 the one the confidence bands repeat (a block of points). op=NN
// passes K as it is, op=NT as Kᵀ (the same matrix), which lets a backend
// take dot products of rows. GFMA/s counts multiply–adds.
func BenchmarkGemm(b *testing.B) {
	for _, impl := range backends(b) {
		for _, s := range []struct{ m, n int }{{17, 4096}, {17, 8192}, {128, 4096}} {
			for _, op := range []gblas.Transpose{gblas.NoTrans, gblas.Trans} {
				m, n := s.m, s.n
				name := map[gblas.Transpose]string{gblas.NoTrans: "NN", gblas.Trans: "NT"}[op]
				b.Run(fmt.Sprintf("backend=%s/op=%s/m=%d/n=%d", blas.Name(impl), name, m, n), func(b *testing.B) {
					k, a, c := symMatrix(n), randVec(m*n), make([]float64, m*n)
					b.SetBytes(int64(8 * n * n))
					b.ReportAllocs()
					for b.Loop() {
						impl.Dgemm(gblas.NoTrans, op, m, n, n, 1, a, n, k, n, 0, c, n)
					}
					reportGBs(b, 8*n*n)
					b.ReportMetric(float64(m*n*n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFMA/s")
				})
			}
		}
	}
}
