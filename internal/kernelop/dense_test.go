package kernelop

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/kpls-go/kpls/blas"
)

// TestDenseBlocks checks the dense operator's block products on both sides
// of symmMinN (Dgemm below, the one-read Dsymm from it on) and of
// symmMaxVectors against sums written out entry by entry. The TestConformance
// sizes are all below symmMinN.
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
		op := NewDense(kc, n, Stats{ColMean: make([]float64, n)}, blas.Default())
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
