package kpls

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// lanczos holds the fit's Lanczos matrix L = TᵀKR̂ (steps×steps, upper
// triangular, bidiagonal in exact arithmetic; R̂ the K-normalised
// residuals) and what the DoF estimators derive from it: the Jacobi matrix
// D = LᵀL of the residual polynomials, the Ritz values θ of every m-step
// problem (eigenvalues of D_m) and the polynomials q_m(λ) = Π(1 − λ/θ_i).
// SVDs are cached per size; a lanczos value is used by one goroutine.
type lanczos struct {
	l     []float64
	steps int
	svds  map[int]ritzSVD
}

type ritzSVD struct {
	theta []float64
	u, v  *mat.Dense
	ok    bool
}

func newLanczos(l []float64, steps int) *lanczos {
	return &lanczos{l: l, steps: steps, svds: map[int]ritzSVD{}}
}

// svd returns the Ritz values of the m-step problem in descending order
// and the singular vectors of L_m (m×m), cached.
func (lz *lanczos) svd(m int) ritzSVD {
	r, seen := lz.svds[m]
	if !seen {
		r.theta, r.u, r.v, r.ok = ritzVectors(lz.l, lz.steps, m)
		lz.svds[m] = r
	}
	return r
}

func (lz *lanczos) ritzValues(m int) ([]float64, bool) {
	r := lz.svd(m)
	return r.theta, r.ok
}

// jacobi returns the diagonal α_j = D_jj (j < mMax) and the off-diagonal
// β_j = D_{j,j−1} (1 ≤ j < mMax; β_0 = 0) of D = LᵀL.
func (lz *lanczos) jacobi(mMax int) (alpha, beta []float64) {
	ld := lz.steps
	d := func(i, j int) float64 {
		var s float64
		for r := 0; r <= min(i, j); r++ {
			s += lz.l[r*ld+i] * lz.l[r*ld+j]
		}
		return s
	}
	alpha = make([]float64, mMax)
	beta = make([]float64, mMax)
	for j := range alpha {
		alpha[j] = d(j, j)
		if j > 0 {
			beta[j] = d(j, j-1)
		}
	}
	return alpha, beta
}

// krylovTerm is tr(T_mᵀ q_m(K) T_m) from the leading S = 2m+1 steps of L:
// q_m(K)T_m lies in the Krylov space of S steps, where the trace is that
// of the leading m×m block of L_S q_m(D_S) L_S⁻¹ = U q_m(Σ²) Uᵀ for
// L_S = UΣVᵀ, for any S ≥ 2m+1 up to the steps the fit ran.
//
// q_m at the S-step Ritz values σ_k² is not taken as the product
// Π(1 − σ_k²/θ_i): where σ_k² has converged next to an m-step Ritz value,
// that is a factor known only to rounding times huge ones. In the
// coordinates of the K-normalised residuals, y_c is ‖y_c‖_K e_1 and
// r_m = q_m(K)y_c is ‖r_m‖_K e_{m+1}, so with D_S = VΣ²Vᵀ
//
//	q_m(σ_k²) V_1k = γ_m V_{m+1,k},  γ_m = ‖r_m‖_K/‖y_c‖_K,
//
// which holds to rounding where V_1k is not itself tiny. Where it is, the
// product is used and bound is its rounding bound (polyWithError).
func (lz *lanczos) krylovTerm(m, S int, theta []float64, gamma float64) (tr, bound float64) {
	r := lz.svd(S)
	if !r.ok {
		return math.NaN(), math.NaN()
	}
	const eps = 0x1p-52
	for k, sk := range r.theta {
		var w float64
		for i := 0; i < m; i++ {
			w += r.u.At(i, k) * r.u.At(i, k)
		}
		var q, dq float64
		if v1 := r.v.At(0, k); math.Abs(v1) > krylovV1Min && m < S {
			q = gamma * r.v.At(m, k) / v1
		} else {
			q, dq = polyWithError(theta, sk, eps*math.Max(theta[0], sk))
		}
		tr += q * w
		bound += dq * w
	}
	return tr, bound
}

// krylovV1Min is the smallest first component of a Ritz vector of D for
// which krylovTerm divides by it.
const krylovV1Min = 1e-8

// ritz returns the Ritz values of the m-step problem, the eigenvalues of
// D_m = L_mᵀL_m, as squared singular values of the leading m×m block of L
// (ld = leading dimension of l), in descending order, together with the
// left singular vectors U (m×m) of L_m.
func ritz(l []float64, ld, m int) (theta []float64, u *mat.Dense, ok bool) {
	theta, u, _, ok = ritzVectors(l, ld, m)
	return theta, u, ok
}

// ritzVectors is ritz with the right singular vectors V of L_m as well:
// the eigenvectors of D_m.
func ritzVectors(l []float64, ld, m int) (theta []float64, u, v *mat.Dense, ok bool) {
	if m == 0 {
		return nil, nil, nil, true
	}
	lm := mat.NewDense(m, m, nil)
	for i := 0; i < m; i++ {
		for j := i; j < m; j++ {
			lm.Set(i, j, l[i*ld+j])
		}
	}
	var svd mat.SVD
	if !svd.Factorize(lm, mat.SVDFull) {
		return nil, nil, nil, false
	}
	s := svd.Values(nil)
	theta = make([]float64, m)
	for i, x := range s {
		theta[i] = x * x
	}
	u, v = new(mat.Dense), new(mat.Dense)
	svd.UTo(u)
	svd.VTo(v)
	return theta, u, v, true
}
