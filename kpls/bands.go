package kpls

import (
	"context"
	"fmt"
	"math"
	"slices"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/kpls-go/kpls/blas"
	"github.com/kpls-go/kpls/internal/kernelop"
)

// Band is a prediction with its pointwise confidence interval.
type bandValue struct {
	Yhat  float64 `json:"yhat"`
	SE    float64 `json:"se"`
	Lower float64 `json:"lower"`
	Upper float64 `json:"upper"`
}

// BandOptions configure confidence bands. The zero value gives 98 % bands
// with the intercept's share of the variance included.
type bandOpts struct {
	// Level is the coverage in (0, 1); zero means 0.98 (the paper's figure).
	Level float64
	// NoIntercept drops the 1/n term of the variance, as the paper does:
	// se² = σ̂²‖H_mᵀk_c(x)‖² instead of σ̂²(‖H_mᵀk_c(x)‖² + 1/n).
	NoIntercept bool
	// advance, if not nil, is told after each block of points how many
	// points one model (a mean: one member) has finished, from the
	// calling goroutine: what progress within a call is reported from.
	advance func(points int)
}

// advanced tells opt's advance, if any, that points more are done.
func (opt bandOpts) advanced(points int) {
	if opt.advance != nil {
		opt.advance(points)
	}
}

// bandChunk is how many points go through one block product.
const bandChunk = 128

// unreliableTol bounds the relative error of the Ritz-polynomial
// evaluation, checked on α_m = s_m(K) y_c.
const unreliableTol = 1e-6

// predictBands returns predictions for the rows of x with first-order
// confidence intervals f(x) ± z·se(x), se(x)² = s²(‖H_mᵀk_c(x)‖² + 1/n),
// where H_m = ∂α_m/∂y and s is the noise level NoiseLevel(comp): σ̂_m from
// the model's DoF or, where cross-validation chose comp, the RMSECV if
// that is larger. Cost: comp
// products of the n×n kernel matrix with blocks of points, plus, on the
// first request at comp, comp products with the comp scores (kept).
func (m *Model) predictBands(ctx context.Context, x mat.Matrix, comp int, opt bandOpts) ([]bandValue, error) {
	if err := m.checkComponents(comp); err != nil {
		return nil, err
	}
	z, p, err := m.inputs(x)
	if err != nil {
		return nil, err
	}
	return m.bands(ctx, comp, opt, p, func(dst []float64, r0, rows int) {
		m.centredCross(dst, z[r0*m.d:(r0+rows)*m.d], rows)
	})
}

// trainingBands returns the fitted values at the training points with
// their confidence intervals (as PredictBands at the training inputs).
func (m *Model) trainingBands(ctx context.Context, comp int, opt bandOpts) ([]bandValue, error) {
	if err := m.checkComponents(comp); err != nil {
		return nil, err
	}
	// The training rows' kernel vectors, computed as a new point's are
	// (whatever the storage of the kernel matrix).
	return m.bands(ctx, comp, opt, m.n, func(dst []float64, r0, rows int) {
		m.centredCross(dst, m.x[r0*m.d:(r0+rows)*m.d], rows)
	})
}

func (m *Model) bands(ctx context.Context, comp int, opt bandOpts, p int, fill func(dst []float64, r0, rows int)) ([]bandValue, error) {
	zq, err := bandQuantile(ctx, opt)
	if err != nil {
		return nil, err
	}
	sigma, _ := m.noiseLevel(comp)
	if math.IsNaN(sigma) {
		return nil, fmt.Errorf("%w: σ̂ for m = %d needs a DoF, and it could not be computed", ErrUnreliable, comp)
	}
	r, err := m.newBandRun(ctx, comp, min(p, bandChunk))
	if err != nil {
		return nil, err
	}
	chunk := r.chunk
	out := make([]bandValue, p)
	n := m.n
	for r0 := 0; r0 < p; r0 += chunk {
		rows := min(chunk, p-r0)
		fill(r.kx, r0, rows)
		h, f, err := r.vectors(ctx, rows)
		if err != nil {
			return nil, err
		}
		for i := 0; i < rows; i++ {
			var h2 float64
			for _, v := range h[i*n : (i+1)*n] {
				h2 += v * v
			}
			out[r0+i] = bandOf(m.yMean+f[i], h2, m.total(), sigma, zq, opt)
		}
		opt.advanced(rows)
	}
	return out, nil
}

