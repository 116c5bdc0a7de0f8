package kpls

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// scaling holds the per-feature standardisation learnt on training data.
type scaling struct {
	Mean  []float64 `json:"mean"`
	Scale []float64 `json:"scale"`
}

// denseRows copies a matrix into row-major storage, checking values.
func denseRows(x mat.Matrix, what string) ([]float64, int, int, error) {
	if x == nil {
		return nil, 0, 0, fmt.Errorf("%w: %s is nil", ErrShape, what)
	}
	r, c := x.Dims()
	out := make([]float64, r*c)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			v := x.At(i, j)
			if isNaNOrInf(v) {
				return nil, 0, 0, fmt.Errorf("%w: %s row %d, column %d is %v", ErrNonFinite, what, i+1, j+1, v)
			}
			out[i*c+j] = v
		}
	}
	return out, r, c, nil
}

// learnScaling computes training means and standard deviations (n−1).
// A constant column keeps scale 1; its index is returned for a warning.
func learnScaling(x []float64, n, d int, w []float64) (scaling, []int) {
	// A row of weight w counts as w copies (nil: every weight 1): the
	// weighted mean and Σw(x − mean)²/(N − 1).
	weight := func(i int) float64 { return 1 }
	total := float64(n)
	if w != nil {
		weight = func(i int) float64 { return w[i] }
		total = 0
		for _, v := range w {
			total += v
		}
	}
	s := scaling{Mean: make([]float64, d), Scale: make([]float64, d)}
	var constant []int
	for j := 0; j < d; j++ {
		var sum float64
		for i := 0; i < n; i++ {
			sum += weight(i) * x[i*d+j]
		}
		mean := sum / total
		var ss float64
		for i := 0; i < n; i++ {
			t := x[i*d+j] - mean
			ss += weight(i) * t * t
		}
		sd := math.Sqrt(ss / (total - 1))
		s.Mean[j] = mean
		s.Scale[j] = sd
		if sd == 0 || isNaNOrInf(1/sd) {
			s.Scale[j] = 1
			constant = append(constant, j)
		}
	}
	return s, constant
}

func (s *scaling) apply(x []float64, n, d int) {
	for i := 0; i < n; i++ {
		row := x[i*d : i*d+d]
		for j := range row {
			row[j] = (row[j] - s.Mean[j]) / s.Scale[j]
		}
	}
}
