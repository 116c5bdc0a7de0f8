package simd

import (
	"math"
	"math/rand/v2"
	"testing"
)

// reduceCase checks Sum and CenterRow on n elements: the assembly and the
// generic paths agree bit for bit, results match plain loops to rounding,
// and nothing outside row is written.
func reduceCase(t *testing.T, rng *rand.Rand, n int) {
	t.Helper()
	x := randVec(rng, n)
	mean := randVec(rng, n)
	c := rng.NormFloat64()

	var plain, abs float64
	for _, v := range x {
		plain += v
		abs += math.Abs(v)
	}
	got := Sum(x)
	var gen float64
	withGeneric(t, func() { gen = Sum(x) })
	if math.Float64bits(got) != math.Float64bits(gen) {
		t.Fatalf("n=%d: Sum asm %v, generic %v", n, got, gen)
	}
	if !(math.Abs(got-plain) <= 1e-14*abs) {
		t.Fatalf("n=%d: Sum %v, plain loop %v", n, got, plain)
	}

	rowA := guarded(n)
	copy(rowA[guard:], x)
	rowG := append([]float64(nil), x...)
	sqA := CenterRow(rowA[guard:guard+n], mean, c)
	checkGuards(t, rowA, n)
	var sqG float64
	withGeneric(t, func() { sqG = CenterRow(rowG, mean, c) })
	if math.Float64bits(sqA) != math.Float64bits(sqG) {
		t.Fatalf("n=%d: CenterRow asm %v, generic %v", n, sqA, sqG)
	}
	var sq float64
	for j, v := range x {
		w := v - (c + mean[j])
		sq += w * w
		if rowA[guard+j] != w || rowG[j] != w {
			t.Fatalf("n=%d: row[%d] = %v (generic %v), want %v", n, j, rowA[guard+j], rowG[j], w)
		}
	}
	if !(math.Abs(sqA-sq) <= 1e-14*sq) {
		t.Fatalf("n=%d: sum of squares %v, plain loop %v", n, sqA, sq)
	}
}

func TestReductions(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 41))
	for n := range 70 {
		reduceCase(t, rng, n)
	}
	reduceCase(t, rng, 10_007)
}

func FuzzReductions(f *testing.F) {
	f.Add(uint64(1), uint16(33))
	f.Add(uint64(2), uint16(16))
	f.Add(uint64(3), uint16(1000))
	f.Fuzz(func(t *testing.T, seed uint64, n uint16) {
		reduceCase(t, rand.New(rand.NewPCG(seed, 42)), int(n%4096))
	})
}
