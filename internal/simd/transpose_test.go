package simd

import (
	"math"
	"math/rand/v2"
	"testing"
)

func transposeCase(t *testing.T, rng *rand.Rand, h, w, padS, padD int) {
	t.Helper()
	lds, ldd := w+padS, h+padD
	src := randVec(rng, max(h*lds, 1))
	dst := guarded(w * ldd)
	Transpose(dst[guard:guard+w*ldd], ldd, src, lds, h, w)
	checkGuards(t, dst, w*ldd)
	for j := range w {
		for i := range ldd {
			got := dst[guard+j*ldd+i]
			if i >= h {
				if !math.IsNaN(got) {
					t.Fatalf("h=%d w=%d: wrote padding at %d,%d", h, w, j, i)
				}
				continue
			}
			if got != src[i*lds+j] {
				t.Fatalf("h=%d w=%d lds=%d ldd=%d: dst[%d,%d] = %v, want %v", h, w, lds, ldd, j, i, got, src[i*lds+j])
			}
		}
	}
}

func TestTranspose(t *testing.T) {
	bothPaths(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(30, 31))
		for h := range 19 {
			for w := range 11 {
				transposeCase(t, rng, h, w, rng.IntN(3), rng.IntN(3))
			}
		}
		transposeCase(t, rng, 128, 128, 0, 0)
	})
}

func FuzzTranspose(f *testing.F) {
	f.Add(uint64(1), uint8(9), uint8(13), uint8(1), uint8(2))
	f.Add(uint64(2), uint8(8), uint8(4), uint8(0), uint8(0))
	f.Add(uint64(3), uint8(17), uint8(12), uint8(3), uint8(0))
	f.Fuzz(func(t *testing.T, seed uint64, h, w, padS, padD uint8) {
		rng := rand.New(rand.NewPCG(seed, 32))
		transposeCase(t, rng, int(h%70), int(w%70), int(padS%5), int(padD%5))
	})
}
