package kernelop

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kpls-go/kpls/blas"
)

// TestDenseBlocks checks the dense operator's block products on both sides
// of symmMinN (Dgemm below, the one-read Dsymm from it on) and of
// symmMaxVectors against sums written out entry by entry. The TestConformance
// sizes are all below symmMinN. The matrix has DenseStride's rows, NaN in
// any padding, which no product may read.
func TestDenseBlocks(t *testing.T) {
	for _, n := range []int{symmMinN - 1, symmMinN} {
		rng := rand.New(rand.NewPCG(uint64(n), 9))
		kc := make([]float64, n*n)
		for i := range n {
			for j := i; j < n; j++ {
				v := rng.NormFloat64()
				kc[i*n+j], kc[j*n+i] = v, v
			}
		}
		ld := DenseStride(n)
		if n == symmMinN && ld == n {
			t.Fatalf("DenseStride(%d) = %d: the test wants padding", n, ld)
		}
		kp := make([]float64, n*ld)
		for i := range kp {
			kp[i] = math.NaN()
		}
		for i := range n {
			copy(kp[i*ld:i*ld+n], kc[i*n:i*n+n])
		}
		op := NewDense(kp, ld, n, Stats{ColMean: make([]float64, n)}, blas.Default())
		for _, k := range []int{2, symmMaxVectors, symmMaxVectors + 1} {
			t.Run(fmt.Sprintf("n=%d/k=%d", n, k), func(t *testing.T) {
				v, dst := make([]float64, k*n), make([]float64, k*n)
				for i := range v {
					v[i] = rng.NormFloat64()
				}
				if err := op.Mul(context.Background(), dst, v, k); err != nil {
					t.Fatal(err)
				}
				checkProduct(t, dst, kc, v, n, k, 1e-14)
			})
		}
	}
}

// TestDenseStride checks the stride's promises for every n up to 20,000:
// n below symmMinN; from there on a multiple of 8 (rows start on a cache
// line) with an odd count of lines, at most 15 entries of padding, so that
// eight consecutive rows (their lines at one column) fall in eight
// different sets of a 64-set first-level cache.
func TestDenseStride(t *testing.T) {
	for n := range 20001 {
		ld := DenseStride(n)
		if n < symmMinN {
			if ld != n {
				t.Fatalf("DenseStride(%d) = %d, want n", n, ld)
			}
			continue
		}
		if ld%8 != 0 || ld/8%2 != 1 || ld < n || ld-n > 15 {
			t.Fatalf("DenseStride(%d) = %d", n, ld)
		}
		sets := map[int]bool{}
		for r := range 8 {
			sets[r*ld*8/64%64] = true
		}
		if len(sets) != 8 {
			t.Fatalf("DenseStride(%d) = %d: eight rows in %d sets", n, ld, len(sets))
		}
	}
}
