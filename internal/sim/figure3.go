package sim

import (
	"math"
	"math/rand/v2"
)

// Figure3Truth is the regression function of the paper's Section 5
// illustration (its Figure 3): f(x) = (x−1)(x+2)(x−1.5)·exp(−x²/10).
func Figure3Truth(x float64) float64 {
	return (x - 1) * (x + 2) * (x - 1.5) * math.Exp(-x*x/10)
}

// Figure3 draws the paper's Section 5 sample (d = 1): n inputs from the
// equal mixture of N(−2, 1) and N(3, 1), y = Figure3Truth(x) + N(0, 1).
func Figure3(n int, seed uint64) Data {
	rng := rand.New(rand.NewPCG(seed, streamFigure3))
	s := Data{X: make([]float64, n), N: n, D: 1, Y: make([]float64, n), Names: []string{"x", "y"}}
	for i := range s.X {
		mu := -2.0
		if rng.IntN(2) == 1 {
			mu = 3
		}
		s.X[i] = mu + rng.NormFloat64()
		s.Y[i] = Figure3Truth(s.X[i]) + rng.NormFloat64()
	}
	return s
}
