package kernelop

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/kpls-go/kpls/blas"
	"github.com/kpls-go/kpls/internal/hugepage"
)

// BenchmarkDenseMulCancellable is the dense operator's product at
// n = 8192 (a 512 MiB matrix) with a context that cannot be cancelled
// (no checks inside the product) and with one that can (a check of
// ctx.Err() per goroutine and block of 64 rows): what the checks cost.
// Compare the two in one run (or, on a shared machine, in several runs of
// -count 1, the variants alternating within each):
//
//	go test -run '^$' -bench DenseMulCancellable -benchtime 5x -count 6 ./internal/kernelop/
func BenchmarkDenseMulCancellable(b *testing.B) {
	const n = 8192
	ld := DenseStride(n)
	rng := rand.New(rand.NewPCG(1, 2))
	kc := make([]float64, n*ld)
	hugepage.Float64s(kc)
	for i := range n {
		for j := i; j < n; j++ {
			v := rng.Float64()
			kc[i*ld+j], kc[j*ld+i] = v, v
		}
	}
	op := NewDense(kc, ld, n, Stats{ColMean: make([]float64, n)}, blas.Default())
	cancellable, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, k := range []int{1, symmMaxVectors, 32} {
		v, dst := make([]float64, k*n), make([]float64, k*n)
		for i := range v {
			v[i] = rng.Float64()
		}
		for _, c := range []struct {
			name string
			ctx  context.Context
		}{{"background", context.Background()}, {"cancellable", cancellable}} {
			b.Run(fmt.Sprintf("k=%d/ctx=%s", k, c.name), func(b *testing.B) {
				for b.Loop() {
					if err := op.Mul(c.ctx, dst, v, k); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
