package gop

import (
	"math"
	"testing"
)

// TestWeights: the largest finite entry becomes 1, the others their
// ratio to it, none below the floor; NaN and infinite entries get 1, as
// does everything when no entry is positive.
func TestWeights(t *testing.T) {
	for _, c := range []struct {
		g, want []float64
	}{
		{[]float64{2, 1, 0.001, 0}, []float64{1, 0.5, 0.01, 0.01}},
		{[]float64{math.NaN(), 4, 1}, []float64{1, 1, 0.25}},
		{[]float64{math.Inf(1), 4, 2}, []float64{1, 1, 0.5}},
		{[]float64{0, 0}, []float64{1, 1}},
		{[]float64{math.NaN(), math.NaN()}, []float64{1, 1}},
	} {
		got := Weights(c.g, 0.01)
		for j := range c.want {
			if math.Abs(got[j]-c.want[j]) > 1e-15 {
				t.Errorf("Weights(%v) = %v, want %v", c.g, got, c.want)
				break
			}
		}
	}
}

// TestRBFOnePoint: with one coefficient the model is β_0 k(x, x_0) −
// (terms free of x) and the gradient at row 1 is the closed form
// −β_0 (x_1 − x_0)/w · k(x_1, x_0) + β_1·0 (row 1's own kernel has zero
// gradient there).
func TestRBFOnePoint(t *testing.T) {
	x := []float64{0, 0, 1, 2} // two rows of two features
	alpha := []float64{1, -1}  // β = α (it sums to zero)
	const w = 2.0
	k := math.Exp(-5 / (2 * w))
	// At row 0: ∂f/∂x = β_1 · (−(x_0 − x_1)/w) k = −1 · (1, 2)/2 · k.
	// At row 1: ∂f/∂x = β_0 · (−(x_1 − x_0)/w) k = −(1, 2)/2 · k.
	// Both have squares (k/2)², (k)², so g = (k/2, k).
	got := RBF(x, 2, 2, alpha, w, 2)
	want := []float64{k / 2, k}
	for j := range want {
		if math.Abs(got[j]-want[j]) > 1e-15 {
			t.Errorf("g = %v, want %v", got, want)
		}
	}
	// At one row of the two (row 0), the same.
	if one := RBF(x, 2, 2, alpha, w, 1); math.Abs(one[1]-k) > 1e-15 {
		t.Errorf("at one row: g = %v, want %v", one, want)
	}
}
