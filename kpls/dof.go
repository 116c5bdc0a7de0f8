package kpls

import (
	"context"
	"math"

	gblas "gonum.org/v1/gonum/blas"

	"github.com/kpls-go/kpls/blas"
	"github.com/kpls-go/kpls/internal/kernelop"
)

// lanczosTol is the largest relative rounding error (estimated) that the
// Lanczos DoF may carry before it is reported as unreliable.
const lanczosTol = 1e-6

// lanczosDoF returns the paper's approximate DoF (its Definition, with the
// c_j misprint fixed), including the intercept, for m = 1..mMax. L is the
// ld×ld Lanczos matrix of the fit; the Ritz values μ come from its leading
// M×M block (the paper's m_max):
//
//	DoF₀(m) = Σ_{k≤M} p_m(μ_k) + 2 tr(T_mᵀ q_m(K) T_m).
//
// The second term needs no matvecs: q_m(K)T_m lies in the Krylov space of
// S = 2m+1 steps, where tr(T_mᵀ q_m(K) T_m) is the trace of the leading
// m×m block of L_S q_m(D_S) L_S⁻¹. Writing L_S = UΣVᵀ, that is
// U q_m(Σ²) Uᵀ: Σ_k q_m(σ_k²) ‖U_{1:m,k}‖², with no inverse. The fit runs
// the S steps (fewer only when the Krylov space is exhausted, and then it
// is invariant and the identity holds already).
//
// When some Ritz values are tiny, q_m(μ) = Π_i(1 − μ/θ_i) is a huge number
// that must cancel, and float64 cannot deliver it. The rounding error is
// estimated from an absolute error ε·μ_max in every Ritz value; where it
// exceeds lanczosTol relative, the value is NaN (not reliable).
func lanczosDoF(l []float64, ld, M, mMax int) []float64 {
	const eps = 0x1p-52
	out := make([]float64, mMax+1)
	out[0] = 1
	mu, uM, ok := ritz(l, ld, M)
	for m := 1; m <= mMax; m++ {
		out[m] = math.NaN()
		if !ok {
			continue
		}
		theta, _, ok1 := ritz(l, ld, m)
		S := min(ld, max(M, 2*m+1))
		sig, u, ok2 := mu, uM, true
		if S != M { // one SVD of the M steps serves every m with 2m+1 ≤ M
			sig, u, ok2 = ritz(l, ld, S)
		}
		if !ok1 || !ok2 {
			continue
		}
		delta := eps * math.Max(mu[0], sig[0])
		dof, errEst := 1.0, 0.0
		for _, muk := range mu {
			q, dq := polyWithError(theta, muk, delta)
			dof += 1 - q
			errEst += dq
		}
		for k, sk := range sig {
			var w float64
			for i := 0; i < m; i++ {
				w += u.At(i, k) * u.At(i, k)
			}
			q, dq := polyWithError(theta, sk, delta)
			dof += 2 * q * w
			errEst += 2 * dq * w
		}
		if errEst <= lanczosTol*math.Abs(dof) && !isNaNOrInf(dof) {
			out[m] = dof
		}
	}
	return out
}

// polyWithError returns q_m(λ) = Π_i(1 − λ/θ_i) and a first-order bound on
// its error when λ and every θ_i carry an absolute error δ.
func polyWithError(theta []float64, lambda, delta float64) (q, dq float64) {
	q = 1
	for _, th := range theta {
		q *= 1 - lambda/th
	}
	for i, th := range theta {
		// ∂q/∂(factor i) times the factor's error δ(1/θ_i + λ/θ_i²).
		rest := 1.0
		for j, tj := range theta {
			if j != i {
				rest *= 1 - lambda/tj
			}
		}
		dq += math.Abs(rest) * delta * (1/th + math.Abs(lambda)/(th*th))
	}
	return q, dq
}

