package kpls

import (
	"context"
	"math"
	"math/rand/v2"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/blas"
)

// The number of random probe vectors behind DoFApprox defaults to
// 64000/n within [MinProbes, MaxProbes]: the probes' block products cost
// s·n² flops per two components, cheap for small n, where the standard error
// (about 2 %/√(s/16) of the DoF on the slowest-decaying reference case)
// matters most.
const (
	MinProbes = 16
	MaxProbes = 64
)

// approxDoF estimates DoF(m), m = 1..mMax, including the intercept, in
// quadratic time and with a standard error. It splits
//
//	DoF₀(m) = tr p_m(K) + 2 tr(T_mᵀ q_m(K) T_m)
//
// and evaluates the second term exactly from the Lanczos matrix (as
// lanczosDoF). The paper replaces tr p_m(K) by a sum over Ritz values,
// which misses the bulk of small eigenvalues when the spectrum decays
// slowly. Here the trace is split along the fit's own orthonormal scores
// T_L (P = T_L T_Lᵀ):
//
//	tr p_m(K) = tr(P p_m(K) P) + tr((I−P) p_m(K) (I−P)).
//
// The first part is exact from the small matrices (t_lᵀ q_m(K) t_l is a
// diagonal entry of L q_m(D) L⁻¹ while l + m < steps); the second is a
// Hutchinson estimate with Rademacher probes projected off T_L, where
// ζᵀq_m(K)ζ comes from the three-term recurrence of the fit's residual
// polynomials (the Jacobi matrix is D = LᵀL) run to degree ⌈m/2⌉ and
// doubled through moments (probeForms): one block product with K for all
// probes together per two values of m.
//
// Control variates cut the probes' variance: on the deflated space the
// traces of K and K² are known exactly (tr K and ‖K‖²_F are O(n²), and
// t_lᵀKt_l, ‖Kt_l‖² are entries of LLᵀ), and p_m(λ) is close to
// c₁λ + c₂λ² on the small eigenvalues that dominate there; c is fitted by
// least squares across the probes. The standard error is the residual
// spread of that fit.
//
// y_c rides along as one more row: y_cᵀq_m(K)y_c must equal y_cᵀr_m for
// the fit's residual r_m, which checks the recurrence and the doubling;
// where it does not, the value is NaN.
func approxDoF(ctx context.Context, bl blas.Float64, k []float64, n int, yc []float64, kr *krylov, trK, trK2 float64, l []float64, steps, mMax, probes int, seed uint64) (dof, se []float64, err error) {
	dof = make([]float64, mMax+1)
	se = make([]float64, mMax+1)
	dof[0] = 1
	for m := 1; m <= mMax; m++ {
		dof[m] = math.NaN()
		se[m] = math.NaN()
	}
	if steps < mMax+1 {
		// The Krylov space is exhausted: K is (numerically) of rank
		// steps on the data's span, and the Lanczos sum is complete.
		lz := lanczosDoF(l, steps, steps, mMax)
		for m := 1; m <= mMax; m++ {
			dof[m], se[m] = lz[m], 0
		}
		return dof, se, nil
	}
	// Jacobi matrix D = LᵀL (tridiagonal in exact arithmetic).
	d := func(i, j int) float64 {
		var s float64
		for r := 0; r <= min(i, j); r++ {
			s += l[r*steps+i] * l[r*steps+j]
		}
		return s
	}
	nDefl := max(steps-1-mMax, 0)
	sig, u, ok := ritz(l, steps, steps)
	if !ok {
		return dof, se, nil
	}

	// Probes, projected off the deflation space T_L.
	s := probes
	rng := rand.New(rand.NewPCG(seed, 0x6b706c73))
	z := make([]float64, s*n)
	for i := range z {
		if rng.Uint64()&1 == 0 {
			z[i] = 1
		} else {
			z[i] = -1
		}
	}
	if nDefl > 0 {
		c := make([]float64, s*nDefl)
		bl.Dgemm(gblas.NoTrans, gblas.Trans, s, nDefl, n, 1, z, n, kr.t, n, 0, c, nDefl)
		bl.Dgemm(gblas.NoTrans, gblas.NoTrans, s, n, nDefl, -1, c, nDefl, kr.t, n, 1, z, n)
	}
	zz := make([]float64, s)
	for i := range zz {
		zz[i] = bl.Ddot(n, z[i*n:], 1, z[i*n:], 1)
	}
	// Exact traces of K and K² on the deflated space.
	llt := func(i, j int) float64 {
		var v float64
		for r := max(i, j); r < steps; r++ {
			v += l[i*steps+r] * l[j*steps+r]
		}
		return v
	}
	// trK and trK2 = ‖K‖²_F came free from centring; what the deflation
	// removes from them is known to a rounding error of about ε·(both).
	const eps = 0x1p-52
	dA1, dA2 := 64*eps*trK, 64*eps*trK2
	for li := 0; li < nDefl; li++ {
		trK -= llt(li, li)
		for i := 0; i < steps; i++ {
			v := llt(i, li)
			trK2 -= v * v
		}
	}
	z = append(z, yc...) // row s: y_c, for the check
	forms, a1, a2, err := probeForms(ctx, bl, k, n, z, s+1, d, mMax)
	if err != nil {
		return nil, nil, err
	}
	yy := bl.Ddot(n, yc, 1, yc, 1)
	b := make([]float64, s)
	for m := 1; m <= mMax; m++ {
		// Deflated part: Σ_{l<L} (1 − [U q_m(Σ²) Uᵀ]_ll); the Krylov term:
		// Σ_k q_m(σ_k²) ‖U_{1:m,k}‖² over 2m+1 steps.
		theta, _, ok := ritz(l, steps, m)
		if !ok {
			continue
		}
		var defl float64
		for li := 0; li < nDefl; li++ {
			var x float64
			for kk, sk := range sig {
				x += u.At(li, kk) * u.At(li, kk) * polyValue(theta, sk)
			}
			defl += 1 - x
		}
		two := krylovTerm(l, steps, m, theta)
		// Check: y_cᵀq_m(K)y_c against y_cᵀ(y_c − ŷ_m) from the fit.
		var yr, rr float64
		for i, v := range yc {
			r := v - kr.yhat[m*n+i]
			yr += v * r
			rr += r * r
		}
		if !(math.Abs(forms[m][s]-yr) <= recurrenceTol*math.Sqrt(yy*rr)) {
			continue
		}
		for i := range b {
			b[i] = zz[i] - forms[m][i]
		}
		est, sem := controlVariate(b, a1, a2, trK, trK2, dA1, dA2)
		v := 1 + defl + est + 2*two
		if !isNaNOrInf(v) {
			dof[m] = v
			se[m] = sem
		}
	}
	return dof, se, nil
}

