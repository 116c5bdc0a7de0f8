package kpls

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/blas"
	"github.com/kpls-go/kpls/internal/kernelop"
)

// approxInput is what the approximate DoF needs from a fit.
type approxInput struct {
	bl        blas.Float64
	op        kernelop.Operator // products with the centred kernel matrix
	yc        []float64         // centred response
	kr        *krylov           // the fit's vectors
	trK, trK2 float64           // tr K and ‖K‖²_F of the centred kernel matrix; trK2 NaN if unknown
	null      []float64         // the unit vector K annihilates; nil: the constant vector
	lz        *lanczos          // the fit's Lanczos matrix
	mMax      int               // DoF(m) for m = 1..mMax
	probes    int
	seed      uint64
	progress  func(done, total int)
}

// approxDoF estimates DoF(m), m = 1..mMax, including the intercept, in
// quadratic time and with a standard error (docs/design.md §3). It splits
//
//	DoF₀(m) = tr p_m(K) + 2 tr(T_mᵀ q_m(K) T_m).
//
// The second term is exact from the Lanczos matrix while the fit ran
// 2m+1 steps; otherwise the rows of T_m ride along with the probes.
//
// The trace of p_m = 1 − q_m is split three ways. K annihilates the
// constant vector, where p_m = 0. The converged Ritz vectors y_k of K on
// the fit's Krylov space (K y_k = θ_k y_k to within a residual the
// caller's tolerance makes negligible; ritzBasis finds them with one
// product beyond the fit's own) contribute p_m(θ_k) each. The rest is a
// Hutchinson estimate with Rademacher probes ζ projected off both:
// ζᵀq_m(K)ζ comes from a Lanczos run per probe, whose Gauss rule is exact
// for every q_m with m ≤ mMax after ⌈(mMax+1)/2⌉ block products
// (lanczosQuadrature), or, where its vectors would not fit in memory,
// from running the probes through the fit's own residual polynomials,
// one block product per component (residualRecurrence).
//
// Deflating the converged Ritz vectors keeps q_m's evaluation stable at
// high degree, on vectors (the recurrence) and at the Gauss nodes alike:
// near a converged Ritz value q_m is the small solution of its three-term
// recurrence, and rounding errors there grow by a constant factor per
// step. It also takes the largest eigenvalues, where the probes' variance
// comes from, out of the estimate. The probes' blocks are projected off
// those vectors after every product, where the exact vectors have no
// component.
//
// Control variates cut the probes' variance: on the deflated space the
// traces of K and K² are known (see controlVariate). y_c rides along,
// split the same way: y_cᵀq_m(K)y_c must equal y_cᵀr_m for the fit's
// residual r_m, which checks the forms and the deflation; its
// relative error, carried over to the probes, joins the standard error.
// A value that fails a check is NaN, with its reason.
func approxDoF(ctx context.Context, in approxInput) (dof, se []float64, why []string, err error) {
	dof = make([]float64, in.mMax+1)
	se = make([]float64, in.mMax+1)
	why = make([]string, in.mMax+1)
	dof[0] = 1
	for m := 1; m <= in.mMax; m++ {
		dof[m], se[m] = math.NaN(), math.NaN()
	}
	r, err := newApproxRun(ctx, in)
	if err != nil {
		return nil, nil, nil, err
	}
	for m := 1; m <= in.mMax; m++ {
		v, sem, reason := r.estimate(m)
		if reason != "" {
			why[m] = reason
			continue
		}
		dof[m], se[m] = v, sem
	}
	return dof, se, why, nil
}

// approxRun is what every m of approxDoF shares: the deflation, the probe
// block with its forms at every degree, and the traces on the deflated
// space. newApproxRun pays for it once (all of approxDoF's block
// products); estimate then takes one m at a time.
type approxRun struct {
	in         approxInput
	n          int
	s          int  // probes: the first s rows of the block
	exactTrace bool // the probes are the n unit vectors
	defl       *ritzDeflation
	nc         int         // converged Ritz pairs deflated
	coef       []float64   // y_kᵀζ_i taken off row i (rows×nc)
	zz         []float64   // ‖ζ_i‖² of the deflated probes
	forms      [][]float64 // forms[m][i]: the projected part of ζ_iᵀq_m(K)ζ_i
	a1, a2     []float64   // the probes' control samples ζᵀKζ and ‖Kζ‖²
	trK, trK2  float64     // tr K and tr K² on the deflated space
	dA1, dA2   float64     // their rounding bounds
	yk         []float64   // y_kᵀy_c
	yy, ynorm  float64     // ‖y_c‖², ‖y_c‖
}

