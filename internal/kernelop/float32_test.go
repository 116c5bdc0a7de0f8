package kernelop

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestFloat32Stretches multiplies a random packed triangle past one
// stretch of columns (groupChunk), with partial four-row groups and
// leftover rows, by blocks of 1, 2, 3 and 5 vectors (pairs, a single one
// left over, the prefetching shares), on every kernel path, against the
// symmetric product written out entry by entry in float64 from the same
// float32 entries. Bound: the two sum n products in different orders, so
// they differ by at most 2(n+8)ε times the sum of the absolute terms.
func TestFloat32Stretches(t *testing.T) {
	rank4Paths(t, func(t *testing.T) {
		for _, n := range []int{2*groupChunk + 5, groupChunk + 7} {
			rng := rand.New(rand.NewPCG(uint64(n), 7))
			o := &packed{p: make([]float32, n*(n+1)/2), n: n}
			for i := range o.p {
				o.p[i] = float32(rng.NormFloat64())
			}
			entry := func(i, j int) float64 {
				if j < i {
					i, j = j, i
				}
				return float64(o.p[o.start(i)+j-i])
			}
			for _, k := range []int{1, 2, 3, 5} {
				t.Run(fmt.Sprintf("n=%d/k=%d", n, k), func(t *testing.T) {
					v := make([]float64, k*n)
					for i := range v {
						v[i] = rng.NormFloat64()
					}
					dst := make([]float64, k*n)
					if err := o.Mul(context.Background(), dst, v, k); err != nil {
						t.Fatal(err)
					}
					row := make([]float64, n)
					for i := range n {
						for j := range row {
							row[j] = entry(i, j)
						}
						for q := range k {
							var want, abs float64
							for j, x := range v[q*n : q*n+n] {
								a := row[j] * x
								want += a
								abs += math.Abs(a)
							}
							if d := math.Abs(dst[q*n+i] - want); !(d <= 2*float64(n+8)*0x1p-52*abs) {
								t.Fatalf("vector %d entry %d: %v, by the definition %v", q, i, dst[q*n+i], want)
							}
						}
					}
				})
			}
		}
	})
}
