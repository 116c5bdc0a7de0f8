package bench

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kpls-go/kpls/internal/gram"
	"github.com/kpls-go/kpls/internal/simd"
)

// naiveRBF is the plain double loop with math.Exp over the upper triangle,
// mirrored: the baseline the tiled construction is measured against.
func naiveRBF(dst, x []float64, n, d int, width float64) {
	s := -1 / (2 * width)
	for i := range n {
		xi := x[i*d : i*d+d]
		dst[i*n+i] = 1
		for j := i + 1; j < n; j++ {
			xj := x[j*d : j*d+d]
			var s2 float64
			for k, v := range xi {
				t := v - xj[k]
				s2 += t * t
			}
			e := math.Exp(s * s2)
			dst[i*n+j] = e
			dst[j*n+i] = e
		}
	}
}

// kmatrix returns a reusable n×n destination, touched once so that page
// faults are not timed.
var kmatrix = func() func(n int) []float64 {
	var buf []float64
	return func(n int) []float64 {
		if cap(buf) < n*n {
			buf = nil
			buf = make([]float64, n*n)
			for i := range buf {
				buf[i] = 1
			}
		}
		return buf[:n*n]
	}
}()

func points(n, d int) []float64 {
	rng := rand.New(rand.NewPCG(uint64(n), uint64(d)))
	x := make([]float64, n*d)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	return x
}

// BenchmarkGram builds an RBF kernel matrix. exp/s counts the n(n−1)/2
// distinct exponentials; bytes are those of K written once.
func BenchmarkGram(b *testing.B) {
	for _, impl := range []string{"naive", "tiled"} {
		for _, n := range []int{1024, 8192} {
			for _, d := range []int{8, 64} {
				b.Run(fmt.Sprintf("impl=%s/n=%d/d=%d", impl, n, d), func(b *testing.B) {
					x, k := points(n, d), kmatrix(n)
					width := float64(d)
					b.SetBytes(int64(8 * n * n))
					b.ReportAllocs()
					for b.Loop() {
						if impl == "naive" {
							naiveRBF(k, x, n, d, width)
						} else if err := gram.RBF(context.Background(), k, n, x, n, d, width); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(n*(n-1)/2)*float64(b.N)/b.Elapsed().Seconds(), "exp/s")
				})
			}
		}
	}
}

// BenchmarkCenter double-centres an n×n kernel matrix in place (centring
// an already centred matrix costs the same).
func BenchmarkCenter(b *testing.B) {
	for _, n := range []int{1024, 8192} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			k, colMean := kmatrix(n), make([]float64, n)
			if err := gram.RBF(context.Background(), k, n, points(n, 8), n, 8, 8); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(8 * n * n))
			b.ReportAllocs()
			for b.Loop() {
				gram.CenterStats(k, n, n, colMean)
			}
		})
	}
}

// BenchmarkExp is the vectorised exp on one goroutine over a slice that
// stays in L1, against math.Exp.
func BenchmarkExp(b *testing.B) {
	x := points(4096, 1)
	for i := range x {
		x[i] = -math.Abs(x[i]) * 10
	}
	dst := make([]float64, len(x))
	for _, impl := range []string{"math", "simd"} {
		b.Run("impl="+impl, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if impl == "math" {
					for i, v := range x {
						dst[i] = math.Exp(v)
					}
				} else {
					simd.Exp(dst, x)
				}
			}
			b.ReportMetric(float64(len(x))*float64(b.N)/b.Elapsed().Seconds(), "exp/s")
		})
	}
}

// BenchmarkRBFCross builds the m×n kernel matrix between m new points and
// n training points, as prediction does.
func BenchmarkRBFCross(b *testing.B) {
	const m, n = 1024, 8192
	c := make([]float64, m*n)
	for _, d := range []int{8, 64} { // direct differences; a matrix product
		z, x := points(m, d), points(n, d)
		for _, impl := range []string{"naive", "tiled"} {
			b.Run(fmt.Sprintf("impl=%s/m=%d/n=%d/d=%d", impl, m, n, d), func(b *testing.B) {
				b.SetBytes(int64(8 * m * n))
				b.ReportAllocs()
				for b.Loop() {
					if impl == "naive" {
						naiveCross(c, z, m, x, n, d, float64(d))
					} else {
						gram.RBFCross(c, z, m, x, n, d, float64(d))
					}
				}
				b.ReportMetric(float64(m*n)*float64(b.N)/b.Elapsed().Seconds(), "exp/s")
			})
		}
	}
}

// naiveCross is the plain double loop for a cross kernel matrix.
func naiveCross(dst, z []float64, m int, x []float64, n, d int, width float64) {
	s := -1 / (2 * width)
	for i := range m {
		zi := z[i*d : i*d+d]
		for j := range n {
			xj := x[j*d : j*d+d]
			var s2 float64
			for k, v := range zi {
				t := v - xj[k]
				s2 += t * t
			}
			dst[i*n+j] = math.Exp(s * s2)
		}
	}
}

// BenchmarkProfile turns a tile of squared distances into kernel values:
// the per-entry cost of the stationary kernels' finish, which matrix-free
// and hybrid storage pay on every product. ns/entry against exp alone
// (the RBF) shows what the radial kernels' √ adds.
func BenchmarkProfile(b *testing.B) {
	profiles := []struct {
		name string
		f    gram.Profile
	}{
		{"rbf", gram.RBFProfile(2)},
		{"laplacian", gram.LaplacianProfile(2)},
		{"matern32", gram.Matern32Profile(2)},
		{"matern52", gram.Matern52Profile(2)},
	}
	const size = 64 * 64
	src := make([]float64, size)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range src {
		src[i] = 8 * rng.Float64()
	}
	t := make([]float64, size)
	for _, p := range profiles {
		b.Run("kernel="+p.name, func(b *testing.B) {
			for b.Loop() {
				copy(t, src)
				p.f(t)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/size, "ns/entry")
		})
	}
}
