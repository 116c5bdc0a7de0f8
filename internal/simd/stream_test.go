package simd

import (
	"math/rand/v2"
	"testing"
)

func TestStreamCopy(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 21))
	for off := range 5 { // destination alignments
		for n := 0; n < 70; n++ {
			src := randVec(rng, n)
			buf := guarded(n + off)
			dst := buf[guard+off : guard+off+n]
			StreamCopy(dst, src)
			StreamFence()
			checkGuards(t, buf[off:], n)
			for i := range src {
				if dst[i] != src[i] {
					t.Fatalf("off=%d n=%d: dst[%d] = %v, want %v", off, n, i, dst[i], src[i])
				}
			}
		}
	}
}