// newApproxRun deflates the converged Ritz pairs of K on the fit's Krylov
// space (ritzBasis), builds the probe block and takes its forms through
// the residual polynomials (lanczosQuadrature, or residualRecurrence).
func newApproxRun(ctx context.Context, in approxInput) (*approxRun, error) {
	const eps = 0x1p-52
	kr, bl := in.kr, in.bl
	n := kr.n
	// One product past the fit, K r_S, carries the Krylov space one step
	// further than the fit's scores span.
	S := kr.steps
	rS := make([]float64, n)
	for i, v := range in.yc {
		rS[i] = v - kr.yhat[S*n+i]
	}
	krS := make([]float64, n)
	if err := in.op.Mul(ctx, krS, rS, 1); err != nil {
		return nil, err
	}
	basis, kBasis, rows, withRS := ritzBasis(bl, kr, rS, krS)
	defl, err := convergedRitz(bl, basis, kBasis, rows, n)
	if err != nil && withRS {
		// r_S all but in the span of the others: the basis without it.
		defl, err = convergedRitz(bl, basis, kBasis, rows-1, n)
	}
	if err != nil {
		return nil, err
	}
	r := &approxRun{in: in, n: n, defl: defl, nc: len(defl.theta)}
	// For small n the unit vectors replace the random probes: the trace
	// over the deflated space is then exact, at a cost of n rows per
	// block product.
	r.exactTrace = n <= exactTraceMax
	r.s = in.probes
	if r.exactTrace {
		r.s = n
	}
	z, rows := r.probeBlock()
	// Every row off the converged Ritz vectors; their coefficients (y_kᵀζ)
	// are kept for the rows whose full form is needed (y_c, t_l).
	r.coef = defl.project(bl, z, rows)
	r.zz = make([]float64, r.s)
	for i := range r.zz {
		r.zz[i] = bl.Ddot(n, z[i*n:], 1, z[i*n:], 1)
	}
	// Traces of K and K² on the deflated space; trK and trK2 = ‖K‖²_F came
	// from centring with a rounding error of about ε·(both).
	r.trK, r.trK2 = in.trK, in.trK2
	r.dA1, r.dA2 = 64*eps*r.trK, 64*eps*r.trK2
	for k, th := range defl.theta {
		r.trK -= th
		r.trK2 -= defl.kyy[k]
	}
	// The Gauss rules need half the block products of the recurrence, and
	// memory for every row's Lanczos vectors.
	if quadratureBytes(rows, n, in.mMax) <= quadratureMaxBytes {
		lq := lanczosQuadrature{op: in.op, bl: bl, lz: in.lz, mMax: in.mMax, project: defl.project, progress: in.progress}
		r.forms, r.a1, r.a2, err = lq.forms(ctx, z, rows, r.s)
	} else {
		rec := residualRecurrence{op: in.op, bl: bl, lz: in.lz, mMax: in.mMax, project: defl.project, progress: in.progress}
		r.forms, r.a1, r.a2, err = rec.forms(ctx, z, rows, r.s)
	}
	if err != nil {
		return nil, err
	}
	r.yk = r.coef[r.s*r.nc : (r.s+1)*r.nc]
	r.yy = bl.Ddot(n, in.yc, 1, in.yc, 1)
	r.ynorm = math.Sqrt(r.yy)
	return r, nil
}

