package kpls

import (
	"context"
	"fmt"
	"math"
	"slices"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/blas"
	"github.com/kpls-go/kpls/internal/kernelop"
)

// Breakdown thresholds (docs/design.md §2). A component is refused when
// Gram–Schmidt leaves less than breakRatio of the new direction, or when
// the K-normalised residuals lose K-orthogonality by more than korthTol.
// A third check stops when the m-step Ritz values span more than
// ritzCondMax (θ_max/θ_min = cond(D_m)): past it the residual polynomial
// Π(1 − λ/θ_i), which the DoF and the confidence bands are made of,
// loses more than half of float64's digits.
const (
	breakRatio  = 1e-8
	korthTol    = 1e-4
	ritzCondMax = 1e9
)

// krylov is the outcome of kernel NIPALS on a centred kernel matrix: every
// quantity for m = 0..steps, rows stored contiguously (row i = component i+1).
type krylov struct {
	n, steps int
	t, g, r  []float64 // steps×n: scores, coefficient directions (K g = t), residuals
	ktr      []float64 // steps×n: K r_i, the fit's own matvecs
	rKr      []float64 // r_iᵀ K r_i
	q        []float64 // q_i = t_iᵀ y_c
	alpha    []float64 // (steps+1)×n: α_m
	yhat     []float64 // (steps+1)×n: centred fitted values ŷ_m
	rss      []float64 // RSS_m
	stop     Stop      // why the fit stopped early; the zero value if it did not

	// lRun is L (see lanczosL) grown by one column per step for the
	// breakdown check, maxSteps×maxSteps with leading dimension ld.
	lRun []float64
	ld   int
	// lInv is L⁻¹, grown with L (same layout): the squared Frobenius
	// norms of L and L⁻¹ bound the condition of D = LᵀL from above,
	// which spares the breakdown check its SVD while the bound is well
	// below ritzCondMax (ritzCond).
	lInv []float64
	// out carries the scores to rows the fit does not train on
	// (cross-validation's held-out rows); nil without.
	out *outOfFold
}

// float32Resolution bounds the rounding of a product K r on float32
// storage relative to the product itself, ρ = 2⁻²⁴‖K_c‖_F‖r‖/‖K r‖ (a
// bound: every stored entry is within 2⁻²⁴|K_c,ij| of K_c, so the stored
// matrix differs from K_c by E with ‖E‖₂ ≤ 2⁻²⁴‖K_c‖_F). Late Krylov
// steps, whose residuals K barely sees, are where float32 loses the
// digits the DoF and the bands are made of; 1e-3 is 20 times inside the
// 2 % the DoF estimates are held to (kpls/storage_test.go measures it).
const float32Resolution = 1e-3

// nipals runs kernel NIPALS with two-pass Gram–Schmidt for up to maxSteps
// components on the centred kernel matrix op and centred response yc.
func nipals(ctx context.Context, bl blas.Float64, op kernelop.Operator, yc []float64, maxSteps int, progress func(done, total int)) (*krylov, error) {
	kr := newKrylov(op.N(), maxSteps)
	kr.rss[0] = bl.Ddot(kr.n, yc, 1, yc, 1)
	if err := kr.extend(ctx, bl, op, yc, progress); err != nil {
		return nil, err
	}
	if kr.steps == 0 {
		return nil, fmt.Errorf("%w: %s", ErrBreakdown, kr.stop.Message)
	}
	return kr, nil
}

// newKrylov makes room for maxSteps steps on n rows.
func newKrylov(n, maxSteps int) *krylov {
	return &krylov{
		n:     n,
		t:     make([]float64, maxSteps*n),
		g:     make([]float64, maxSteps*n),
		r:     make([]float64, maxSteps*n),
		ktr:   make([]float64, maxSteps*n),
		rKr:   make([]float64, maxSteps),
		q:     make([]float64, maxSteps),
		alpha: make([]float64, (maxSteps+1)*n),
		yhat:  make([]float64, (maxSteps+1)*n),
		rss:   make([]float64, maxSteps+1),
		lRun:  make([]float64, maxSteps*maxSteps),
		lInv:  make([]float64, maxSteps*maxSteps),
		ld:    maxSteps,
	}
}

