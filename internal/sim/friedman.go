package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// F1 is Friedman's first regression function, noise-free, of x1..x5 (the
// first five elements of x; later ones are ignored).
func F1(x []float64) float64 {
	d := x[2] - 0.5
	return 10*math.Sin(math.Pi*x[0]*x[1]) + 20*d*d + 10*x[3] + 5*x[4]
}

// F2 is Friedman's second regression function, noise-free, of x1..x4.
func F2(x []float64) float64 {
	return math.Hypot(x[0], x[1]*x[2]-1/(x[1]*x[3]))
}

// F3 is Friedman's third regression function, noise-free, of x1..x4.
func F3(x []float64) float64 {
	return math.Atan((x[1]*x[2] - 1/(x[1]*x[3])) / x[0])
}

// Friedman1 returns n points of Friedman's first problem with d ≥ 5
// features, x ~ U[0,1]^d, y = F1(x) + N(0, noise²).
func Friedman1(n, d int, noise float64, seed uint64) Data {
	if d < 5 {
		panic(fmt.Sprintf("sim: Friedman1 needs d ≥ 5, got %d", d))
	}
	rng := rand.New(rand.NewPCG(seed, streamFriedman1))
	s := newData(n, d)
	for i := range s.X {
		s.X[i] = rng.Float64()
	}
	for i := range n {
		s.Y[i] = F1(s.Row(i)) + noise*rng.NormFloat64()
	}
	return s
}

// friedman23 draws the four features shared by Friedman's second and
// third problems: x1 ~ U[0,100], x2 ~ U[40π, 560π], x3 ~ U[0,1],
// x4 ~ U[1,11], and y = f(x) + N(0, noise²).
func friedman23(n int, noise float64, rng *rand.Rand, f func([]float64) float64) Data {
	const d = 4
	s := newData(n, d)
	for i := range n {
		x := s.Row(i)
		x[0] = 100 * rng.Float64()
		x[1] = 40*math.Pi + 520*math.Pi*rng.Float64()
		x[2] = rng.Float64()
		x[3] = 1 + 10*rng.Float64()
	}
	for i := range n {
		s.Y[i] = f(s.Row(i)) + noise*rng.NormFloat64()
	}
	return s
}

// Friedman2 returns n points of Friedman's second problem (d = 4),
// y = F2(x) + N(0, noise²).
func Friedman2(n int, noise float64, seed uint64) Data {
	return friedman23(n, noise, rand.New(rand.NewPCG(seed, streamFriedman2)), F2)
}

// Friedman3 returns n points of Friedman's third problem (d = 4),
// y = F3(x) + N(0, noise²).
func Friedman3(n int, noise float64, seed uint64) Data {
	return friedman23(n, noise, rand.New(rand.NewPCG(seed, streamFriedman3)), F3)
}