// probeBlock returns the rows whose forms are taken together:
// the s probes, y_c for the check, and t_1..t_mMax when the Lanczos
// matrix is too short for the Krylov terms (2·mMax+1 > steps).
func (r *approxRun) probeBlock() (z []float64, rows int) {
	n, s := r.n, r.s
	tRows := 0
	if 2*r.in.mMax+1 > r.in.lz.steps {
		tRows = r.in.mMax
	}
	rows = s + 1 + tRows
	z = make([]float64, rows*n)
	if r.exactTrace {
		for i := 0; i < n; i++ {
			z[i*n+i] = 1
		}
	} else {
		rng := rand.New(rand.NewPCG(r.in.seed, 0x6b706c73))
		for i := 0; i < s*n; i++ {
			if rng.Uint64()&1 == 0 {
				z[i] = 1
			} else {
				z[i] = -1
			}
		}
	}
	// Probes off the vector K annihilates (exactly: q_m(0) = 1 there):
	// the constant vector, or √w/‖√w‖ in a weighted fit.
	for i := 0; i < s; i++ {
		row := z[i*n : (i+1)*n]
		if u := r.in.null; u != nil {
			var c float64
			for j, v := range row {
				c += u[j] * v
			}
			for j := range row {
				row[j] -= c * u[j]
			}
			continue
		}
		var mean float64
		for _, v := range row {
			mean += v
		}
		mean /= float64(n)
		for j := range row {
			row[j] -= mean
		}
	}
	copy(z[s*n:], r.in.yc)
	copy(z[(s+1)*n:], r.in.kr.t[:tRows*n])
	return z, rows
}

// ritzQ returns q_m at the converged Ritz values, with rounding bounds,
// from the fit's own residual: y_kᵀr_m = q_m(θ_k)·y_kᵀy_c. The product
// Π(1 − θ_k/θ_i) would be a tiny factor (θ_k next to a Ritz value of the
// m-step problem, known only to rounding) times huge ones, which float64
// cannot resolve. Where y_c has (almost) no weight on y_k the ratio is
// noise; the product is used there with its rounding bound
// (polyWithError), which joins the standard error, and a value it swamps
// is refused.
func (r *approxRun) ritzQ(m int, theta []float64) (q, dq []float64) {
	const eps = 0x1p-52
	nc, n := r.nc, r.n
	q, dq = make([]float64, nc), make([]float64, nc)
	if nc == 0 {
		return q, dq
	}
	res := make([]float64, n)
	for i, v := range r.in.yc {
		res[i] = v - r.in.kr.yhat[m*n+i]
	}
	ykr := make([]float64, nc) // y_kᵀr_m
	r.in.bl.Dgemv(gblas.NoTrans, nc, n, 1, r.defl.y, n, res, 1, 0, ykr, 1)
	for k := range q {
		if math.Abs(r.yk[k]) > 1e-8*r.ynorm {
			q[k] = ykr[k] / r.yk[k]
		} else {
			th := r.defl.theta[k]
			q[k], dq[k] = polyWithError(theta, th, eps*math.Max(theta[0], th))
		}
	}
	return q, dq
}

// full returns the whole form ζ_iᵀq_m(K)ζ_i of row i, the projected part
// from its forms plus the deflated part Σ_k (y_kᵀζ_i)² q_m(θ_k), and
// the rounding bound of the deflated part: the check on y_c and the
// Krylov rows need the form on all of ℝⁿ.
func (r *approxRun) full(m, i int, q, dq []float64) (v, bound float64) {
	v = r.forms[m][i]
	nc := r.nc
	for k := range q {
		c2 := r.coef[i*nc+k] * r.coef[i*nc+k]
		v += c2 * q[k]
		bound += c2 * dq[k]
	}
	return v, bound
}

// krylovTerm returns tr(T_mᵀq_m(K)T_m) and the spread of two evaluations
// of it, and adds its rounding bound to *detErr term by term. The term is
// exact from the Lanczos matrix while the fit ran 2m+1 steps; otherwise
// the rows of T_m rode along with the probes.
func (r *approxRun) krylovTerm(m int, theta, q, dq []float64, detErr *float64) (two, twoErr float64) {
	lz := r.in.lz
	if steps := lz.steps; 2*m+1 <= steps {
		// Every S from 2m+1 to the steps run gives the same term in exact
		// arithmetic; the spread of two of them gauges the rounding.
		// Two S share their SVDs across every m: all the steps and one
		// fewer (or 2m+1 when that is all there is).
		gamma := math.Sqrt(r.in.kr.rKr[m] / r.in.kr.rKr[0])
		two, bound := lz.krylovTerm(m, steps, theta, gamma)
		other, _ := lz.krylovTerm(m, max(steps-1, 2*m+1), theta, gamma)
		*detErr += 2 * bound
		return two, math.Abs(two - other)
	}
	for l := 0; l < m; l++ {
		v, e := r.full(m, r.s+1+l, q, dq)
		two += v
		*detErr += 2 * e
	}
	return two, 0
}