// grow makes room for maxSteps steps in all of kr's arrays.
func (kr *krylov) grow(maxSteps int) {
	if maxSteps <= kr.ld {
		return
	}
	n, old := kr.n, kr.ld
	more := func(a []float64, rows int) []float64 { return extendZeroed(a, rows*n) }
	kr.t, kr.g, kr.r, kr.ktr = more(kr.t, maxSteps), more(kr.g, maxSteps), more(kr.r, maxSteps), more(kr.ktr, maxSteps)
	kr.alpha, kr.yhat = more(kr.alpha, maxSteps+1), more(kr.yhat, maxSteps+1)
	kr.rKr = append(kr.rKr, make([]float64, maxSteps-old)...)
	kr.q = append(kr.q, make([]float64, maxSteps-old)...)
	kr.rss = append(kr.rss, make([]float64, maxSteps-old)...)
	relayout := func(a []float64) []float64 {
		b := make([]float64, maxSteps*maxSteps)
		for i := 0; i < old; i++ {
			copy(b[i*maxSteps:i*maxSteps+old], a[i*old:(i+1)*old])
		}
		return b
	}
	kr.lRun, kr.lInv, kr.ld = relayout(kr.lRun), relayout(kr.lInv), maxSteps
	kr.out.grow(maxSteps)
}

// upTo returns a tight copy of kr's first steps steps (at most kr.steps):
// what a fit run for exactly that many steps holds, enough for
// fitter.model. Such a fit never tries the step after, so the copy has
// no stop.
func (kr *krylov) upTo(steps int) *krylov {
	n := kr.n
	return &krylov{
		n: n, steps: steps, ld: steps,
		t:     slices.Clone(kr.t[:steps*n]),
		g:     slices.Clone(kr.g[:steps*n]),
		ktr:   slices.Clone(kr.ktr[:steps*n]),
		rKr:   slices.Clone(kr.rKr[:steps]),
		q:     slices.Clone(kr.q[:steps]),
		alpha: slices.Clone(kr.alpha[:(steps+1)*n]),
		yhat:  slices.Clone(kr.yhat[:(steps+1)*n]),
		rss:   slices.Clone(kr.rss[:steps+1]),
	}
}

// extendZeroed returns a with length need (≥ len(a)), the new entries
// zero. Capacity grows by half at least: the search asks for a few
// components more at a time, and copying every n-row array at each
// request was 5 % of kin8nm's select (O(m²) rows copied per sequence).
// The spare capacity is never written before it is handed out, so it is
// still the zeros of make.
func extendZeroed(a []float64, need int) []float64 {
	if need <= cap(a) {
		return a[:need]
	}
	b := make([]float64, need, max(need, cap(a)+cap(a)/2))
	copy(b, a)
	return b
}

// extend runs the Krylov steps from kr.steps on, with products from op,
// until the steps kr was made for or a stop. A fit that stopped because
// float32 storage no longer resolved its products continues this way on
// a float64 operator (fitter.continueFloat64).
func (kr *krylov) extend(ctx context.Context, bl blas.Float64, op kernelop.Operator, yc []float64, progress func(done, total int)) error {
	kr.stop = Stop{}
	st := kr.stepper(op)
	for i := kr.steps; i < kr.ld; i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		r := kr.residual(i, yc)
		if err := op.Mul(ctx, kr.ktr[i*kr.n:(i+1)*kr.n], r, 1); err != nil {
			return err
		}
		if !kr.absorb(bl, st, yc) {
			break
		}
		if progress != nil {
			progress(i+1, kr.ld)
		}
	}
	return nil
}

// stepState is what every step of one run of extend shares.
type stepState struct {
	storeEps float64   // relative rounding of the stored entries beyond float64
	normK    float64   // ‖K_c‖_F
	coef     []float64 // Gram–Schmidt coefficients
	// tKr holds t_lᵀ(K r_i), l < i, from the first Gram–Schmidt pass:
	// the new column of L but for its last entry (ritzCond).
	tKr []float64
}

func (kr *krylov) stepper(op kernelop.Operator) *stepState {
	st := &stepState{normK: math.Sqrt(op.Stats().Frob2), coef: make([]float64, kr.ld), tKr: make([]float64, kr.ld)}
	if op.Kind() == kernelop.KindFloat32 {
		st.storeEps = 0x1p-24
	}
	return st
}

