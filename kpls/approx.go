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

// The number of random probe vectors behind DoFApprox defaults to
// 64000/n within [MinProbes, MaxProbes]: the probes' block products cost
// s·n² flops per component, cheap for small n, where the standard error
// matters most.
const (
	MinProbes = 8
	MaxProbes = 64
)

// approxInput is what the approximate DoF needs from a fit.
type approxInput struct {
	bl        blas.Float64
	op        kernelop.Operator // products with the centred kernel matrix
	yc        []float64         // centred response
	kr        *krylov           // the fit's vectors
	trK, trK2 float64           // tr K and ‖K‖²_F of the centred kernel matrix
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
// the fit's scores (K y_k = θ_k y_k to within a residual the caller's
// tolerance makes negligible) contribute p_m(θ_k) each. The rest is a
// Hutchinson estimate with Rademacher probes ζ projected off both:
// ζᵀq_m(K)ζ comes from running the probes through the fit's own residual
// polynomials (residualForms), one block product per component.
//
// Deflating the converged Ritz vectors is what keeps that recurrence
// stable at high degree: near a converged Ritz value q_m is the small
// solution of its three-term recurrence, and rounding errors there grow
// by a constant factor per step (Lanczos without reorthogonalisation
// loses the same way). The probes' blocks are projected off those
// vectors after every product, where the exact vectors have no component.
//
// Control variates cut the probes' variance: on the deflated space the
// traces of K and K² are known (see controlVariate). y_c rides along,
// split the same way: y_cᵀq_m(K)y_c must equal y_cᵀr_m for the fit's
// residual r_m, which checks the recurrence and the deflation; its
// relative error, carried over to the probes, joins the standard error.
// A value that fails a check is NaN, with its reason.
func approxDoF(ctx context.Context, in approxInput) (dof, se []float64, why []string, err error) {
	mMax, kr, bl := in.mMax, in.kr, in.bl
	n := kr.n
	steps := in.lz.steps
	dof = make([]float64, mMax+1)
	se = make([]float64, mMax+1)
	why = make([]string, mMax+1)
	dof[0] = 1
	for m := 1; m <= mMax; m++ {
		dof[m], se[m] = math.NaN(), math.NaN()
	}
	// Ritz pairs of K on the span of the scores: H = TᵀKT.
	S := kr.steps
	kt := make([]float64, S*n)
	if err := in.op.Mul(ctx, kt, kr.t[:S*n], S); err != nil {
		return nil, nil, nil, err
	}
	defl, err := convergedRitz(bl, kr.t[:S*n], kt, S, n)
	if err != nil {
		return nil, nil, nil, err
	}
	nc := len(defl.theta)

	// Krylov terms that L cannot give (2m+1 > steps) come from the block.
	tRows := 0
	if 2*mMax+1 > steps {
		tRows = mMax
	}
	// For small n the unit vectors replace the random probes: the trace
	// over the deflated space is then exact, at a cost of n rows per
	// block product.
	exactTrace := n <= exactTraceMax
	s := in.probes
	if exactTrace {
		s = n
	}
	rows := s + 1 + tRows // probes, y_c, t_1..t_tRows
	z := make([]float64, rows*n)
	if exactTrace {
		for i := 0; i < n; i++ {
			z[i*n+i] = 1
		}
	} else {
		rng := rand.New(rand.NewPCG(in.seed, 0x6b706c73))
		for i := 0; i < s*n; i++ {
			if rng.Uint64()&1 == 0 {
				z[i] = 1
			} else {
				z[i] = -1
			}
		}
	}
	// Probes off the constant vector (exactly: q_m(0) = 1 there).
	for i := 0; i < s; i++ {
		row := z[i*n : (i+1)*n]
		var mean float64
		for _, v := range row {
			mean += v
		}
		mean /= float64(n)
		for j := range row {
			row[j] -= mean
		}
	}
	copy(z[s*n:], in.yc)
	copy(z[(s+1)*n:], kr.t[:tRows*n])
	// Every row off the converged Ritz vectors; their coefficients (y_kᵀζ)
	// are kept for the rows whose full form is needed (y_c, t_l).
	coef := defl.project(bl, z, rows)
	zz := make([]float64, s)
	for i := range zz {
		zz[i] = bl.Ddot(n, z[i*n:], 1, z[i*n:], 1)
	}
	// Traces of K and K² on the deflated space; trK and trK2 = ‖K‖²_F came
	// from centring with a rounding error of about ε·(both).
	trK, trK2 := in.trK, in.trK2
	const eps = 0x1p-52
	dA1, dA2 := 64*eps*trK, 64*eps*trK2
	for k, th := range defl.theta {
		trK -= th
		trK2 -= defl.kyy[k]
	}
	forms, a1, a2, err := residualForms(ctx, in.op, bl, z, rows, s, in.lz, mMax, defl.project, in.progress)
	if err != nil {
		return nil, nil, nil, err
	}
	// q_m at the converged Ritz values, from the fit's own residual:
	// y_kᵀr_m = q_m(θ_k)·y_kᵀy_c. The product Π(1 − θ_k/θ_i) would be a
	// tiny factor (θ_k next to a Ritz value of the m-step problem, known
	// only to rounding) times huge ones, which float64 cannot resolve.
	// Where y_c has (almost) no weight on y_k the ratio is noise; the
	// product is used there with its rounding bound (polyWithError), which
	// joins the standard error, and a value it swamps is refused.
	yk := coef[s*nc : (s+1)*nc] // y_kᵀy_c
	ykr := make([]float64, nc)  // y_kᵀr_m
	ynorm := math.Sqrt(bl.Ddot(n, in.yc, 1, in.yc, 1))
	qk := func(m int, theta []float64) (q, dq []float64) {
		q, dq = make([]float64, nc), make([]float64, nc)
		if nc == 0 {
			return q, dq
		}
		r := make([]float64, n)
		for i, v := range in.yc {
			r[i] = v - kr.yhat[m*n+i]
		}
		bl.Dgemv(gblas.NoTrans, nc, n, 1, defl.y, n, r, 1, 0, ykr, 1)
		for k := range q {
			if math.Abs(yk[k]) > 1e-8*ynorm {
				q[k] = ykr[k] / yk[k]
			} else {
				q[k], dq[k] = polyWithError(theta, defl.theta[k], eps*math.Max(theta[0], defl.theta[k]))
			}
		}
		return q, dq
	}
	// full returns the whole form of row i, its deflated part plus the
	// projected part from the recurrence, and the rounding bound of the
	// deflated part.
	full := func(m, i int, q, dq []float64) (v, err float64) {
		v = forms[m][i]
		for k := range q {
			c2 := coef[i*nc+k] * coef[i*nc+k]
			v += c2 * q[k]
			err += c2 * dq[k]
		}
		return v, err
	}
	yy := bl.Ddot(n, in.yc, 1, in.yc, 1)
	b := make([]float64, s)
	for m := 1; m <= mMax; m++ {
		theta, ok := in.lz.ritzValues(m)
		if !ok {
			why[m] = "the Ritz values could not be computed"
			continue
		}
		// Check: y_cᵀq_m(K)y_c against y_cᵀ(y_c − ŷ_m) from the fit.
		var yr, rr float64
		for i, v := range in.yc {
			r := v - kr.yhat[m*n+i]
			yr += v * r
			rr += r * r
		}
		q, dq := qk(m, theta)
		fy, _ := full(m, s, q, dq)
		relY := math.Abs(fy-yr) / math.Sqrt(yy*rr)
		if !(relY <= recurrenceTol) {
			why[m] = fmt.Sprintf("the residual polynomial lost accuracy (y_cᵀq_m(K)y_c off by %.2g relative)", relY)
			continue
		}
		// Deflated part: Σ_k p_m(θ_k) over the converged Ritz values.
		var dp, detErr float64 // detErr: rounding bound of the deterministic parts
		for k, v := range q {
			dp += 1 - v
			detErr += dq[k]
		}
		var two, twoErr float64
		if 2*m+1 <= steps {
			// Every S from 2m+1 to the steps run gives the same term in exact
			// arithmetic; the spread of two of them gauges the rounding.
			// Two S share their SVDs across every m: all the steps and one
			// fewer (or 2m+1 when that is all there is).
			gamma := math.Sqrt(kr.rKr[m] / kr.rKr[0])
			var bound float64
			two, bound = in.lz.krylovTerm(m, steps, theta, gamma)
			other, _ := in.lz.krylovTerm(m, max(steps-1, 2*m+1), theta, gamma)
			twoErr = math.Abs(two - other)
			detErr += 2 * bound
		} else {
			for l := 0; l < m; l++ {
				v, e := full(m, s+1+l, q, dq)
				two += v
				detErr += 2 * e
			}
		}
		for i := range b {
			b[i] = zz[i] - forms[m][i]
		}
		var est, sem float64
		if exactTrace {
			for _, v := range b {
				est += v
			}
		} else {
			est, sem = controlVariate(b, a1, a2, trK, trK2, dA1, dA2)
		}
		// The recurrence's error on y_c, relative to ‖y_c‖‖r_m‖, carried
		// over to the probes' ‖ζ‖² scale.
		var zmean float64
		for _, v := range zz {
			zmean += v
		}
		if !exactTrace {
			zmean /= float64(s) // the estimate is a mean over probes, not a sum
		}
		sem = math.Hypot(math.Hypot(sem, relY*zmean), 2*twoErr)
		v := 1 + dp + est + 2*two
		if detErr > detErrMax*math.Abs(v) {
			why[m] = fmt.Sprintf("q_m at Ritz values where y_c has no weight cannot be resolved in float64 (error bound %.2g)", detErr)
			continue
		}
		sem = math.Max(math.Hypot(sem, detErr), seFloor*math.Abs(v))
		if isNaNOrInf(v) || isNaNOrInf(sem) {
			why[m] = "the probes' estimate is not finite"
			continue
		}
		dof[m], se[m] = v, sem
	}
	return dof, se, why, nil
}

// exactTraceMax is the largest n for which approxDoF takes the trace over
// the deflated space with all n unit vectors instead of random probes.
const exactTraceMax = 256

// recurrenceTol bounds the relative error of the residual-polynomial
// quadratic forms, checked on y_c.
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

// ritzDeflation holds the converged Ritz pairs of K on the fit's scores.
type ritzDeflation struct {
	n     int
	theta []float64 // Ritz values
	y     []float64 // Ritz vectors, len(theta)×n, orthonormal
	kyy   []float64 // ‖K y_k‖²
}

// convergedRitz returns the Ritz pairs of K on span(T) (T: S×n
// orthonormal rows, kt = T·K) whose residual is below ritzTol.
func convergedRitz(bl blas.Float64, t, kt []float64, S, n int) (*ritzDeflation, error) {
	h := make([]float64, S*S)
	bl.Dgemm(gblas.NoTrans, gblas.Trans, S, S, n, 1, t, n, kt, n, 0, h, S)
	hs := mat.NewSymDense(S, nil)
	for i := 0; i < S; i++ {
		for j := i; j < S; j++ {
			hs.SetSym(i, j, (h[i*S+j]+h[j*S+i])/2)
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(hs, true) {
		return nil, fmt.Errorf("%w: the Ritz decomposition of the scores failed", ErrBreakdown)
	}
	vals := eig.Values(nil)
	var v mat.Dense
	eig.VectorsTo(&v)
	vt := make([]float64, S*S) // rows: eigenvectors
	for i := 0; i < S; i++ {
		for j := 0; j < S; j++ {
			vt[j*S+i] = v.At(i, j)
		}
	}
	y := make([]float64, S*n)
	ky := make([]float64, S*n)
	bl.Dgemm(gblas.NoTrans, gblas.NoTrans, S, n, S, 1, vt, S, t, n, 0, y, n)
	bl.Dgemm(gblas.NoTrans, gblas.NoTrans, S, n, S, 1, vt, S, kt, n, 0, ky, n)
	top := math.Abs(vals[S-1])
	d := &ritzDeflation{n: n}
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

// residualForms returns forms[m][i] = ζ_iᵀ q_m(K) ζ_i for the rows ζ_i of
// z (rows×n) and m = 1..mMax, and the control variates ζ_iᵀKζ_i and
// ‖Kζ_i‖² of the first s rows, with mMax block products with K. After
// each product, project (if not nil) removes directions in which the
// exact vectors have no component.
//
// q_m(λ) = π_m(λ)/π_m(0) for the characteristic polynomials π_j of the
// leading j×j block of the Jacobi matrix D (diagonal α_j, off-diagonal
// β_j), π_{j+1} = (λ − α_j)π_j − β_j²π_{j−1}. Dividing through by π_j(0)
// gives, with c_j = π_j(0)/π_{j−1}(0) = −α_{j−1} − β_{j−1}²/c_{j−1},
//
//	Q_{j+1} = (K Q_j − α_j Q_j − (β_j²/c_j) Q_{j−1}) / c_{j+1},
//
// Q_0 = ζ: the vectors stay the size of q_j(K)ζ, whatever the degree.
func residualForms(ctx context.Context, op kernelop.Operator, bl blas.Float64, z []float64, rows, s int, lz *lanczos, mMax int, project func(bl blas.Float64, z []float64, rows int) []float64, progress func(done, total int)) (forms [][]float64, a1, a2 []float64, err error) {
	n := len(z) / rows
	alpha, beta := lz.jacobi(mMax)
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
		if err := op.Mul(ctx, kq, cur, rows); err != nil {
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
		if project != nil {
			project(bl, kq, rows)
		}
		prev, cur, kq = cur, kq, prev
		cPrev = c
		f := make([]float64, rows)
		for i := range rows {
			f[i] = bl.Ddot(n, z[i*n:], 1, cur[i*n:], 1)
		}
		forms[j+1] = f
		if progress != nil {
			progress(j+1, mMax)
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
