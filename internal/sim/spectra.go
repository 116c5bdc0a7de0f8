package sim

import (
	"math"
	"math/rand/v2"
)

// The data sets below stand for spectral regimes of the kernel matrix in
// the DoF test bed (lab/dofbed). Each draws a row's features and then its
// noise before the next row.

// Uniform is a flat-spectrum case: x ~ U[0,1]^d, y = Σ_j sin(3x_j) +
// N(0, 0.3²).
func Uniform(n, d int, seed uint64) Data {
	rng := rand.New(rand.NewPCG(seed, streamUniform))
	s := newData(n, d)
	for i := range n {
		x := s.Row(i)
		for j := range x {
			x[j] = rng.Float64()
			s.Y[i] += math.Sin(3 * x[j])
		}
		s.Y[i] += 0.3 * rng.NormFloat64()
	}
	return s
}

// ScaledFeatures has d unstandardised normal features of very different
// scales (standard deviations 10^0 … 10^(d−1)) and y = sin(x_1) +
// N(0, 0.1²): an RBF kernel on them is close to the identity.
func ScaledFeatures(n, d int, seed uint64) Data {
	rng := rand.New(rand.NewPCG(seed, streamScaled))
	s := newData(n, d)
	for i := range n {
		x := s.Row(i)
		for j := range x {
			x[j] = rng.NormFloat64() * math.Pow(10, float64(j))
		}
		s.Y[i] = math.Sin(x[0]) + 0.1*rng.NormFloat64()
	}
	return s
}

// Wide has d ≫ n standard normal features, two of them informative:
// y = x_1 + sin(x_2) + N(0, 0.3²).
func Wide(n, d int, seed uint64) Data {
	rng := rand.New(rand.NewPCG(seed, streamWide))
	s := newData(n, d)
	for i := range n {
		x := s.Row(i)
		for j := range x {
			x[j] = rng.NormFloat64()
		}
		s.Y[i] = x[0] + math.Sin(x[1]) + 0.3*rng.NormFloat64()
	}
	return s
}