// residual writes r_i = y_c − ŷ_i, the vector step i multiplies by K, into
// row i of kr.r and returns it.
func (kr *krylov) residual(i int, yc []float64) []float64 {
	n := kr.n
	r := kr.r[i*n : (i+1)*n]
	yhPrev := kr.yhat[i*n : (i+1)*n]
	for j := range r {
		r[j] = yc[j] - yhPrev[j]
	}
	return r
}

// absorb completes step i = kr.steps from the product K r_i in row i of
// kr.ktr: the stopping checks, two-pass Gram–Schmidt of the new score
// and coefficient direction, and the step's coefficients and fitted
// values. It returns false, with kr.stop set, when the fit stops here.
func (kr *krylov) absorb(bl blas.Float64, st *stepState, yc []float64) bool {
	n, i := kr.n, kr.steps
	r := kr.r[i*n : (i+1)*n]
	tt := kr.ktr[i*n : (i+1)*n]
	if st.storeEps > 0 {
		if rho := st.storeEps * st.normK * bl.Dnrm2(n, r, 1) / bl.Dnrm2(n, tt, 1); !(rho <= float32Resolution) {
			kr.stop = stopAt(StopStorage, i+1, "float32 storage of the kernel matrix resolves the product K r only to %.1g of itself", rho)
			return false
		}
	}
	rkr := bl.Ddot(n, r, 1, tt, 1)
	if !(rkr > 0) || isNaNOrInf(rkr) {
		kr.stop = stopAt(StopNoWeight, i+1, "the residual has no weight on the kernel (rᵀKr = %.3g)", rkr)
		return false
	}
	// K-orthogonality of the residuals: r_lᵀ K r_i = 0 in exact arithmetic.
	if i > 0 {
		c := st.coef[:i]
		bl.Dgemv(gblas.NoTrans, i, n, 1, kr.r, n, tt, 1, 0, c, 1)
		worst := 0.0
		for l, v := range c {
			worst = math.Max(worst, math.Abs(v)/math.Sqrt(kr.rKr[l]*rkr))
		}
		if worst > korthTol {
			kr.stop = stopAt(StopOrthogonality, i+1, "residuals lost K-orthogonality (%.2g)", worst)
			return false
		}
	}
	t := kr.t[i*n : (i+1)*n]
	g := kr.g[i*n : (i+1)*n]
	copy(t, tt)
	copy(g, r)
	kr.out.begin(i)
	for pass := 0; pass < 2 && i > 0; pass++ {
		c := st.coef[:i]
		bl.Dgemv(gblas.NoTrans, i, n, 1, kr.t, n, t, 1, 0, c, 1)
		if pass == 0 {
			copy(st.tKr, c) // t is still K r_i
		}
		bl.Dgemv(gblas.Trans, i, n, -1, kr.t, n, c, 1, 1, t, 1)
		bl.Dgemv(gblas.Trans, i, n, -1, kr.g, n, c, 1, 1, g, 1)
		kr.out.subtract(bl, i, c)
	}
	nu := bl.Dnrm2(n, t, 1)
	if nu <= breakRatio*bl.Dnrm2(n, tt, 1) || isNaNOrInf(nu) {
		kr.stop = stopAt(StopExhausted, i+1, "the Krylov space is exhausted (new direction %.2g of its matvec)", nu/bl.Dnrm2(n, tt, 1))
		return false
	}
	bl.Dscal(n, 1/nu, t, 1)
	bl.Dscal(n, 1/nu, g, 1)
	q := bl.Ddot(n, t, 1, yc, 1)
	kr.q[i] = q
	kr.rKr[i] = rkr
	yh := kr.yhat[(i+1)*n : (i+2)*n]
	copy(yh, kr.yhat[i*n:(i+1)*n])
	bl.Daxpy(n, q, t, 1, yh, 1)
	al := kr.alpha[(i+1)*n : (i+2)*n]
	copy(al, kr.alpha[i*n:(i+1)*n])
	bl.Daxpy(n, q, g, 1, al, 1)
	kr.out.finish(bl, i, 1/nu, q)
	var rss float64
	for j, v := range yh {
		e := yc[j] - v
		rss += e * e
	}
	kr.rss[i+1] = rss
	kr.steps = i + 1
	if c := kr.ritzCond(bl, st.tKr[:i]); c > ritzCondMax {
		kr.steps = i
		kr.stop = stopAt(StopRitzSpread, i+1, "the Ritz values span %.2g, beyond what float64 resolves", c)
		return false
	}
	return true
}

