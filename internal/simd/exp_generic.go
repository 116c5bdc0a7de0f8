package simd

import "math"

// Constants of the vectorised exp. expLo and expHi clamp the argument so
// that the scale 2ⁿ below stays in range: exp(−746) rounds to 0 and
// exp(710) overflows to +Inf, as math.Exp does.
const (
	expLo    = -746.0
	expHi    = 710.0
	expLn2Hi = math.Ln2               // ln 2 rounded to float64
	expLn2Lo = 2.3190468138462996e-17 // ln 2 − expLn2Hi
	expMagic = 1<<52 + 1023           // adding it puts n+1023 in the low mantissa bits
)

// expCoef holds 1/k! for k = 13 … 0, highest degree first.
var expCoef = [14]float64{
	1.6059043836821613e-10, 2.08767569878681e-09, 2.505210838544172e-08,
	2.755731922398589e-07, 2.7557319223985893e-06, 2.48015873015873e-05,
	0.0001984126984126984, 0.001388888888888889, 0.008333333333333333,
	0.041666666666666664, 0.16666666666666666, 0.5, 1, 1,
}

// expGeneric sets dst[i] = exp(scale·src[i]). It is the reference for
// expAVX2, which computes the same operations in the same order, so the two
// agree bit for bit.
//
// Method: with x clamped to [expLo, expHi] (NaN passes through),
// n = round(x·log₂e) and r = x − n·ln2 with ln 2 split in two parts and
// fused multiply–adds, |r| ≤ ln2/2 + ε. exp(r) is the degree-13 Taylor
// polynomial (truncation error < 4e-18 relative) by Horner with FMA.
// The result is exp(r)·2^n1·2^n2 with n1 = ⌊n/2⌋ and n2 = n − n1, so that
// both factors are normal numbers even when the result is subnormal or
// overflows, and the only rounding of a subnormal result is the last
// product.
func expGeneric(dst, src []float64, scale float64) {
	for i, v := range src[:len(dst)] {
		dst[i] = expOne(v * scale)
	}
}

func expOne(x float64) float64 {
	x = min(max(x, expLo), expHi)
	nf := math.RoundToEven(x * math.Log2E)
	r := math.FMA(-nf, expLn2Hi, x)
	r = math.FMA(-nf, expLn2Lo, r)
	p := expCoef[0]
	for _, c := range expCoef[1:] {
		p = math.FMA(p, r, c)
	}
	n1 := math.Floor(nf * 0.5)
	n2 := nf - n1
	s1 := math.Float64frombits(math.Float64bits(n1+expMagic) << 52)
	s2 := math.Float64frombits(math.Float64bits(n2+expMagic) << 52)
	return p * s1 * s2
}