// band is a prediction with the band of variance σ̂²(h2 + 1/n), or
// σ̂²·h2 without the intercept's share (n: N = Σw with weights).
func bandOf(yhat, h2, n float64, sigma, zq float64, opt bandOpts) bandValue {
	if !opt.NoIntercept {
		h2 += 1 / n
	}
	se := sigma * math.Sqrt(h2)
	return bandValue{Yhat: yhat, SE: se, Lower: yhat - zq*se, Upper: yhat + zq*se}
}

// bandQuantile checks the context and the level of opt and returns the
// normal quantile of the two-sided band.
func bandQuantile(ctx context.Context, opt bandOpts) (float64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	level := opt.Level
	if level == 0 {
		level = 0.98
	}
	if !(level > 0 && level < 1) {
		return 0, fmt.Errorf("%w: got %g", ErrLevel, level)
	}
	z := distuv.UnitNormal.Quantile(1 - (1-level)/2)
	if math.IsInf(z, 0) || math.IsNaN(z) {
		// 1 − (1 − level)/2 rounds to 1: the limits would be infinite.
		return 0, fmt.Errorf("%w: %v is too close to 1 for finite limits", ErrLevel, level)
	}
	return z, nil
}

// bandRun computes, for blocks of up to chunk points, the gradients
// H_mᵀk_c(x) of the predictions with respect to the centred response:
// the vectors whose norms make the bands.
type bandRun struct {
	m     *Model
	comp  int
	op    kernelop.Operator
	theta []float64
	qt    []float64 // q_m(K)·T_m, nil at m = 0
	// chunk is the most points one call of vectors takes.
	chunk int
	// kr is the refit's Krylov steps on the reverse path, nil on the
	// Ritz path.
	kr *krylov
	// kx is filled by the caller with the points' centred kernel rows;
	// the others are scratch: rows of work [k_c(x) … | y_c] on which the
	// recurrence gives s_m(K), and the reverse path's adjoints.
	kx, s, q, kq, b, cg, f []float64
	yhb, tb, gb, qb, cb    []float64
	cb2, cbs, tob, gram    []float64
	wt, wk, cc             []float64
	c1, c2, tout           []float64
	tin                    [2][]float64
}

func (m *Model) newBandRun(ctx context.Context, comp, chunk int) (*bandRun, error) {
	op, err := m.operator(ctx)
	if err != nil {
		return nil, err
	}
	theta, _, ok := ritz(m.l, m.steps, comp)
	if comp > 0 && !ok {
		return nil, fmt.Errorf("%w: Ritz values for m = %d", ErrUnreliable, comp)
	}
	r := &bandRun{m: m, comp: comp, op: op, theta: theta, chunk: chunk}
	n := m.n
	exact := comp > 0 && !m.ritzHolds(ctx, op, theta, comp)
	if exact {
		r.chunk = min(chunk, reverseChunk(n, comp))
	}
	r.kx = make([]float64, r.chunk*n)
	r.s = make([]float64, (r.chunk+1)*n)
	r.f = make([]float64, r.chunk)
	if exact {
		// The polynomial form has lost its digits (typically past 12 or
		// so components on real data): differentiate the fit instead.
		if r.kr, err = m.refitKrylov(ctx, comp); err != nil {
			return nil, err
		}
		r.reverseScratch(r.chunk)
		return r, nil
	}
	if comp > 0 {
		if r.qt, err = m.residualScores(ctx, comp, theta, op); err != nil {
			return nil, err
		}
	}
	r.q = make([]float64, (chunk+1)*n)
	r.kq = make([]float64, (chunk+1)*n)
	r.b = make([]float64, chunk*n)
	r.cg = make([]float64, chunk*max(comp, 1))
	return r, nil
}

// ritzHolds is ritzReproduces, computed once per m and kept (an answer
// cut short by the context is not kept).
func (m *Model) ritzHolds(ctx context.Context, op kernelop.Operator, theta []float64, comp int) bool {
	c := m.shared()
	c.qtMu.Lock()
	ok, known := c.ritzOK[comp]
	c.qtMu.Unlock()
	if known {
		return ok
	}
	ok = m.ritzReproduces(ctx, op, theta, comp)
	if ctx.Err() != nil {
		return ok
	}
	c.qtMu.Lock()
	defer c.qtMu.Unlock()
	if c.ritzOK == nil {
		c.ritzOK = map[int]bool{}
	}
	c.ritzOK[comp] = ok
	return ok
}