// recurrenceTol bounds the relative error of the residual-polynomial
// quadratic forms, checked on y_c.
const recurrenceTol = 1e-6

// controlVariate estimates E[b] from samples b_i and control samples a1_i,
// a2_i whose means A1 ± dA1 and A2 ± dA2 are known, by least squares
// b ≈ β₀ + c₁a1 + c₂a2: the estimate is β₀ + c₁A1 + c₂A2. The known means
// are differences of nearly equal traces when the spectrum decays fast, so
// their rounding error dA is propagated (|c|·dA) and, of the fits with no,
// one or both controls, the one with the smallest total error is used.
func controlVariate(b, a1, a2 []float64, A1, A2, dA1, dA2 float64) (est, se float64) {
	cols := [][]struct {
		a     []float64
		A, dA float64
	}{
		nil,
		{{a1, A1, dA1}},
		{{a1, A1, dA1}, {a2, A2, dA2}},
	}
	best := math.Inf(1)
	est, se = math.NaN(), math.NaN()
	for _, cs := range cols {
		p := len(cs) + 1
		s := len(b)
		if s <= p {
			continue
		}
		x := mat.NewDense(s, p, nil)
		for i := range b {
			x.Set(i, 0, 1)
			for j, c := range cs {
				x.Set(i, j+1, c.a[i])
			}
		}
		var qr mat.QR
		qr.Factorize(x)
		var coef mat.VecDense
		if qr.SolveVecTo(&coef, false, mat.NewVecDense(s, b)) != nil {
			continue
		}
		var rss float64
		for i, v := range b {
			r := v - coef.AtVec(0)
			for j, c := range cs {
				r -= coef.AtVec(j+1) * c.a[i]
			}
			rss += r * r
		}
		// Standard error of the fitted mean at the known point x₀:
		// √(σ²·x₀ᵀ(XᵀX)⁻¹x₀) = σ‖R⁻ᵀx₀‖, plus the propagated rounding.
		x0 := mat.NewVecDense(p, nil)
		x0.SetVec(0, 1)
		e, bias := coef.AtVec(0), 0.0
		for j, c := range cs {
			x0.SetVec(j+1, c.A)
			e += coef.AtVec(j+1) * c.A
			bias += math.Abs(coef.AtVec(j+1)) * c.dA
		}
		var r mat.Dense
		qr.RTo(&r)
		var w mat.VecDense
		if err := w.SolveVec(r.T(), x0); err != nil {
			continue
		}
		sd := math.Sqrt(rss / float64(s-p) * mat.Dot(&w, &w))
		if total := math.Hypot(sd, bias); total < best && !isNaNOrInf(e) {
			best, est, se = total, e, total
		}
	}
	return est, se
}

// polyValue is q_m(λ) = Π_i(1 − λ/θ_i).
func polyValue(theta []float64, lambda float64) float64 {
	q := 1.0
	for _, th := range theta {
		q *= 1 - lambda/th
	}
	return q
}

