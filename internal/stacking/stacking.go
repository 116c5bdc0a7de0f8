package stacking

import (
	"errors"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// ErrShape reports predictions and a response of different lengths, or
// no models.
var ErrShape = errors.New("stacking: bad shape")

// Weights returns w minimising ‖Σ_j w_j p_j − y‖² over w ≥ 0 with Σ_j w_j
// = 1, for the k columns p_j of the n×k preds. The problem is a convex
// quadratic programme in k variables; the primal active-set method below
// (Nocedal & Wright, Numerical Optimization, §16.5) solves it exactly up
// to rounding: on the set S of positive weights, w_S solves the
// equality-constrained problem through its KKT system, weights that
// would turn negative leave S by a step to the boundary, and a column
// whose Lagrange multiplier is negative enters S. Columns equal to
// another's make G = PᵀP singular; a ridge of 1e-12 of G's largest
// diagonal entry keeps the KKT systems solvable and decides such ties
// towards sharing the weight.
func Weights(preds mat.Matrix, y []float64) ([]float64, error) {
	n, k := preds.Dims()
	if k == 0 || n != len(y) {
		return nil, ErrShape
	}
	var g mat.SymDense
	g.SymOuterK(1, preds.T())
	b := mat.NewVecDense(k, nil)
	b.MulVec(preds.T(), mat.NewVecDense(n, y))
	ridge := 0.0
	for j := range k {
		ridge = math.Max(ridge, g.At(j, j))
	}
	ridge *= 1e-12
	for j := range k {
		g.SetSym(j, j, g.At(j, j)+ridge)
	}

	// Start from the single column closest to y: ‖p_j − y‖² = G_jj − 2b_j + yᵀy.
	w := make([]float64, k)
	first := 0
	for j := range k {
		if g.At(j, j)-2*b.AtVec(j) < g.At(first, first)-2*b.AtVec(first) {
			first = j
		}
	}
	w[first] = 1
	active := []int{first}
	for iter := 0; iter < 10*k+10; iter++ {
		ws, nu, err := solveOn(&g, b, active)
		if err != nil {
			return nil, err
		}
		// Step towards ws; stop at the first weight that reaches zero.
		step, block := 1.0, -1
		for i, j := range active {
			if ws[i] < 0 && w[j]-ws[i] > 0 {
				if t := w[j] / (w[j] - ws[i]); t < step {
					step, block = t, i
				}
			}
		}
		for i, j := range active {
			w[j] += step * (ws[i] - w[j])
		}
		if block >= 0 {
			w[active[block]] = 0
			active = append(active[:block], active[block+1:]...)
			continue
		}
		// Optimal on S: a column outside S enters if its multiplier
		// λ_j = (Gw − b)_j − ν is negative.
		enter, most := -1, 0.0
		for j := range k {
			if w[j] > 0 || slices.Contains(active, j) {
				continue
			}
			var gw float64
			for l := range k {
				gw += g.At(j, l) * w[l]
			}
			lam := gw - b.AtVec(j) - nu
			if lam < most-1e-14*math.Max(1, math.Abs(nu)) {
				enter, most = j, lam
			}
		}
		if enter < 0 {
			return w, nil
		}
		active = append(active, enter)
	}
	return nil, errors.New("stacking: the active-set iteration did not converge")
}

// solveOn solves the KKT system of min ½w_SᵀG_SSw_S − b_Sᵀw_S subject to
// Σ w_S = 1: [G_SS −1; 1ᵀ 0][w_S; ν] = [b_S; 1].
func solveOn(g *mat.SymDense, b *mat.VecDense, s []int) ([]float64, float64, error) {
	m := len(s)
	a := mat.NewDense(m+1, m+1, nil)
	r := mat.NewVecDense(m+1, nil)
	for i, j := range s {
		for l, c := range s {
			a.Set(i, l, g.At(j, c))
		}
		a.Set(i, m, -1)
		a.Set(m, i, 1)
		r.SetVec(i, b.AtVec(j))
	}
	r.SetVec(m, 1)
	var x mat.VecDense
	if err := x.SolveVec(a, r); err != nil {
		var cond mat.Condition
		if !errors.As(err, &cond) {
			return nil, 0, err
		}
	}
	ws := make([]float64, m)
	for i := range m {
		ws[i] = x.AtVec(i)
	}
	return ws, x.AtVec(m), nil
}
