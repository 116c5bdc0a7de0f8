package simd

import "math"

// The reductions accumulate in sixteen lanes, lane l taking the elements
// ≡ l mod 16, and combine the lanes in a fixed tree (reduceLanes). The
// assembly kernels follow the same order, so both agree bit for bit.

// reduceLanes combines the sixteen partial sums as the kernels do: four
// vectors of four lanes added pairwise, then the four lanes pairwise.
func reduceLanes(acc *[16]float64) float64 {
	var s [4]float64
	for l := range s {
		s[l] = (acc[l] + acc[4+l]) + (acc[8+l] + acc[12+l])
	}
	return (s[0] + s[2]) + (s[1] + s[3])
}

// sumGeneric returns Σ x[i] over a length that is a multiple of 16.
func sumGeneric(x []float64) float64 {
	var acc [16]float64
	for i := 0; i < len(x); i += 16 {
		for l, v := range x[i : i+16] {
			acc[l] += v
		}
	}
	return reduceLanes(&acc)
}

// centerRowGeneric sets row[j] -= c + mean[j] and returns Σ row[j]² of the
// new values, each square added with a fused multiply–add, over a length
// that is a multiple of 16.
func centerRowGeneric(row, mean []float64, c float64) float64 {
	var acc [16]float64
	for i := 0; i < len(row); i += 16 {
		for l := range 16 {
			v := row[i+l] - (c + mean[i+l])
			row[i+l] = v
			acc[l] = math.FMA(v, v, acc[l])
		}
	}
	return reduceLanes(&acc)
}