// krylovTerm is tr(T_mᵀ q_m(K) T_m) from the leading S = 2m+1 steps of L
// (see lanczosDoF).
func krylovTerm(l []float64, ld, m int, theta []float64) float64 {
	S := min(ld, 2*m+1)
	sig, u, ok := ritz(l, ld, S)
	if !ok {
		return math.NaN()
	}
	var tr float64
	for k, sk := range sig {
		var w float64
		for i := 0; i < m; i++ {
			w += u.At(i, k) * u.At(i, k)
		}
		tr += polyValue(theta, sk) * w
	}
	return tr
}

// probeForms returns forms[m][i] = ζ_iᵀ q_m(K) ζ_i for the rows ζ_i of z
// (rows×n) and m = 1..mMax, and the control variates ζ_iᵀKζ_i and
// ‖Kζ_i‖² of the first rows−1 rows, with ⌈mMax/2⌉ block products with K.
//
// The vectors W_j = P_j(K)ζ of the orthonormal polynomials of the Jacobi
// matrix D (α_j = D_jj, β_j = D_{j,j−1}),
//
//	β_{j+1} W_{j+1} = K W_j − α_j W_j − β_j W_{j−1},
//
// are formed up to j = J = ⌈mMax/2⌉, and their Gram matrix per row gives
// the moments M(a,b) = ζᵀ P_a(K) P_b(K) ζ for a, b ≤ J. Writing ζᵀP_a K P_bζ
// through the recurrence on either side gives
//
//	β_{b+1} M(a,b+1) = β_{a+1} M(a+1,b) + (α_a − α_b) M(a,b) + β_a M(a−1,b) − β_b M(a,b−1),
//
// which moves degree from a to b up to M(0,mMax); then ζᵀq_m(K)ζ =
// M(0,m)/P_m(0), since q_m = P_m/P_m(0) is the residual polynomial. Half
// the products of running the recurrence to mMax.
func probeForms(ctx context.Context, bl blas.Float64, k []float64, n int, z []float64, rows int, d func(i, j int) float64, mMax int) (forms [][]float64, a1, a2 []float64, err error) {
	J := (mMax + 1) / 2
	alpha := make([]float64, mMax)
	beta := make([]float64, mMax+1) // beta[j] = β_j couples j−1 and j
	for j := range alpha {
		alpha[j] = d(j, j)
		beta[j+1] = d(j+1, j)
	}
	w := make([][]float64, J+1)
	w[0] = z
	a1 = make([]float64, rows-1)
	a2 = make([]float64, rows-1)
	for j := 0; j < J; j++ {
		if err := ctx.Err(); err != nil {
			return nil, nil, nil, err
		}
		next := make([]float64, rows*n)
		// K is symmetric and stored in full, so W·Kᵀ = W·K; transposed, a
		// backend can take dot products of rows (simd.GemmNT in "go").
		bl.Dgemm(gblas.NoTrans, gblas.Trans, rows, n, n, 1, w[j], n, k, n, 0, next, n)
		if j == 0 {
			for i := range a1 {
				a1[i] = bl.Ddot(n, z[i*n:], 1, next[i*n:], 1)
				a2[i] = bl.Ddot(n, next[i*n:], 1, next[i*n:], 1)
			}
		}
		cur := w[j]
		var prev []float64
		if j > 0 {
			prev = w[j-1]
		}
		for i := range next {
			v := next[i] - alpha[j]*cur[i]
			if prev != nil {
				v -= beta[j] * prev[i]
			}
			next[i] = v / beta[j+1]
		}
		w[j+1] = next
	}
	// P_m(0) by the scalar recurrence.
	p0 := make([]float64, mMax+1)
	p0[0] = 1
	for j := 0; j < mMax; j++ {
		v := -alpha[j] * p0[j]
		if j > 0 {
			v -= beta[j] * p0[j-1]
		}
		p0[j+1] = v / beta[j+1]
	}
	forms = make([][]float64, mMax+1)
	for m := range forms {
		forms[m] = make([]float64, rows)
	}
	mom := make([][]float64, J+1) // mom[a][b], a ≤ J, b ≤ mMax
	for a := range mom {
		mom[a] = make([]float64, max(J, mMax)+1)
	}
	for i := range rows {
		for a := 0; a <= J; a++ {
			for b := a; b <= J; b++ {
				v := bl.Ddot(n, w[a][i*n:], 1, w[b][i*n:], 1)
				mom[a][b], mom[b][a] = v, v
			}
		}
		for b := J; b < mMax; b++ {
			for a := 0; a+b < mMax; a++ {
				v := beta[a+1]*mom[a+1][b] + (alpha[a]-alpha[b])*mom[a][b] - beta[b]*mom[a][b-1]
				if a > 0 {
					v += beta[a] * mom[a-1][b]
				}
				mom[a][b+1] = v / beta[b+1]
			}
		}
		for m := 1; m <= mMax; m++ {
			forms[m][i] = mom[0][m] / p0[m]
		}
	}
	return forms, a1, a2, nil
}
