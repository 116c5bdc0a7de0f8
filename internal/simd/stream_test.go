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

func FuzzStreamCopy(f *testing.F) {
	f.Add(uint64(1), uint8(37), uint8(1))
	f.Add(uint64(2), uint8(16), uint8(0))
	f.Fuzz(func(t *testing.T, seed uint64, n, off uint8) {
		rng := rand.New(rand.NewPCG(seed, 22))
		src := randVec(rng, int(n))
		o := int(off % 8)
		buf := guarded(int(n) + o)
		dst := buf[guard+o : guard+o+int(n)]
		StreamCopy(dst, src)
		StreamFence()
		checkGuards(t, buf[o:], int(n))
		for i := range src {
			if dst[i] != src[i] {
				t.Fatalf("n=%d off=%d: dst[%d] = %v, want %v", n, o, i, dst[i], src[i])
			}
		}
	})
}