// probeTrace estimates tr p_m(K) on the deflated space from the probes'
// samples ζᵀζ − ζᵀq_m(K)ζ, with a standard error that includes the
// forms' error on y_c (relY, relative to ‖y_c‖‖r_m‖) carried over
// to the probes' ‖ζ‖² scale: the check sees that error, the probes'
// spread does not.
func (r *approxRun) probeTrace(m int, relY float64) (est, sem float64) {
	b := make([]float64, r.s)
	for i := range b {
		b[i] = r.zz[i] - r.forms[m][i]
	}
	if r.exactTrace {
		for _, v := range b {
			est += v
		}
	} else {
		est, sem = controlVariate(b, r.a1, r.a2, r.trK, r.trK2, r.dA1, r.dA2)
	}
	var zmean float64
	for _, v := range r.zz {
		zmean += v
	}
	if !r.exactTrace {
		zmean /= float64(r.s) // the estimate is a mean over probes, not a sum
	}
	return est, math.Hypot(sem, relY*zmean)
}

// estimate returns DoF(m) and its standard error, or why it refuses the
// value: the check on y_c failed, or the deterministic parts carry more
// rounding than the value can take.
func (r *approxRun) estimate(m int) (dof, se float64, why string) {
	theta, ok := r.in.lz.ritzValues(m)
	if !ok {
		return 0, 0, "the Ritz values could not be computed"
	}
	// Check: y_cᵀq_m(K)y_c against y_cᵀ(y_c − ŷ_m) from the fit.
	n, yhat := r.n, r.in.kr.yhat
	var yr, rr float64
	for i, v := range r.in.yc {
		res := v - yhat[m*n+i]
		yr += v * res
		rr += res * res
	}
	q, dq := r.ritzQ(m, theta)
	fy, _ := r.full(m, r.s, q, dq)
	if isNaNOrInf(fy) {
		return 0, 0, "the quadratic form of y_c could not be computed (no Gauss rule for its Lanczos run)"
	}
	relY := math.Abs(fy-yr) / math.Sqrt(r.yy*rr)
	if !(relY <= recurrenceTol) {
		return 0, 0, fmt.Sprintf("the residual polynomial lost accuracy (y_cᵀq_m(K)y_c off by %.2g relative)", relY)
	}
	// Deflated part: Σ_k p_m(θ_k) over the converged Ritz values.
	var dp, detErr float64 // detErr: rounding bound of the deterministic parts
	for k, v := range q {
		dp += 1 - v
		detErr += dq[k]
	}
	two, twoErr := r.krylovTerm(m, theta, q, dq, &detErr)
	est, se := r.probeTrace(m, relY)
	se = math.Hypot(se, 2*twoErr)
	dof = 1 + dp + est + 2*two
	if detErr > detErrMax*math.Abs(dof) {
		return 0, 0, fmt.Sprintf("q_m at Ritz values where y_c has no weight cannot be resolved in float64 (error bound %.2g)", detErr)
	}
	se = math.Max(math.Hypot(se, detErr), seFloor*math.Abs(dof))
	if isNaNOrInf(dof) || isNaNOrInf(se) {
		return 0, 0, "the probes' estimate is not finite"
	}
	return dof, se, ""
}

// exactTraceMax is the largest n for which approxDoF takes the trace over
// the deflated space with all n unit vectors instead of random probes.
const exactTraceMax = 256

// recurrenceTol bounds the relative error of the residual-polynomial
// quadratic forms (Gauss rules or recurrence), checked on y_c.
const recurrenceTol = 1e-3

// detErrMax is the largest rounding bound, relative to the DoF, that the
// deterministic parts may carry before approxDoF refuses the value.
const detErrMax = 0.01

