package simd

import (
	"math"
	"math/rand/v2"
	"testing"
)

// sqDistCase checks SqDist on n points of dimension d stored with leading
// dimension ld against the generic twin (bit for bit) and against a plain
// row-major loop (to rounding), with NaN guards around dst.
func sqDistCase(t *testing.T, rng *rand.Rand, n, d, ld int) {
	t.Helper()
	x := make([]float64, n*d) // row-major, the oracle's layout
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	xt := make([]float64, d*ld)
	for i := range xt {
		xt[i] = math.NaN() // padding beyond n must never be read
	}
	for j := range n {
		for k := range d {
			xt[k*ld+j] = x[j*d+k]
		}
	}
	xi := make([]float64, d)
	for k := range xi {
		xi[k] = rng.NormFloat64()
	}
	got := guarded(n)
	SqDist(got[guard:guard+n], xt, ld, xi)
	checkGuards(t, got, n)
	want := make([]float64, n)
	sqDistGeneric(want, xt, ld, xi)
	for j := range n {
		if math.Float64bits(got[guard+j]) != math.Float64bits(want[j]) {
			t.Fatalf("n=%d d=%d ld=%d j=%d: asm %v, generic %v", n, d, ld, j, got[guard+j], want[j])
		}
		var s float64
		for k := range d {
			v := x[j*d+k] - xi[k]
			s += v * v
		}
		if !(math.Abs(s-want[j]) <= 1e-14*s) {
			t.Fatalf("n=%d d=%d j=%d: %v, naive %v", n, d, j, want[j], s)
		}
	}
}

func TestSqDist(t *testing.T) {
	allPaths(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(5, 6))
		for _, d := range []int{0, 1, 2, 3, 7, 8, 33} {
			for n := 0; n < 80; n++ {
				sqDistCase(t, rng, n, d, n+rng.IntN(3))
			}
		}
	})
}

func FuzzSqDist(f *testing.F) {
	f.Add(uint64(1), uint8(17), uint8(3), uint8(1))
	f.Add(uint64(2), uint8(4), uint8(8), uint8(0))
	f.Add(uint64(3), uint8(33), uint8(1), uint8(5))
	f.Fuzz(func(t *testing.T, seed uint64, n, d, pad uint8) {
		rng := rand.New(rand.NewPCG(seed, 7))
		if seed&1 == 1 { // odd seeds try the AVX2 kernel where AVX-512 is used
			withoutAVX512(func() { sqDistCase(t, rng, int(n), int(d%40), int(n)+int(pad%8)) })
			return
		}
		sqDistCase(t, rng, int(n), int(d%40), int(n)+int(pad%8))
	})
}
