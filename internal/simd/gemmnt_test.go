package simd

import (
	"math"
	"math/rand/v2"
	"testing"
)

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
					gemmCase(t, rng, m, n, k, "GemmNT")
				}
			}
		}
		gemmCase(t, rng, 17, 600, 2500, "GemmNT") // several inner chunks, parallel by columns
		gemmCase(t, rng, 5, 6, 3001, "GemmNT")    // one worker, chunk tails
	})
}

// TestGemmNTSerial checks the single-goroutine entry point against the
// triple loop, on shapes large enough that GemmNT would split them.
func TestGemmNTSerial(t *testing.T) {
	allPaths(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(22, 23))
		for _, s := range []struct{ m, n, k int }{{0, 5, 3}, {4, 0, 3}, {3, 4, 0}, {192, 192, 24}, {7, 301, 1500}, {50, 1001, 72}} {
			m, n, k := s.m, s.n, s.k
			lda, ldb, ldc := k+1, k+2, n+3
			a, b := randMat(rng, m, k, lda), randMat(rng, n, k, ldb)
			c := randMat(rng, m, n, ldc)
			want := make([]float64, len(c))
			for i := range m {
				for j := range n {
					var dot float64
					for l := range k {
						dot += a[i*lda+l] * b[j*ldb+l]
					}
					want[i*ldc+j] = -2*dot + 0.5*c[i*ldc+j]
				}
			}
			GemmNTSerial(m, n, k, -2, a, lda, b, ldb, 0.5, c, ldc)
			for i := range m {
				for j := range n {
					if !closeTo(c[i*ldc+j], want[i*ldc+j], 10*math.Sqrt(float64(k+1))) {
						t.Fatalf("m=%d n=%d k=%d: C[%d,%d] = %v, want %v", m, n, k, i, j, c[i*ldc+j], want[i*ldc+j])
					}
				}
			}
		}
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