// seFloor is the smallest standard error, relative to the DoF, that
// approxDoF reports: its deterministic parts (the Ritz deflation, the
// Krylov term) carry rounding that neither the probes' spread nor the y_c
// check sees. Against the exact DoF (itself checked by finite differences)
// they were off by at most 3e-4 relative, at the breakdown edge of a
// one-feature fit where the exact DoF and finite differences differ by
// 2e-5.
const seFloor = 5e-4

// ritzTol is the largest residual ‖Ky − θy‖, relative to the largest Ritz
// value, of a Ritz pair deflated as an eigenpair.
var ritzTol = 1e-10

// ritzDeflation holds the converged Ritz pairs of K on the fit's Krylov
// space (ritzBasis).
type ritzDeflation struct {
	n     int
	theta []float64 // Ritz values
	y     []float64 // Ritz vectors, len(theta)×n, orthonormal
	kyy   []float64 // ‖K y_k‖²
}

// ritzBasis returns a basis of the Krylov space span(r_0..r_S) and its
// products with K, from the fit's own products K r_i and one more,
// kr_S = K r_S for the residual r_S after the last step: one pass over K
// for one vector, where the fit's S scores would take a block of S. The
// residuals themselves are far from orthogonal (r_iᵀr_m = ‖r_m‖² for
// i < m), their differences are not: r_i − r_{i+1} = q_i t_i, so
// d_i = (r_i − r_{i+1})/q_i is the score t_i to rounding, with
// K d_i = (K r_i − K r_{i+1})/q_i, and r_S is orthogonal to all of them.
// The space contains the scores' span(t_0..t_{S−1}) = K·span(r_0..r_{S−1}).
// A difference whose q_i is tiny next to ‖r_i‖ would carry the products'
// rounding magnified by ‖r_i‖/|q_i|; it is left out (ritzBasisAmp), which
// can only leave fewer Ritz pairs to deflate. So is an r_S at the level of
// rounding (the fit reproduces y_c): its direction would be noise. withRS
// says whether r_S is the last row.
func ritzBasis(bl blas.Float64, kr *krylov, rS, krS []float64) (b, kb []float64, rows int, withRS bool) {
	n, S := kr.n, kr.steps
	b = make([]float64, 0, (S+1)*n)
	kb = make([]float64, 0, (S+1)*n)
	res := func(i int) (r, k []float64) {
		if i == S {
			return rS, krS
		}
		return kr.r[i*n : (i+1)*n], kr.ktr[i*n : (i+1)*n]
	}
	for i := 0; i < S; i++ {
		ri, ki := res(i)
		rj, kj := res(i + 1)
		q := kr.q[i]
		if !(math.Abs(q)*ritzBasisAmp >= bl.Dnrm2(n, ri, 1)) {
			continue
		}
		for j := range ri {
			b = append(b, (ri[j]-rj[j])/q)
		}
		for j := range ki {
			kb = append(kb, (ki[j]-kj[j])/q)
		}
		rows++
	}
	const eps = 0x1p-52
	floor := 64 * eps * math.Sqrt(float64(n)) * bl.Dnrm2(n, kr.r[:n], 1) // r_0 = y_c
	if nr := bl.Dnrm2(n, rS, 1); nr > floor {
		for _, v := range rS {
			b = append(b, v/nr)
		}
		for _, v := range krS {
			kb = append(kb, v/nr)
		}
		rows++
		withRS = true
	}
	return b, kb, rows, withRS
}

// ritzBasisAmp is the largest ‖r_i‖/|q_i| for which ritzBasis keeps the
// difference d_i; the rounding of K d_i is that many times the products'
// own. convergedRitz measures residuals against these products, so this
// cap is what keeps their rounding below the ritzTol·‖K‖ a deflated pair
// is held to: a product's rounding is about ε‖K‖ in practice (ε√n‖K‖ is
// a pessimistic bound). Measured at n = 4000–8192 (RBF fits of 61 steps,
// noisy and noise-free): ratios up to 18, and K d_i within 1e-15‖K‖ of a
// direct product.
const ritzBasisAmp = 1e4

