package relevance

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestNormalised(t *testing.T) {
	g := []float64{math.Sqrt(12.5), 0, 1}
	s := normalised(g, 0.5)
	if s[0] != 1 || s[1] != 0 || math.Abs(s[2]-math.Sqrt(1/math.Sqrt(12.5))) > 1e-12 {
		t.Errorf("normalised: %v", s)
	}
}

// TestAlignmentSeesRelevance: a feature y depends on (even through a
// non-monotone function) aligns far better than a noise feature.
func TestAlignmentSeesRelevance(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const n = 200
	x := mat.NewDense(n, 3, nil)
	y := make([]float64, n)
	for i := range n {
		for j := range 3 {
			x.Set(i, j, rng.NormFloat64())
		}
		y[i] = x.At(i, 0)*x.At(i, 0) + x.At(i, 1) + 0.1*rng.NormFloat64()
	}
	a := alignment(x, y, 1)
	if !(a[0] > 5*a[2] && a[1] > 5*a[2]) {
		t.Errorf("alignment %v: want features 0 and 1 far above the noise feature 2", a)
	}
}
