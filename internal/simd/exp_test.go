package simd

import (
	"math"
	"math/rand/v2"
	"testing"
)

// ulps is the distance between two non-negative floats in units in the last
// place: the number of representable values between them.
func ulps(a, b float64) uint64 {
	if math.IsNaN(a) || math.IsNaN(b) {
		if math.IsNaN(a) && math.IsNaN(b) {
			return 0
		}
		return math.MaxUint64
	}
	ua, ub := math.Float64bits(a), math.Float64bits(b)
	if ua > ub {
		return ua - ub
	}
	return ub - ua
}

// withoutAVX512 runs f with the AVX-512 kernels switched off (AVX2 only).
func withoutAVX512(f func()) {
	saved := useAVX512
	useAVX512 = false
	defer func() { useAVX512 = saved }()
	f()
}

// withGeneric runs f with the assembly kernels switched off.
func withGeneric(t testing.TB, f func()) {
	saved := useAVX2
	useAVX2 = false
	defer func() { useAVX2 = saved }()
	f()
}

// maxExpULP returns the largest ulp error of Exp against the correctly
// rounded exp over xs.
func maxExpULP(t *testing.T, xs []float64) (worst uint64, at float64) {
	t.Helper()
	got := make([]float64, len(xs))
	Exp(got, xs)
	for i, x := range xs {
		if u := ulps(got[i], expRef(x)); u > worst {
			worst, at = u, x
		}
	}
	return worst, at
}

func TestExpAccuracy(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	ranges := []struct {
		lo, hi float64
		max    uint64
	}{
		{-1, 1, 1},
		{-40, 0, 1},
		{-708, 0, 1},
		{-745.2, -708, 1}, // subnormal results: ulps of the subnormal spacing
		{0, 709.78, 1},
		{709, 709.79, 1}, // math.Exp on amd64 wrongly overflows here
		{-1e-300, 1e-300, 0},
	}
	for _, r := range ranges {
		xs := make([]float64, 4003) // the oracle is slow; TestExpAsmMatchesGeneric covers the twin
		for i := range xs {
			xs[i] = r.lo + (r.hi-r.lo)*rng.Float64()
		}
		worst, at := maxExpULP(t, xs)
		t.Logf("[%g, %g]: max %d ulp at %v", r.lo, r.hi, worst, at)
		if worst > r.max {
			t.Errorf("[%g, %g]: %d ulp at %v, want ≤ %d", r.lo, r.hi, worst, at, r.max)
		}
	}
}

func TestExpSpecial(t *testing.T) {
	xs := []float64{
		0, math.Copysign(0, -1), 1, -1, math.Inf(-1), math.Inf(1), math.NaN(),
		-745.1332191019411, -745.1332191019412, -745.14, -746, -1e300, -math.MaxFloat64,
		709.782712893384, 709.7827128933841, 710, 1e300, math.MaxFloat64,
		-708.3964185322641, -708.4, math.SmallestNonzeroFloat64, 1e-320,
	}
	for _, mode := range []string{"asm", "avx2", "generic"} {
		gen := mode == "generic"
		for n := 1; n <= len(xs); n++ { // every length exercises the tails
			got := make([]float64, n)
			run := func() { Exp(got, xs[:n]) }
			switch mode {
			case "generic":
				withGeneric(t, run)
			case "avx2":
				withoutAVX512(run)
			default:
				run()
			}
			for i, x := range xs[:n] {
				want := expRef(x)
				if u := ulps(got[i], want); u > 1 || (want == 0 || math.IsInf(want, 0)) && got[i] != want {
					t.Errorf("generic=%v: Exp(%v) = %v, want %v", gen, x, got[i], want)
				}
			}
		}
	}
}

// TestExpAsmMatchesGeneric checks that the kernel and its twin agree bit
// for bit on every length, and that the kernel writes nothing outside dst.
func TestExpAsmMatchesGeneric(t *testing.T) {
	t.Run("asm", testExpAsmMatchesGeneric)
	t.Run("avx2", func(t *testing.T) { withoutAVX512(func() { testExpAsmMatchesGeneric(t) }) })
}

func testExpAsmMatchesGeneric(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for n := 0; n < 70; n++ {
		x := make([]float64, n)
		for i := range x {
			x[i] = 1500*rng.Float64() - 760
		}
		s := rng.Float64() * 2
		got := guarded(n)
		ScaledExp(got[guard:guard+n], x, s)
		checkGuards(t, got, n)
		want := make([]float64, n)
		expGeneric(want, x, s)
		for i := range want {
			if math.Float64bits(got[guard+i]) != math.Float64bits(want[i]) {
				t.Fatalf("n=%d i=%d: asm %v, generic %v", n, i, got[guard+i], want[i])
			}
		}
	}
}

func FuzzExp(f *testing.F) {
	f.Add(0.0, 1.0, -745.2, 709.8, 1.0)
	f.Add(math.NaN(), math.Inf(-1), math.Inf(1), -0.5, -0.5)
	f.Add(-708.4, 1e-300, 3.0, -40.0, 2.0)
	f.Fuzz(func(t *testing.T, a, b, c, d, s float64) {
		x := []float64{a, b, c, d, d, c, b, a, a, b, c, d, s}
		got := make([]float64, len(x))
		ScaledExp(got, x, s)
		got2 := make([]float64, len(x))
		withoutAVX512(func() { ScaledExp(got2, x, s) })
		want := make([]float64, len(x))
		expGeneric(want, x, s)
		for i := range x {
			if g2, w := got2[i], want[i]; math.Float64bits(g2) != math.Float64bits(w) && !(math.IsNaN(g2) && math.IsNaN(w)) {
				t.Fatalf("exp(%v·%v): avx2 %v, generic %v", s, x[i], g2, w)
			}
			g, w := got[i], want[i]
			if math.Float64bits(g) != math.Float64bits(w) && !(math.IsNaN(g) && math.IsNaN(w)) {
				t.Fatalf("exp(%v·%v): asm %v, generic %v", s, x[i], g, w)
			}
			if e := expRef(s * x[i]); ulps(w, e) > 1 {
				t.Fatalf("exp(%v·%v) = %v, want %v", s, x[i], w, e)
			}
		}
	})
}

// TestExpVsMathExp compares with the standard library over the range kpls
// uses and beyond: within 2 ulps (each is within 1 of the truth). Above
// 709.436 math.Exp on amd64 overflows early, so the comparison stops there.
func TestExpVsMathExp(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	xs := make([]float64, 200_000)
	for i := range xs {
		xs[i] = -745.2 + (709.43+745.2)*rng.Float64()
	}
	got := make([]float64, len(xs))
	Exp(got, xs)
	for i, x := range xs {
		if u := ulps(got[i], math.Exp(x)); u > 2 {
			t.Fatalf("Exp(%v) = %v, math.Exp %v: %d ulps", x, got[i], math.Exp(x), u)
		}
	}
}