// ritzCond returns θ_max/θ_min, the condition number of D over the steps
// so far, or, while an upper bound on it is below ritzCondMax/2, that
// bound: the breakdown check only compares it with ritzCondMax, and the
// bound spares it an SVD per step (O(steps³)), which on small data sets
// cost more than the products with K.
func (kr *krylov) ritzCond(bl blas.Float64, tKr []float64) float64 {
	// The fit calls this after every step, so L grows by its new column,
	// L[i][j] = t_iᵀ(K r_j)/√(r_jᵀKr_j) for i ≤ j, and L⁻¹ with it: for
	// L = [[A, c], [0, d]], L⁻¹ = [[A⁻¹, −A⁻¹c/d], [0, 1/d]]. tKr holds
	// t_iᵀ(K r_j) for i < j, which the step's Gram–Schmidt computed; only
	// the new score's entry is a new product.
	s, n, ld := kr.steps, kr.n, kr.ld
	j := s - 1
	col := make([]float64, s)
	scale := 1 / math.Sqrt(kr.rKr[j])
	for i, v := range tKr[:j] {
		col[i] = scale * v
	}
	col[j] = scale * bl.Ddot(n, kr.t[j*n:(j+1)*n], 1, kr.ktr[j*n:(j+1)*n], 1)
	d := col[j]
	for i, v := range col {
		kr.lRun[i*ld+j] = v
	}
	for i := range j {
		var acc float64
		for l := i; l < j; l++ {
			acc += kr.lInv[i*ld+l] * col[l]
		}
		kr.lInv[i*ld+j] = -acc / d
	}
	kr.lInv[j*ld+j] = 1 / d
	if s < 2 {
		return 1
	}
	// σ_max ≤ ‖L‖_F and 1/σ_min ≤ ‖L⁻¹‖_F, so (σ_max/σ_min)² ≤ ‖L‖²_F‖L⁻¹‖²_F.
	var lF2, invF2 float64
	for i := range s {
		for c := i; c < s; c++ {
			lF2 += kr.lRun[i*ld+c] * kr.lRun[i*ld+c]
			invF2 += kr.lInv[i*ld+c] * kr.lInv[i*ld+c]
		}
	}
	if b := lF2 * invF2; b <= ritzCondMax/2 {
		return b
	}
	lm := mat.NewDense(s, s, nil)
	for i := 0; i < s; i++ {
		for c := i; c < s; c++ {
			lm.Set(i, c, kr.lRun[i*ld+c])
		}
	}
	var svd mat.SVD
	if !svd.Factorize(lm, mat.SVDNone) {
		return math.Inf(1)
	}
	sv := svd.Values(nil)
	if !(sv[s-1] > 0) {
		return math.Inf(1)
	}
	r := sv[0] / sv[s-1]
	return r * r
}

// lanczosL returns L = Tᵀ K R̂ (steps×steps, row-major, upper triangular;
// bidiagonal in exact arithmetic) where R̂ holds the K-normalised residuals
// r_i/√(r_iᵀKr_i). Then D = LᵀL = R̂ᵀK²R̂, and K R̂ = T L.
func (kr *krylov) lanczosL(bl blas.Float64, steps int) []float64 {
	n := kr.n
	l := make([]float64, steps*steps)
	// L[i][j] = t_iᵀ (K r_j) / √(r_jᵀ K r_j); TᵀK R, computed as one product.
	bl.Dgemm(gblas.NoTrans, gblas.Trans, steps, steps, n, 1, kr.t, n, kr.ktr, n, 0, l, steps)
	for i := 0; i < steps; i++ {
		for j := 0; j < steps; j++ {
			if j < i {
				l[i*steps+j] = 0 // exactly zero in exact arithmetic
				continue
			}
			l[i*steps+j] /= math.Sqrt(kr.rKr[j])
		}
	}
	return l
}

func stopAt(r StopReason, comp int, format string, args ...any) Stop {
	return Stop{Reason: r, Component: comp, Message: fmt.Sprintf("component %d: ", comp) + fmt.Sprintf(format, args...)}
}