// ritzReproduces tells whether s_m(K) y_c, evaluated from the Ritz
// values, reproduces α_m to unreliableTol: a direct test of the
// polynomial evaluation the bands' Ritz path makes. It costs comp
// products with one vector.
func (m *Model) ritzReproduces(ctx context.Context, op kernelop.Operator, theta []float64, comp int) bool {
	n := m.n
	alpha := m.alpha[comp*n : (comp+1)*n]
	q := slices.Clone(m.yc)
	s := make([]float64, n)
	if err := ritzRecurrence(ctx, m.opts.Backend, op, theta, q, s, make([]float64, n), 1); err != nil {
		return false
	}
	var num, den float64
	for j, a := range alpha {
		e := s[j] - a
		num += e * e
		den += a * a
	}
	return !(den > 0 && math.Sqrt(num/den) > unreliableTol) && !math.IsNaN(num)
}

// vectors returns, for the first rows points in r.kx, the gradients h
// (rows×n, h_i = H_mᵀk_c(x_i)) and the centred predictions f_i = k_c(x_i)ᵀα_m.
// The slices are r's scratch, valid until the next call.
func (r *bandRun) vectors(ctx context.Context, rows int) (h, f []float64, err error) {
	if r.kr != nil {
		return r.reverseVectors(ctx, rows)
	}
	m, comp, n := r.m, r.comp, r.m.n
	bl := m.opts.Backend
	alpha := m.alpha[comp*n : (comp+1)*n]
	copy(r.q, r.kx[:rows*n])
	if comp == 0 {
		clear(r.b[:rows*n])
	} else {
		// b = q_m(K) T Gᵀ k, for every row at once.
		bl.Dgemm(gblas.NoTrans, gblas.Trans, rows, comp, n, 1, r.kx, n, m.g, n, 0, r.cg, comp)
		bl.Dgemm(gblas.NoTrans, gblas.NoTrans, rows, n, comp, 1, r.cg, comp, r.qt, n, 0, r.b, n)
	}
	clear(r.s[:rows*n])
	if err := ritzRecurrence(ctx, bl, r.op, r.theta, r.q, r.s, r.kq, rows); err != nil {
		return nil, nil, err
	}
	for i := 0; i < rows; i++ {
		si, bi, ki := r.s[i*n:(i+1)*n], r.b[i*n:(i+1)*n], r.kx[i*n:(i+1)*n]
		var fi float64
		for j := range si {
			si[j] += 2 * bi[j]
			fi += ki[j] * alpha[j]
		}
		r.f[i] = fi
	}
	return r.s[:rows*n], r.f[:rows], nil
}

// ritzRecurrence runs q ← (I − K/θ)q over the Ritz values θ of the m-step
// problem on the w rows of q, adding q/θ to s (when s is not nil) before
// each step. Afterwards q holds q_m(K)q₀ and s holds s_m(K)q₀ with
// q_m(λ) = Π(1 − λ/θ) and s_m = (1 − q_m)/λ. kq is w×n scratch.
func ritzRecurrence(ctx context.Context, bl blas.Float64, op kernelop.Operator, theta, q, s, kq []float64, w int) error {
	n := op.N()
	for _, th := range theta {
		if s != nil {
			bl.Daxpy(w*n, 1/th, q, 1, s, 1)
		}
		if err := op.Mul(ctx, kq, q, w); err != nil {
			return err
		}
		bl.Daxpy(w*n, -1/th, kq, 1, q, 1)
	}
	return nil
}

// residualScores returns q_m(K)·T_m (m×n, m = comp), computing it on the
// first request for m: m products of K with m rows, which every later
// band at m reuses (the second term of H_mᵀk is this times Gᵀk).
func (m *Model) residualScores(ctx context.Context, comp int, theta []float64, op kernelop.Operator) ([]float64, error) {
	c := m.shared()
	c.qtMu.Lock()
	qt, ok := c.qt[comp]
	c.qtMu.Unlock()
	if ok {
		return qt, nil
	}
	n := m.n
	qt = append([]float64(nil), m.t[:comp*n]...)
	if err := ritzRecurrence(ctx, m.opts.Backend, op, theta, qt, nil, make([]float64, comp*n), comp); err != nil {
		return nil, err
	}
	c.qtMu.Lock()
	defer c.qtMu.Unlock()
	if c.qt == nil {
		c.qt = map[int][]float64{}
	}
	if prev, ok := c.qt[comp]; ok { // another goroutine was first
		return prev, nil
	}
	c.qt[comp] = qt
	return qt, nil
}