// convergedRitz returns the Ritz pairs of K on span(B) (B: S×n rows,
// nearly orthonormal; kb = B·K) whose residual is below ritzTol. B's
// rows are orthonormalised through the Cholesky factor of BBᵀ. b and kb
// are overwritten with the Ritz vectors and their products.
func convergedRitz(bl blas.Float64, b, kb []float64, S, n int) (*ritzDeflation, error) {
	d := &ritzDeflation{n: n}
	if S == 0 {
		return d, nil
	}
	g := make([]float64, S*S)
	h := make([]float64, S*S)
	bl.Dgemm(gblas.NoTrans, gblas.Trans, S, S, n, 1, b, n, b, n, 0, g, S)
	bl.Dgemm(gblas.NoTrans, gblas.Trans, S, S, n, 1, b, n, kb, n, 0, h, S)
	gs := mat.NewSymDense(S, nil)
	hs := mat.NewSymDense(S, nil)
	for i := 0; i < S; i++ {
		for j := i; j < S; j++ {
			gs.SetSym(i, j, (g[i*S+j]+g[j*S+i])/2)
			hs.SetSym(i, j, (h[i*S+j]+h[j*S+i])/2)
		}
	}
	// With BBᵀ = UᵀU the rows of U⁻ᵀB are orthonormal, and the Ritz
	// problem on them is U⁻ᵀHU⁻¹.
	var ch mat.Cholesky
	if !ch.Factorize(gs) {
		return nil, fmt.Errorf("%w: the fit's Krylov basis is degenerate", ErrBreakdown)
	}
	var u, uInv mat.TriDense
	ch.UTo(&u)
	if err := uInv.InverseTri(&u); err != nil {
		return nil, fmt.Errorf("%w: the fit's Krylov basis is degenerate", ErrBreakdown)
	}
	var ht mat.Dense
	ht.Mul(uInv.T(), hs)
	ht.Mul(&ht, &uInv)
	for i := 0; i < S; i++ {
		for j := i; j < S; j++ {
			hs.SetSym(i, j, (ht.At(i, j)+ht.At(j, i))/2)
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(hs, true) {
		return nil, fmt.Errorf("%w: the Ritz decomposition of the fit's Krylov space failed", ErrBreakdown)
	}
	vals := eig.Values(nil)
	var v, c mat.Dense
	eig.VectorsTo(&v)
	c.Mul(&uInv, &v)           // the Ritz vectors' coefficients on B
	vt := make([]float64, S*S) // rows: the Ritz vectors' coefficients
	for i := 0; i < S; i++ {
		for j := 0; j < S; j++ {
			vt[j*S+i] = c.At(i, j)
		}
	}
	y, ky := b[:S*n], kb[:S*n]
	inPlaceLeftMul(bl, vt, y, S, n)
	inPlaceLeftMul(bl, vt, ky, S, n)
	top := math.Abs(vals[S-1])
	for k := S - 1; k >= 0; k-- {
		var res, kk float64
		yk, kyk := y[k*n:(k+1)*n], ky[k*n:(k+1)*n]
		for i := range yk {
			r := kyk[i] - vals[k]*yk[i]
			res += r * r
			kk += kyk[i] * kyk[i]
		}
		if math.Sqrt(res) <= ritzTol*top && vals[k] > 0 {
			d.theta = append(d.theta, vals[k])
			d.kyy = append(d.kyy, kk)
			d.y = append(d.y, yk...)
		}
	}
	return d, nil
}

// inPlaceLeftMul overwrites the S×n rows a with c·a (c: S×S), a stretch
// of columns at a time, so that only S×512 more floats are needed.
func inPlaceLeftMul(bl blas.Float64, c, a []float64, S, n int) {
	const stretch = 512
	tmp := make([]float64, S*stretch)
	for j0 := 0; j0 < n; j0 += stretch {
		w := min(stretch, n-j0)
		bl.Dgemm(gblas.NoTrans, gblas.NoTrans, S, w, S, 1, c, S, a[j0:], n, 0, tmp, w)
		for i := range S {
			copy(a[i*n+j0:i*n+j0+w], tmp[i*w:(i+1)*w])
		}
	}
}

// project removes the Ritz vectors from each of the rows of z (rows×n)
// and returns the coefficients (rows×len(theta)) it removed.
func (d *ritzDeflation) project(bl blas.Float64, z []float64, rows int) []float64 {
	nc := len(d.theta)
	if nc == 0 {
		return nil
	}
	c := make([]float64, rows*nc)
	bl.Dgemm(gblas.NoTrans, gblas.Trans, rows, nc, d.n, 1, z, d.n, d.y, d.n, 0, c, nc)
	bl.Dgemm(gblas.NoTrans, gblas.NoTrans, rows, d.n, nc, -1, c, nc, d.y, d.n, 1, z, d.n)
	return c
}

// residualRecurrence runs blocks of rows through the fit's residual
// polynomials q_m(K), m = 1..mMax: the operator, the Jacobi matrix the
// polynomials come from, and what runs alongside the products, named
// rather than passed as a long list of arguments.
type residualRecurrence struct {
	op   kernelop.Operator
	bl   blas.Float64
	lz   *lanczos
	mMax int
	// project, when not nil, removes after each product directions in
	// which the exact vectors have no component.
	project  func(bl blas.Float64, z []float64, rows int) []float64
	progress func(done, total int)
}

// forms returns forms[m][i] = ζ_iᵀ q_m(K) ζ_i for the rows ζ_i of z
// (rows×n) and m = 1..mMax, and the control variates ζ_iᵀKζ_i and
// ‖Kζ_i‖² of the first s rows, with mMax block products with K.
//
// q_m(λ) = π_m(λ)/π_m(0) for the characteristic polynomials π_j of the
// leading j×j block of the Jacobi matrix D (diagonal α_j, off-diagonal
// β_j), π_{j+1} = (λ − α_j)π_j − β_j²π_{j−1}. Dividing through by π_j(0)
// gives, with c_j = π_j(0)/π_{j−1}(0) = −α_{j−1} − β_{j−1}²/c_{j−1},
//
//	Q_{j+1} = (K Q_j − α_j Q_j − (β_j²/c_j) Q_{j−1}) / c_{j+1},
//
// Q_0 = ζ: the vectors stay the size of q_j(K)ζ, whatever the degree.
func (rr residualRecurrence) forms(ctx context.Context, z []float64, rows, s int) (forms [][]float64, a1, a2 []float64, err error) {
	bl, mMax := rr.bl, rr.mMax
	n := len(z) / rows
	alpha, beta := rr.lz.jacobi(mMax)
	forms = make([][]float64, mMax+1)
	forms[0] = make([]float64, rows)
	for i := range rows {
		forms[0][i] = bl.Ddot(n, z[i*n:], 1, z[i*n:], 1)
	}
	a1 = make([]float64, s)
	a2 = make([]float64, s)
	prev := make([]float64, rows*n)
	cur := append([]float64(nil), z...)
	kq := make([]float64, rows*n)
	var cPrev float64
	for j := 0; j < mMax; j++ {
		if err := rr.op.Mul(ctx, kq, cur, rows); err != nil {
			return nil, nil, nil, err
		}
		if j == 0 {
			for i := range a1 {
				a1[i] = bl.Ddot(n, z[i*n:], 1, kq[i*n:], 1)
				a2[i] = bl.Ddot(n, kq[i*n:], 1, kq[i*n:], 1)
			}
		}
		// c_{j+1} = −α_j − β_j²/c_j.
		c := -alpha[j]
		g := 0.0
		if j > 0 {
			g = beta[j] * beta[j] / cPrev
			c -= g
		}
		for i := range kq {
			kq[i] = (kq[i] - alpha[j]*cur[i] - g*prev[i]) / c
		}
		if rr.project != nil {
			rr.project(bl, kq, rows)
		}
		prev, cur, kq = cur, kq, prev
		cPrev = c
		f := make([]float64, rows)
		for i := range rows {
			f[i] = bl.Ddot(n, z[i*n:], 1, cur[i*n:], 1)
		}
		forms[j+1] = f
		if rr.progress != nil {
			rr.progress(j+1, mMax)
		}
	}
	return forms, a1, a2, nil
}

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
	for k, cs := range cols {
		if k == 2 && math.IsNaN(A2) {
			continue // ‖K‖²_F unknown: no second variate
		}
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
