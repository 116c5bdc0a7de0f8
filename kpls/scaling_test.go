package kpls

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// TestScalingExtremeMagnitudes standardises columns c·(1, 2, 3, 4) for c
// from 1e-300 to 1e300: mean 2.5c, standard deviation c·√(5/3) (n − 1),
// standardised values (−1.5, −0.5, 0.5, 1.5)/√(5/3), whatever c.
func TestScalingExtremeMagnitudes(t *testing.T) {
	cs := []float64{1e-300, 1e-200, 1e-160, 1, 1e154, 1e200, 1e300}
	const n = 4
	d := len(cs)
	x := make([]float64, n*d)
	for i := range n {
		for j, c := range cs {
			x[i*d+j] = c * float64(i+1)
		}
	}
	s, constant, err := learnScaling(x, n, d, nil, nil)
	if err != nil || len(constant) != 0 {
		t.Fatalf("err %v, constant columns %v", err, constant)
	}
	close := func(got, want float64) bool { return math.Abs(got-want) <= 1e-14*math.Abs(want) }
	for j, c := range cs {
		if !close(s.Mean[j], 2.5*c) || !close(s.Scale[j], c*math.Sqrt(5.0/3)) {
			t.Errorf("c = %g: mean %g, scale %g; want %g, %g", c, s.Mean[j], s.Scale[j], 2.5*c, c*math.Sqrt(5.0/3))
		}
	}
	s.apply(x, n, d)
	for i := range n {
		want := (float64(i) - 1.5) / math.Sqrt(5.0/3)
		for j, c := range cs {
			if !close(x[i*d+j], want) {
				t.Errorf("c = %g, row %d: standardised %g, want %g", c, i+1, x[i*d+j], want)
			}
		}
	}
	// Weighted: rows of weight (1, 2, 1) are the rows (1, 2, 2, 3) with
	// mean 2c and Σw(x − mean)²/(N − 1) = 2c²/3.
	for _, c := range []float64{1e-250, 1e250} {
		s, _, err := learnScaling([]float64{c, 2 * c, 3 * c}, 3, 1, []float64{1, 2, 1}, nil)
		if err != nil || !close(s.Mean[0], 2*c) || !close(s.Scale[0], c*math.Sqrt(2.0/3)) {
			t.Errorf("weighted c = %g: %v, mean %g, scale %g", c, err, s.Mean[0], s.Scale[0])
		}
	}
	// A truly constant column is still constant, zeros included.
	if _, constant, _ := learnScaling([]float64{0, 1e300, 0, 1e300, 0, 1e300}, 3, 2, nil, nil); len(constant) != 2 {
		t.Errorf("constant columns %v, want both", constant)
	}
}

// TestScalingOverflowRefused: a deviation of 2.3e308 from the mean do not
// exist in float64; the error names the feature and the row.
func TestScalingOverflowRefused(t *testing.T) {
	x := []float64{1, -1.7e308, 2, 1.7e308, 3, 1.7e308}
	_, _, err := learnScaling(x, 3, 2, nil, []string{"a", "huge"})
	if !errors.Is(err, ErrNonFinite) || !strings.Contains(err.Error(), `feature "huge" (column 2)`) || !strings.Contains(err.Error(), "row 1") {
		t.Errorf("error %v", err)
	}
}
