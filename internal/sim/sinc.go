package sim

import (
	"math"
	"math/rand/v2"
)

// SincTruth is sin(x)/x, and 1 at x = 0.
func SincTruth(x float64) float64 {
	if x == 0 {
		return 1
	}
	return math.Sin(x) / x
}

// Sinc returns n points of the paper's simulation (Section 6, d = 1):
// x ~ U(−π, π) and y = sin(x)/x + ε with ε ~ N(0, 0.1²). It draws all n
// inputs first, then the n noise values.
func Sinc(n int, seed uint64) Data {
	rng := rand.New(rand.NewPCG(seed, streamSinc))
	s := Data{X: make([]float64, n), N: n, D: 1, Y: make([]float64, n), Names: []string{"x", "y"}}
	for i := range s.X {
		s.X[i] = math.Pi * (2*rng.Float64() - 1)
	}
	for i, v := range s.X {
		s.Y[i] = SincTruth(v) + 0.1*rng.NormFloat64()
	}
	return s
}
