package kpls

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// scaling holds the per-feature standardisation learnt on training data,
// and the features' weights (Options.Relevance; nil: all 1), which a
// model file records in its options, not here.
type scaling struct {
	Mean   []float64 `json:"mean"`
	Scale  []float64 `json:"scale"`
	weight []float64
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
// A column whose deviations from the mean overflow float64 is refused,
// naming its row of largest magnitude (names, if not nil, names the
// columns).
//
// Each column is summed in two passes scaled by powers of two (exact):
// first by its largest magnitude, then the deviations from the mean by
// theirs, so that values of 1e154 and more do not overflow when squared
// (a standard deviation of +Inf scaled every value to 0) nor values of
// 1e-200 and less underflow to a column called constant.
func learnScaling(x []float64, n, d int, w []float64, names []string) (scaling, []int, error) {
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
		var big float64
		at := 0
		for i := 0; i < n; i++ {
			if a := math.Abs(x[i*d+j]); a > big {
				big, at = a, i
			}
		}
		_, e := math.Frexp(big) // big < 2^e; 0 for a column of zeros
		var sum float64
		for i := 0; i < n; i++ {
			sum += weight(i) * math.Ldexp(x[i*d+j], -e)
		}
		mean := sum / total // of the values scaled by 2^−e
		var dev float64
		for i := 0; i < n; i++ {
			dev = max(dev, math.Abs(math.Ldexp(x[i*d+j], -e)-mean))
		}
		_, f := math.Frexp(dev)
		var ss float64
		for i := 0; i < n; i++ {
			t := math.Ldexp(math.Ldexp(x[i*d+j], -e)-mean, -f)
			ss += weight(i) * t * t
		}
		sd := math.Ldexp(math.Sqrt(ss/(total-1)), e+f)
		if math.IsInf(math.Ldexp(dev, e), 0) || math.IsInf(sd, 0) {
			return scaling{}, nil, fmt.Errorf("%w: feature %s: values as large as %v (row %d) spread too far to standardise: the deviations from the mean overflow float64",
				ErrNonFinite, featureName(names, j), x[at*d+j], at+1)
		}
		s.Mean[j] = math.Ldexp(mean, e)
		s.Scale[j] = sd
		if sd == 0 || math.IsNaN(sd) {
			s.Scale[j] = 1
			constant = append(constant, j)
		}
	}
	return s, constant, nil
}

func (s *scaling) apply(x []float64, n, d int) {
	for i := 0; i < n; i++ {
		row := x[i*d : i*d+d]
		for j := range row {
			row[j] = (row[j] - s.Mean[j]) / s.Scale[j]
			if s.weight != nil {
				row[j] *= s.weight[j]
			}
		}
	}
}