// exactDoF returns trace(∂ŷ_m/∂y) + 1 for m = 1..mMax by forward-mode
// differentiation of the fit itself (the same two-pass Gram–Schmidt and
// normalisation as nipals), in blocks of directions e_k. Cost O(n³·mMax).
// Differentiating the algorithm that produced ŷ, rather than evaluating
// the Corollary's polynomial forms, stays accurate up to the breakdown
// point, where the Ritz-value forms lose all digits.
func exactDoF(ctx context.Context, bl blas.Float64, op kernelop.Operator, yc []float64, kr *krylov, mMax int, progress func(done, total int)) ([]float64, error) {
	n := op.N()
	out := make([]float64, mMax+1)
	out[0] = 1
	b := min(n, 128, max(1, int(256e6/(16*float64(mMax)*float64(n)))))
	e := newExactRun(bl, op, yc, kr, mMax, b)
	blocks := (n + b - 1) / b
	for blk := 0; blk < blocks; blk++ {
		c0 := blk * b
		w := min(b, n-c0) // directions e_{c0}..e_{c0+w-1}
		clear(e.dYh)
		for i := 0; i < mMax; i++ {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			tr, err := e.component(ctx, i, c0, w)
			if err != nil {
				return nil, err
			}
			out[i+1] += tr
		}
		if progress != nil {
			progress(blk+1, blocks)
		}
	}
	for m := 1; m <= mMax; m++ {
		out[m]++
	}
	return out, nil
}

// exactRun holds the derivatives of the fit's vectors along one block of
// b directions (n×b, row a = coordinate a) while exactDoF differentiates
// the fit component by component, and the scratch that goes with them,
// allocated once for every block.
type exactRun struct {
	bl     blas.Float64
	op     kernelop.Operator
	yc     []float64
	kr     *krylov
	n, b   int
	dT, dG []float64 // mMax×(n×b): derivatives of the scores t_i and the directions g_i
	dYh    []float64 // derivative of ŷ after the components so far
	dR, dt []float64 // derivatives of the residual and of t̃ = K r
	dg     []float64 // derivative of g before normalisation
	dc     []float64 // mMax×b: derivatives of the Gram–Schmidt coefficients
	row    []float64 // b: one derivative per direction
	// dA, if not nil, accumulates the derivative of α = Σ q_i g_i:
	// Σ dq_i g_i + q_i dG_i, n×b like the others. The DoF do not use it;
	// the tests' forward Jacobian ∂α/∂y does, the oracle of the bands'
	// reverse path (kpls/bands_exact_test.go).
	dA []float64
	// The operator multiplies vectors stored as rows; the directions here
	// are columns (n×b), so they go through a transposed copy.
	dRt, dtt []float64
	t, g, c  []float64 // the fit's t, g and Gram–Schmidt coefficients, redone
}

func newExactRun(bl blas.Float64, op kernelop.Operator, yc []float64, kr *krylov, mMax, b int) *exactRun {
	n := op.N()
	return &exactRun{
		bl: bl, op: op, yc: yc, kr: kr, n: n, b: b,
		dT:  make([]float64, mMax*n*b),
		dG:  make([]float64, mMax*n*b),
		dYh: make([]float64, n*b),
		dR:  make([]float64, n*b),
		dt:  make([]float64, n*b),
		dg:  make([]float64, n*b),
		dc:  make([]float64, mMax*b),
		row: make([]float64, b),
		dRt: make([]float64, b*n),
		dtt: make([]float64, b*n),
		t:   make([]float64, n),
		g:   make([]float64, n),
		c:   make([]float64, mMax),
	}
}

