package gop

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/internal/gram"
)

// RBF returns the diagonal of the gradient outer product of the kernel
// model f(x) = c + Σ_i α_i k_c(x, x_i) with the Gaussian kernel
// k(x, z) = exp(−‖x − z‖²/(2w)), centred over the training rows x (n×d,
// row-major), taken at at most `at` of those rows, evenly spaced (all of
// them if at ≥ n): each costs a kernel row (internal/gram, as the fits
// compute it) and a product of its n entries with x.
//
// Centring subtracts from k(x, x_i) terms that do not depend on i
// (−(1/n)Σ_l k(x, x_l) among them), so ∂f/∂x = Σ_i β_i ∂k(x, x_i)/∂x with
// β_i = α_i − mean(α), where ∂k(x, z)/∂x_j = −(x_j − z_j)/w · k(x, z).
func RBF(x []float64, n, d int, alpha []float64, w float64, at int) []float64 {
	var sum float64
	for _, a := range alpha {
		sum += a
	}
	rows := min(max(at, 1), n)
	kr := gram.NewRBFRows(x, n, d, w)
	xs := mat.NewDense(n, d, x)
	c := mat.NewVecDense(n, nil) // β_i k(x_r, x_i)
	var v mat.VecDense           // Σ_i β_i k(x_r, x_i) x_i
	g := make([]float64, d)
	for k := range rows {
		r := k * n / rows
		kr.Rows(c.RawVector().Data, r, r+1)
		var bk float64
		for i, a := range alpha {
			ci := (a - sum/float64(n)) * c.AtVec(i)
			c.SetVec(i, ci)
			bk += ci
		}
		v.MulVec(xs.T(), c)
		for j, xj := range x[r*d : r*d+d] {
			dj := (xj*bk - v.AtVec(j)) / w // −∂f/∂x_j
			g[j] += dj * dj
		}
	}
	for j := range g {
		g[j] = math.Sqrt(g[j] / float64(rows))
	}
	return g
}

// Weights returns g scaled so that its largest finite entry is 1, each
// entry at least floor (a feature the model does not move along keeps a
// trace of weight rather than none); a NaN or infinite entry gets 1, and
// all get 1 if no entry is positive and finite.
func Weights(g []float64, floor float64) []float64 {
	var big float64
	for _, v := range g {
		if !math.IsInf(v, 0) && v > big { // NaN > big is false
			big = v
		}
	}
	out := make([]float64, len(g))
	for j, v := range g {
		out[j] = 1
		if big > 0 && !math.IsNaN(v) && !math.IsInf(v, 0) {
			out[j] = max(v/big, floor)
		}
	}
	return out
}
