package kernelop

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkRank4 measures the float32 row-group kernels on stretches of m
// columns, one vector a call (pairs=false) or two (pairs=true); GFMA/s
// counts both sides' multiply–adds (8 per column and vector).
func BenchmarkRank4(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, m := range []int{256, 2048} {
		c0, c1 := newRank4Case(rng, m), newRank4Case(rng, m)
		pf := [4]*float32{&c1.a[0][0], &c1.a[1][0], &c1.a[2][0], &c1.a[3][0]}
		for _, pairs := range []bool{false, true} {
			b.Run(fmt.Sprintf("m=%d/pairs=%v", m, pairs), func(b *testing.B) {
				for b.Loop() {
					if pairs {
						rank4x2(c0.a[0], c0.a[1], c0.a[2], c0.a[3], c0.x, c0.y, c1.x, c1.y, [2][4]float64{c0.x4, c1.x4}, &pf, 4)
					} else {
						rank4(c0.a[0], c0.a[1], c0.a[2], c0.a[3], c0.x, c0.y, c0.x4)
						rank4(c0.a[0], c0.a[1], c0.a[2], c0.a[3], c1.x, c1.y, c1.x4)
					}
				}
				b.ReportMetric(float64(2*8*m)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFMA/s")
			})
		}
	}
}
