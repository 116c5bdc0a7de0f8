package kpls

import (
	"context"
	"math"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/blas"
)

// lanczosQuadrature computes the same quadratic forms as
// residualRecurrence, ζᵀq_m(K)ζ for m = 1..mMax, with half its block
// products. Each row ζ starts its own Lanczos run on K (projected as the
// recurrence projects), with full reorthogonalisation. After j steps the
// Jacobi matrix J_j of that run gives the Gauss rule
//
//	ζᵀf(K)ζ = ‖ζ‖² Σ_k τ_k² f(ν_k),  (ν_k, τ_k): eigenvalues of J_j and
//	                                   the first components of their vectors,
//
// exact for every polynomial f of degree ≤ 2j − 1, so j = ⌈(mMax+1)/2⌉
// products serve every q_m at once, evaluated at the rule's nodes.
//
// The price is memory: every row keeps its j Lanczos vectors for the
// reorthogonalisation (rows·j·n floats), which is why approxDoF keeps the
// recurrence when that would be large (quadratureMaxBytes). It takes the
// same inputs as residualRecurrence.
type lanczosQuadrature residualRecurrence

// quadratureMaxBytes bounds the Lanczos vectors lanczosQuadrature keeps
// (a variable for the tests, which run both ways).
var quadratureMaxBytes = 1 << 30

// quadratureSteps is the number of block products lanczosQuadrature needs
// for polynomials up to degree mMax.
func quadratureSteps(mMax int) int { return (mMax + 2) / 2 }

// quadratureBytes is the memory lanczosQuadrature keeps for rows of n:
// the Lanczos vectors and the block and its product.
func quadratureBytes(rows, n, mMax int) int {
	return 8 * rows * n * (quadratureSteps(mMax) + 2)
}

// forms has residualRecurrence.forms' contract: forms[m][i] = ζ_iᵀq_m(K)ζ_i
// for the rows of z (rows×n), m = 0..mMax, and the control variates ζ_iᵀKζ_i
// and ‖Kζ_i‖² of the first s rows. A row whose Gauss rule cannot be
// computed has NaN forms; approxDoF refuses those m.
func (lq lanczosQuadrature) forms(ctx context.Context, z []float64, rows, s int) (forms [][]float64, a1, a2 []float64, err error) {
	bl := lq.bl
	n := len(z) / rows
	lr := newLanczosRows(bl, z, rows, min(quadratureSteps(lq.mMax), n))
	cur := lr.cur
	a1 = make([]float64, s)
	a2 = make([]float64, s)
	kw := make([]float64, rows*n)
	for j := 0; j < lr.steps; j++ {
		if err := lq.op.Mul(ctx, kw, cur, rows); err != nil {
			return nil, nil, nil, err
		}
		if j == 0 {
			for i := range a1 {
				w := kw[i*n : (i+1)*n]
				nn := lr.norm[i] * lr.norm[i]
				a1[i] = nn * bl.Ddot(n, cur[i*n:], 1, w, 1)
				a2[i] = nn * bl.Ddot(n, w, 1, w, 1)
			}
		}
		if lq.project != nil {
			lq.project(bl, kw, rows)
		}
		for i := range rows {
			lr.step(i, j, kw[i*n:(i+1)*n], cur[i*n:(i+1)*n])
		}
		if lq.progress != nil {
			lq.progress(j+1, lr.steps)
		}
	}
	return lq.evaluate(lr.alpha, lr.beta, lr.norm), a1, a2, nil
}

// lanczosRows runs one Lanczos process per row of a block, all sharing
// the block products: each row's normalised vectors (basis), its Jacobi
// matrix (alpha, beta: beta[i][j] couples vectors j and j+1), and whether
// it has stopped (a zero row, or an invariant subspace).
type lanczosRows struct {
	bl          blas.Float64
	n, steps    int
	norm        []float64
	basis       [][]float64
	alpha, beta [][]float64
	done        []bool
	cur         []float64 // the block multiplied next
	coef        []float64
}

// newLanczosRows starts the processes of the rows of z (rows×n) with
// their normalised rows as the first vectors.
func newLanczosRows(bl blas.Float64, z []float64, rows, steps int) *lanczosRows {
	n := len(z) / rows
	lr := &lanczosRows{bl: bl, n: n, steps: steps, norm: make([]float64, rows), basis: make([][]float64, rows),
		alpha: make([][]float64, rows), beta: make([][]float64, rows), done: make([]bool, rows),
		cur: make([]float64, rows*n), coef: make([]float64, steps+1)}
	for i := range rows {
		row := z[i*n : (i+1)*n]
		lr.norm[i] = bl.Dnrm2(n, row, 1)
		lr.basis[i] = make([]float64, 0, steps*n)
		lr.done[i] = lr.norm[i] == 0
		if !lr.done[i] {
			w := lr.cur[i*n : (i+1)*n]
			copy(w, row)
			bl.Dscal(n, 1/lr.norm[i], w, 1)
			lr.basis[i] = append(lr.basis[i], w...)
		}
	}
	return lr
}

