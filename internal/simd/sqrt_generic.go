package simd

import "math"

// scaledSqrtGeneric is ScaledSqrt's plain loop. The clamp is a comparison,
// not math.Max, which is a call per element on amd64 (it orders ±0 and
// NaN; here −0 and NaN pass through the comparison unchanged and give the
// same results).
func scaledSqrtGeneric(dst, x []float64, a float64) {
	for i, s := range x {
		if s < 0 {
			s = 0
		}
		dst[i] = a * math.Sqrt(s)
	}
}
