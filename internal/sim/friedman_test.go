package sim

import (
	"math"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

// The regression functions at points where they can be worked out by hand.
func TestFunctionsByHand(t *testing.T) {
	cases := []struct {
		name string
		f    func([]float64) float64
		x    []float64
		want float64
	}{
		// 10 sin(π/4) + 20·0 + 10·0.5 + 5·0.5 = 5√2 + 7.5; x6.. ignored.
		{"F1 centre", F1, []float64{0.5, 0.5, 0.5, 0.5, 0.5, 9, 9, 9, 9, 9}, 5*math.Sqrt2 + 7.5},
		// 10 sin(π/2) + 20·0.25 + 0 + 5 = 20.
		{"F1 corner", F1, []float64{1, 0.5, 1, 0, 1}, 20},
		// x2 x3 − 1/(x2 x4) = 1·5 − 1/(1·1) = 4: sqrt(3² + 4²) = 5.
		{"F2 3-4-5", F2, []float64{3, 1, 5, 1}, 5},
		// 2·2.5 − 1/(2·0.5) = 4, sqrt(0 + 16) = 4.
		{"F2 x1=0", F2, []float64{0, 2, 2.5, 0.5}, 4},
		// atan(4/3).
		{"F3 3-4-5", F3, []float64{3, 1, 5, 1}, math.Atan(4.0 / 3)},
		// x2 x3 − 1/(x2 x4) = 2·1 − 1/(2·0.5) = 1 = x1: atan(1) = π/4.
		{"F3 π/4", F3, []float64{1, 2, 1, 0.5}, math.Pi / 4},
	}
	for _, c := range cases {
		if got := c.f(c.x); !near(got, c.want) {
			t.Errorf("%s: %v = %.15g, want %.15g", c.name, c.x, got, c.want)
		}
	}
}

// With zero noise every generated y is the regression function of its x,
// the features lie in their ranges, and the seed fixes the data.
func TestNoiseFree(t *testing.T) {
	gens := []struct {
		name   string
		gen    func(seed uint64) Data
		f      func([]float64) float64
		lo, hi []float64
	}{
		{"Friedman1", func(s uint64) Data { return Friedman1(500, 10, 0, s) }, F1,
			[]float64{0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, []float64{1, 1, 1, 1, 1, 1, 1, 1, 1, 1}},
		{"Friedman2", func(s uint64) Data { return Friedman2(500, 0, s) }, F2,
			[]float64{0, 40 * math.Pi, 0, 1}, []float64{100, 560 * math.Pi, 1, 11}},
		{"Friedman3", func(s uint64) Data { return Friedman3(500, 0, s) }, F3,
			[]float64{0, 40 * math.Pi, 0, 1}, []float64{100, 560 * math.Pi, 1, 11}},
	}
	for _, g := range gens {
		s := g.gen(7)
		if len(s.X) != s.N*s.D || len(s.Y) != s.N || len(s.Names) != s.D+1 || s.Names[s.D] != "y" {
			t.Fatalf("%s: shape N=%d D=%d len(X)=%d len(Y)=%d names=%q", g.name, s.N, s.D, len(s.X), len(s.Y), s.Names)
		}
		for i := range s.N {
			x := s.Row(i)
			for j, v := range x {
				if v < g.lo[j] || v > g.hi[j] {
					t.Fatalf("%s: x[%d][%d] = %g outside [%g, %g]", g.name, i, j, v, g.lo[j], g.hi[j])
				}
			}
			if s.Y[i] != g.f(x) {
				t.Fatalf("%s: y[%d] = %g, f(x) = %g", g.name, i, s.Y[i], g.f(x))
			}
		}
		s2, s3 := g.gen(7), g.gen(8)
		for i := range s.X {
			if s.X[i] != s2.X[i] {
				t.Fatalf("%s: same seed, different data", g.name)
			}
		}
		if s3.X[0] == s.X[0] {
			t.Errorf("%s: different seeds, same first value", g.name)
		}
	}
}

// The noise has the requested standard deviation.
func TestNoiseLevel(t *testing.T) {
	const n = 4000
	for _, c := range []struct {
		name  string
		s     Data
		f     func([]float64) float64
		sigma float64
	}{
		{"Friedman1", Friedman1(n, 10, 1, 1), F1, 1},
		{"Friedman2", Friedman2(n, 125, 1), F2, 125},
		{"Friedman3", Friedman3(n, 0.1, 1), F3, 0.1},
	} {
		var ss float64
		for i := range c.s.N {
			r := c.s.Y[i] - c.f(c.s.Row(i))
			ss += r * r
		}
		// The sd of a sample sd of 4000 normals is σ/√8000 ≈ 1.1 % of σ.
		if sd := math.Sqrt(ss / n); math.Abs(sd/c.sigma-1) > 0.05 {
			t.Errorf("%s: noise sd %.4g, want %.4g", c.name, sd, c.sigma)
		}
	}
}
