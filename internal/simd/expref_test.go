package simd

import (
	"math"
	"math/big"
)

// ln2Big is ln 2 to 160 bits.
var ln2Big, _ = new(big.Float).SetPrec(160).SetString("0.693147180559945309417232121458176568075500134360255254120680009493393621969694715605863326996418687542")

// expRef returns exp(x) correctly rounded (up to ties within 2⁻¹⁰⁰ of a
// midpoint), computed in 160-bit arithmetic: an oracle independent of both
// the kernel and math.Exp, which is itself up to 1 ulp off and, on amd64,
// overflows early for x near 709.4.
func expRef(x float64) float64 {
	switch {
	case math.IsNaN(x):
		return x
	case x > 710:
		return math.Inf(1)
	case x < -746:
		return 0
	}
	const prec = 160
	bx := new(big.Float).SetPrec(prec).SetFloat64(x)
	n := math.Round(x / math.Ln2)
	r := new(big.Float).SetPrec(prec).Mul(ln2Big, new(big.Float).SetPrec(prec).SetFloat64(n))
	r.Sub(bx, r)
	sum := new(big.Float).SetPrec(prec).SetInt64(1)
	term := new(big.Float).SetPrec(prec).SetInt64(1)
	for k := int64(1); k < 40; k++ {
		term.Mul(term, r)
		term.Quo(term, new(big.Float).SetPrec(prec).SetInt64(k))
		sum.Add(sum, term)
	}
	sum.SetMantExp(sum, int(n))
	f, _ := sum.Float64()
	return f
}
