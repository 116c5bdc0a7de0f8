package simd

import "math"

// Sum returns Σ x[i], accumulated in sixteen lanes (see reduce_generic.go),
// so that it runs at memory speed; the result is the same on every
// architecture and build.
func Sum(x []float64) float64 {
	m := len(x) &^ 15
	var s float64
	if m > 0 {
		s = sumKernel(x[:m])
	}
	for _, v := range x[m:] {
		s += v
	}
	return s
}

// CenterRow sets row[j] -= c + mean[j] for j < len(row) and returns the sum
// of squares of the new values: one pass of double centring, which also
// yields the centred matrix's squared Frobenius norm. mean must be at least
// as long as row.
func CenterRow(row, mean []float64, c float64) (sumSq float64) {
	if len(mean) < len(row) {
		panic("simd: CenterRow mean too short")
	}
	m := len(row) &^ 15
	if m > 0 {
		sumSq = centerRowKernel(row[:m], mean[:m], c)
	}
	for j := m; j < len(row); j++ {
		v := row[j] - (c + mean[j])
		row[j] = v
		sumSq = math.FMA(v, v, sumSq)
	}
	return sumSq
}
