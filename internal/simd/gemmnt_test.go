package simd

import (
	"math"
	"math/rand/v2"
	"testing"
)

// gemmNTCase checks GemmNT against the defining sums, including that it
// leaves the padding of C alone and ignores C when beta is zero.
func gemmNTCase(t *testing.T, rng *rand.Rand, m, n, k int) {
	t.Helper()
	lda, ldb, ldc := k+1, k+3, n+1
	a := randMat(rng, m, k, lda)
	b := randMat(rng, n, k, ldb)
	c0 := randMat(rng, m, n, ldc)
	for _, alpha := range scales {
		for _, beta := range scales {
			c := append([]float64(nil), c0...)
			if beta == 0 {
				for i := range m {
					for j := range n {
						c[i*ldc+j] = math.NaN()
					}
				}
			}
			GemmNT(m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
			for i := range m {
				for j := range ldc {
					got := c[i*ldc+j]
					if j >= n {
						if !math.IsNaN(got) {
							t.Fatalf("GemmNT wrote padding at %d,%d", i, j)
						}
						continue
					}
					var s, abs float64
					for l := range k {
						s += a[i*lda+l] * b[j*ldb+l]
						abs += math.Abs(a[i*lda+l] * b[j*ldb+l])
					}
					want := alpha * s
					if beta != 0 {
						want += beta * c0[i*ldc+j]
					}
					if !closeTo(got, want, abs+math.Abs(c0[i*ldc+j])) {
						t.Fatalf("GemmNT m=%d n=%d k=%d α=%v β=%v: C[%d,%d] = %v, want %v", m, n, k, alpha, beta, i, j, got, want)
					}
				}
			}
		}
	}
}

// allPaths runs f with the AVX-512 kernels (where the CPU has them), with
// AVX2 alone and with the generic twins.
func allPaths(t *testing.T, f func(t *testing.T)) {
	bothPaths(t, f)
	t.Run("avx2", func(t *testing.T) { withoutAVX512(func() { f(t) }) })
}

func TestGemmNT(t *testing.T) {
	allPaths(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(18, 19))
		for _, m := range []int{0, 1, 2, 3, 4, 7} {
			for _, n := range []int{0, 1, 3, 4, 5, 9} {
				for _, k := range []int{0, 1, 3, 4, 9} {
					gemmNTCase(t, rng, m, n, k)
				}
			}
		}
		gemmNTCase(t, rng, 17, 600, 2500) // several inner chunks, parallel by columns
		gemmNTCase(t, rng, 5, 6, 3001)    // one worker, chunk tails
	})
}

// TestGemmNTSymmetric checks the use kpls makes of it: for a symmetric K,
// A·Kᵀ equals Gemm's A·K.
func TestGemmNTSymmetric(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 21))
	n, m := 203, 17
	k := make([]float64, n*n)
	for i := range n {
		for j := i; j < n; j++ {
			v := rng.NormFloat64()
			k[i*n+j], k[j*n+i] = v, v
		}
	}
	a := randMat(rng, m, n, n)
	want := make([]float64, m*n)
	got := make([]float64, m*n)
	Gemm(m, n, n, 1, a, n, k, n, 0, want, n)
	GemmNT(m, n, n, 1, a, n, k, n, 0, got, n)
	for i := range got {
		if !closeTo(got[i], want[i], 10*math.Sqrt(float64(n))) {
			t.Fatalf("entry %d: A·Kᵀ %v, A·K %v", i, got[i], want[i])
		}
	}
}

func FuzzDot3x4(f *testing.F) {
	f.Add(uint64(1), uint8(13), uint8(2), uint8(0))
	f.Add(uint64(2), uint8(4), uint8(0), uint8(5))
	f.Fuzz(func(t *testing.T, seed uint64, n, padA, padB uint8) {
		if seed&1 == 1 { // odd seeds try the AVX2 kernel where AVX-512 is used
			saved := useAVX512
			useAVX512 = false
			defer func() { useAVX512 = saved }()
		}
		rng := rand.New(rand.NewPCG(seed, 22))
		lda, ldb := int(n)+int(padA%8), int(n)+int(padB%8)
		lda, ldb = max(lda, 1), max(ldb, 1)
		a := randMat(rng, 3, int(n), lda)
		b := randMat(rng, 4, int(n), ldb)
		var got, want [12]float64
		dot3x4(a, lda, b, ldb, int(n), &got)
		dot3x4Generic(a, lda, b, ldb, int(n), &want)
		for i := range got {
			if !closeTo(got[i], want[i], 10*float64(int(n)+1)) && !(math.IsNaN(got[i]) && math.IsNaN(want[i])) {
				t.Fatalf("out[%d]: %v vs %v", i, got[i], want[i])
			}
		}
	})
}