// component differentiates component i+1 of the fit along the w
// directions e_{c0}.. and returns its share of the trace of ∂ŷ/∂y over
// them: each component's derivatives rest on those of the earlier ones,
// so the components of a block go in order.
func (e *exactRun) component(ctx context.Context, i, c0, w int) (float64, error) {
	bl, kr, n, b := e.bl, e.kr, e.n, e.b
	if err := e.residualProduct(ctx, c0, w); err != nil {
		return 0, err
	}
	copy(e.dg, e.dR)
	copy(e.t, kr.ktr[i*n:(i+1)*n])
	copy(e.g, kr.r[i*n:(i+1)*n])
	for pass := 0; pass < 2 && i > 0; pass++ {
		e.orthogonalise(i, w)
	}
	// Normalise: t/ν with dν = tᵀdt/ν.
	t, g, dt, dg, row := e.t, e.g, e.dt, e.dg, e.row
	nu := bl.Dnrm2(n, t, 1)
	bl.Dgemv(gblas.Trans, n, w, 1/nu, dt, b, t, 1, 0, row, 1) // row = dν
	tn := kr.t[i*n : (i+1)*n]
	dTi := e.dT[i*n*b : (i+1)*n*b]
	dGi := e.dG[i*n*b : (i+1)*n*b]
	for a := 0; a < n; a++ {
		ta, ga := t[a]/(nu*nu), g[a]/(nu*nu)
		for j := 0; j < w; j++ {
			dTi[a*b+j] = dt[a*b+j]/nu - ta*row[j]
			dGi[a*b+j] = dg[a*b+j]/nu - ga*row[j]
		}
	}
	// q = tᵀy_c: dq = y_cᵀ dt + t at the differentiated index.
	bl.Dgemv(gblas.Trans, n, w, 1, dTi, b, e.yc, 1, 0, row, 1)
	for j := 0; j < w; j++ {
		row[j] += tn[c0+j]
	}
	q := kr.q[i]
	if e.dA != nil {
		gn := kr.g[i*n : (i+1)*n]
		for a := 0; a < n; a++ {
			for j := 0; j < w; j++ {
				e.dA[a*b+j] += gn[a]*row[j] + q*dGi[a*b+j]
			}
		}
	}
	var tr float64
	for a := 0; a < n; a++ {
		for j := 0; j < w; j++ {
			e.dYh[a*b+j] += tn[a]*row[j] + q*dTi[a*b+j]
		}
		if a >= c0 && a < c0+w {
			tr += e.dYh[a*b+a-c0]
		}
	}
	return tr, nil
}

// residualProduct sets dR = E − dŶ and dt = K dR, the derivative of
// t̃ = K r, with one block product.
func (e *exactRun) residualProduct(ctx context.Context, c0, w int) error {
	n, b := e.n, e.b
	for a := 0; a < n; a++ {
		for j := 0; j < w; j++ {
			v := -e.dYh[a*b+j]
			if a == c0+j {
				v++
			}
			e.dR[a*b+j] = v
		}
	}
	for a := 0; a < n; a++ {
		for j := 0; j < w; j++ {
			e.dRt[j*n+a] = e.dR[a*b+j]
		}
	}
	if err := e.op.Mul(ctx, e.dtt, e.dRt, w); err != nil {
		return err
	}
	for a := 0; a < n; a++ {
		for j := 0; j < w; j++ {
			e.dt[a*b+j] = e.dtt[j*n+a]
		}
	}
	return nil
}

// orthogonalise is one Gram–Schmidt pass of t (and g alongside) against
// the first i scores, with its derivative: the fit makes two such passes,
// and the derivative must follow the same arithmetic.
func (e *exactRun) orthogonalise(i, w int) {
	bl, kr, n, b := e.bl, e.kr, e.n, e.b
	t, g, dt, dg, dc, row := e.t, e.g, e.dt, e.dg, e.dc, e.row
	// c_l = t_lᵀ t; dc_l = tᵀ dT_l + t_lᵀ dt.
	cc := e.c[:i]
	bl.Dgemv(gblas.NoTrans, i, n, 1, kr.t, n, t, 1, 0, cc, 1)
	bl.Dgemm(gblas.NoTrans, gblas.NoTrans, i, w, n, 1, kr.t, n, dt, b, 0, dc, b)
	for l := 0; l < i; l++ {
		bl.Dgemv(gblas.Trans, n, w, 1, e.dT[l*n*b:], b, t, 1, 0, row, 1)
		bl.Daxpy(w, 1, row, 1, dc[l*b:], 1)
	}
	// t −= Σ c_l t_l; dt −= Σ t_l dc_l + c_l dT_l (and the same for g).
	bl.Dgemv(gblas.Trans, i, n, -1, kr.t, n, cc, 1, 1, t, 1)
	bl.Dgemv(gblas.Trans, i, n, -1, kr.g, n, cc, 1, 1, g, 1)
	bl.Dgemm(gblas.Trans, gblas.NoTrans, n, w, i, -1, kr.t, n, dc, b, 1, dt, b)
	bl.Dgemm(gblas.Trans, gblas.NoTrans, n, w, i, -1, kr.g, n, dc, b, 1, dg, b)
	for l := 0; l < i; l++ {
		bl.Daxpy(n*b, -cc[l], e.dT[l*n*b:(l+1)*n*b], 1, dt, 1)
		bl.Daxpy(n*b, -cc[l], e.dG[l*n*b:(l+1)*n*b], 1, dg, 1)
	}
}
