package simd

import (
	"math"
	"math/rand/v2"
	"testing"
)

// sqrtInputs returns n squared distances as the kernels see them: mostly
// positive over many magnitudes, some a few ulps below zero, and the odd
// ±0, subnormal, +Inf and NaN.
func sqrtInputs(rng *rand.Rand, n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		switch rng.IntN(12) {
		case 0:
			x[i] = -1e-15 * rng.Float64()
		case 1:
			x[i] = math.Copysign(0, -1)
		case 2:
			x[i] = 0
		case 3:
			x[i] = 5e-324 * float64(1+rng.IntN(1000))
		case 4:
			x[i] = math.Inf(1)
		case 5:
			x[i] = math.NaN()
		default:
			x[i] = math.Ldexp(rng.Float64(), rng.IntN(200)-100)
		}
	}
	return x
}

// sqrtCase checks ScaledSqrt on n elements against math.Sqrt (equal, or
// both NaN), the assembly and generic paths against each other bit for
// bit, and that nothing outside dst is written.
func sqrtCase(t *testing.T, rng *rand.Rand, n int) {
	t.Helper()
	x := sqrtInputs(rng, n)
	a := math.Ldexp(0.5+rng.Float64(), rng.IntN(20)-10)
	got := guarded(n)
	ScaledSqrt(got[guard:guard+n], x, a)
	checkGuards(t, got, n)
	gen := make([]float64, n)
	withGeneric(t, func() { ScaledSqrt(gen, x, a) })
	for i, s := range x {
		want := a * math.Sqrt(math.Max(s, 0))
		g := got[guard+i]
		if !(g == want || math.IsNaN(g) && math.IsNaN(want)) {
			t.Fatalf("n=%d: %g·√max(%g, 0) = %g, math.Sqrt gives %g", n, a, s, g, want)
		}
		if math.Float64bits(g) != math.Float64bits(gen[i]) {
			t.Fatalf("n=%d, x=%g: assembly %g, generic %g", n, s, g, gen[i])
		}
	}
	// In place, as the radial profiles call it.
	in := append([]float64(nil), x...)
	ScaledSqrt(in, in, a)
	for i := range in {
		if math.Float64bits(in[i]) != math.Float64bits(got[guard+i]) {
			t.Fatalf("n=%d: in place %g, out of place %g", n, in[i], got[guard+i])
		}
	}
}

func TestScaledSqrt(t *testing.T) {
	rng := rand.New(rand.NewPCG(50, 51))
	for n := range 70 {
		sqrtCase(t, rng, n)
	}
	sqrtCase(t, rng, 10_007)
}

func FuzzScaledSqrt(f *testing.F) {
	f.Add(uint64(1), uint16(33))
	f.Add(uint64(2), uint16(16))
	f.Add(uint64(3), uint16(1000))
	f.Fuzz(func(t *testing.T, seed uint64, n uint16) {
		sqrtCase(t, rand.New(rand.NewPCG(seed, 52)), int(n%4096))
	})
}