// step takes row i's process past vector j, given w = K v_j: it records
// α_j and, but on the last step, β_j and the next vector, which it
// writes to next (zero once the row has stopped).
func (lr *lanczosRows) step(i, j int, w, next []float64) {
	bl, n := lr.bl, lr.n
	if lr.done[i] {
		clear(next)
		return
	}
	v := lr.basis[i][j*n : (j+1)*n]
	a := bl.Ddot(n, v, 1, w, 1)
	lr.alpha[i] = append(lr.alpha[i], a)
	if j == lr.steps-1 {
		return // the last β is not part of J_steps
	}
	// Full reorthogonalisation, twice ("twice is enough"): the Gauss rule
	// is exact only for an orthonormal basis. The first pass also takes
	// off α v and the previous β term.
	k := j + 1
	for range 2 {
		bl.Dgemv(gblas.NoTrans, k, n, 1, lr.basis[i], n, w, 1, 0, lr.coef, 1)
		bl.Dgemv(gblas.Trans, k, n, -1, lr.basis[i], n, lr.coef, 1, 1, w, 1)
	}
	b := bl.Dnrm2(n, w, 1)
	// An invariant subspace, to rounding: the rule with the nodes so far
	// is exact for every polynomial.
	if !(b > 1e-12*jacobiScale(lr.alpha[i], lr.beta[i], a)) {
		lr.done[i] = true
		clear(next)
		return
	}
	lr.beta[i] = append(lr.beta[i], b)
	bl.Dscal(n, 1/b, w, 1)
	copy(next, w)
	lr.basis[i] = append(lr.basis[i], w...)
}

// jacobiScale is the scale of a Jacobi matrix from its entries so far,
// with a the newest diagonal entry: the largest |α| or 2β, within a
// factor of two of its norm.
func jacobiScale(alpha, beta []float64, a float64) float64 {
	s := math.Abs(a)
	for _, v := range alpha {
		s = math.Max(s, math.Abs(v))
	}
	for _, v := range beta {
		s = math.Max(s, 2*v)
	}
	return s
}

// evaluate applies every row's Gauss rule to q_m, m = 0..mMax. q_m at a
// node comes from the three-term recurrence of the residual polynomials
// (residualRecurrence's, on a scalar), all m in one sweep. The product
// Π(1 − ν/θ_i) over the m-step Ritz values is the same polynomial, but
// near the fit's breakdown, where the Ritz values spread over many orders
// of magnitude, it no longer matched the fit's own residual (the y_c
// check, 0.2–39 % off at the last three m of an 8-feature RBF fit of
// width 0.5), while the recurrence, which the fit's residuals follow,
// did.
func (lq lanczosQuadrature) evaluate(alpha, beta [][]float64, norm []float64) [][]float64 {
	rows := len(norm)
	a, b := lq.lz.jacobi(lq.mMax)
	forms := make([][]float64, lq.mMax+1)
	for m := range forms {
		forms[m] = make([]float64, rows)
	}
	for i := range rows {
		nn := norm[i] * norm[i]
		forms[0][i] = nn
		if nn == 0 {
			continue
		}
		nodes, weights, ok := gaussRule(alpha[i], beta[i])
		if !ok {
			for m := 1; m <= lq.mMax; m++ {
				forms[m][i] = math.NaN()
			}
			continue
		}
		for k, nu := range nodes {
			// Q_{j+1} = ((ν − α_j)Q_j − (β_j²/c_j)Q_{j−1}) / c_{j+1},
			// c_{j+1} = −α_j − β_j²/c_j, Q_0 = 1.
			prev, cur, cPrev := 0.0, 1.0, 0.0
			for j := 0; j < lq.mMax; j++ {
				c, g := -a[j], 0.0
				if j > 0 {
					g = b[j] * b[j] / cPrev
					c -= g
				}
				prev, cur = cur, ((nu-a[j])*cur-g*prev)/c
				cPrev = c
				forms[j+1][i] += nn * weights[k] * cur
			}
		}
	}
	return forms
}

// gaussRule returns the nodes and weights of the Gauss rule of a Jacobi
// matrix (diagonal alpha, off-diagonal beta): its eigenvalues and the
// squared first components of its eigenvectors.
func gaussRule(alpha, beta []float64) (nodes, weights []float64, ok bool) {
	k := len(alpha)
	j := mat.NewSymDense(k, nil)
	for i, a := range alpha {
		j.SetSym(i, i, a)
		if i > 0 {
			j.SetSym(i, i-1, beta[i-1])
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(j, true) {
		return nil, nil, false
	}
	nodes = eig.Values(nil)
	var v mat.Dense
	eig.VectorsTo(&v)
	weights = make([]float64, k)
	for c := range weights {
		weights[c] = v.At(0, c) * v.At(0, c)
	}
	return nodes, weights, true
}
