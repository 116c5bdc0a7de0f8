package ard

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"
)

// The bounds of the search, in standardised units and the target's
// variance: the length scales' are those lab/relevance/ardgp.py gives
// scikit-learn's ARD GP (its own defaults are 1e-5 to 1e5), the noise's
// keep the matrix well conditioned. A parameter past its bound is held
// there, its gradient zero.
const (
	minScale, maxScale   = 1e-2, 1e3
	minSignal, maxSignal = 1e-5, 1e5
	minNoise, maxNoise   = 1e-6, 1e1
	// jitter keeps the matrix positive definite to rounding (scikit-learn
	// adds the same).
	jitter = 1e-10
	// maxIterations bounds the optimiser's steps (each one or a few
	// evaluations): the panel's sets took 25–120 evaluations, the most
	// with 100 and 255 features.
	maxIterations = 100
)

// Result is the outcome of Fit.
type Result struct {
	// Scales are the length scales ℓ_j, one per feature, in the units of
	// the features Fit was given.
	Scales []float64
	// Signal and Noise are σ_f² and σ_n², relative to the target's
	// variance.
	Signal, Noise float64
	// NegLogML is the negative log marginal likelihood of the scaled
	// target at the optimum; Evaluations the objective's evaluations.
	NegLogML    float64
	Evaluations int
}

// Weights are the scales as feature weights: min ℓ / ℓ_j, the largest 1,
// none below floor.
func (r *Result) Weights(floor float64) []float64 {
	lo := math.Inf(1)
	for _, s := range r.Scales {
		lo = min(lo, s)
	}
	w := make([]float64, len(r.Scales))
	for j, s := range r.Scales {
		w[j] = max(floor, lo/s)
	}
	return w
}

// ErrBreakdown reports an objective that could not be evaluated at the
// starting point (a target constant to rounding, say).
var ErrBreakdown = errors.New("ard: the marginal likelihood cannot be evaluated")

// Fit maximises the marginal likelihood over the length scales, the
// signal and the noise, from ℓ_j = √d, σ_f² = 1, σ_n² = 0.1, with x's
// n rows (the features standardised by the caller) and y scaled here to
// mean 0 and variance 1.
func Fit(ctx context.Context, x *mat.Dense, y []float64) (*Result, error) {
	n, d := x.Dims()
	if n != len(y) || n < 2 || d < 1 {
		return nil, fmt.Errorf("ard: %d rows, %d targets, %d features", n, len(y), d)
	}
	yc, ok := scaled(y)
	if !ok {
		return nil, fmt.Errorf("%w: the target is constant", ErrBreakdown)
	}
	o := newObjective(x, yc)
	theta := make([]float64, d+2)
	for j := range d {
		theta[j] = 0.5 * math.Log(float64(d))
	}
	theta[d], theta[d+1] = 0, math.Log(0.1)
	if f, _ := o.eval(theta, nil); math.IsInf(f, 1) {
		return nil, ErrBreakdown
	}
	// The line search asks for the value and the gradient at each point
	// it tries, one call after the other; both come from one
	// factorisation.
	var last struct {
		theta, grad []float64
		f           float64
	}
	at := func(t []float64) {
		if slices.Equal(t, last.theta) {
			return
		}
		last.grad = make([]float64, len(t))
		last.f, _ = o.eval(t, last.grad)
		last.theta = slices.Clone(t)
	}
	p := optimize.Problem{
		Func: func(t []float64) float64 { at(t); return last.f },
		Grad: func(g, t []float64) { at(t); copy(g, last.grad) },
	}
	settings := &optimize.Settings{
		MajorIterations:   maxIterations,
		GradientThreshold: 1e-5,
		Converger:         cancellable{ctx, &optimize.FunctionConverge{Relative: 1e-5, Iterations: 3}},
		Concurrent:        1,
	}
	res, err := optimize.Minimize(p, theta, settings, &optimize.LBFGS{})
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if res == nil {
		return nil, fmt.Errorf("ard: %w", err)
	}
	// A line search that fails near the optimum still leaves its best
	// point, which is what a bounded caller can use.
	out := &Result{Scales: make([]float64, d), NegLogML: res.F, Evaluations: o.evals}
	for j := range d {
		out.Scales[j] = math.Exp(clamp(res.X[j], minScale, maxScale))
	}
	out.Signal = math.Exp(clamp(res.X[d], minSignal, maxSignal))
	out.Noise = math.Exp(clamp(res.X[d+1], minNoise, maxNoise))
	if math.IsInf(res.F, 0) || math.IsNaN(res.F) {
		return nil, ErrBreakdown
	}
	return out, nil
}

// cancellable stops the optimiser at its next step once ctx is done.
type cancellable struct {
	ctx context.Context
	optimize.Converger
}

func (c cancellable) Converged(l *optimize.Location) optimize.Status {
	if c.ctx.Err() != nil {
		return optimize.Failure
	}
	return c.Converger.Converged(l)
}

// clamp holds a log-parameter within [log lo, log hi].
func clamp(t, lo, hi float64) float64 { return min(max(t, math.Log(lo)), math.Log(hi)) }

// scaled returns y with mean 0 and variance 1, false if y is constant.
func scaled(y []float64) ([]float64, bool) {
	n := float64(len(y))
	var mean float64
	for _, v := range y {
		mean += v
	}
	mean /= n
	var ss float64
	for _, v := range y {
		ss += (v - mean) * (v - mean)
	}
	sd := math.Sqrt(ss / n)
	if !(sd > 0) || math.IsInf(sd, 0) {
		return nil, false
	}
	out := make([]float64, len(y))
	for i, v := range y {
		out[i] = (v - mean) / sd
	}
	return out, true
}

// objective is the negative log marginal likelihood of y under the
// kernel with log-parameters θ = (log ℓ_1…log ℓ_d, log σ_f², log σ_n²).
type objective struct {
	x     *mat.Dense
	y     []float64
	n, d  int
	evals int
	// buffers reused across evaluations
	kf, k, w *mat.Dense
	xs       *mat.Dense
}

func newObjective(x *mat.Dense, y []float64) *objective {
	n, d := x.Dims()
	return &objective{x: x, y: y, n: n, d: d,
		kf: mat.NewDense(n, n, nil), k: mat.NewDense(n, n, nil), w: mat.NewDense(n, n, nil), xs: mat.NewDense(n, d, nil)}
}

// eval returns the objective at θ and, if grad is not nil, writes its
// gradient there; +Inf where the matrix is not positive definite.
func (o *objective) eval(theta, grad []float64) (float64, []float64) {
	o.evals++
	n, d := o.n, o.d
	scales := make([]float64, d)
	for j := range d {
		scales[j] = math.Exp(clamp(theta[j], minScale, maxScale))
	}
	signal := math.Exp(clamp(theta[d], minSignal, maxSignal))
	noise := math.Exp(clamp(theta[d+1], minNoise, maxNoise))
	// Rows divided by the scales: the kernel's squared distances.
	for i := range n {
		xi, si := o.x.RawRowView(i), o.xs.RawRowView(i)
		for j := range d {
			si[j] = xi[j] / scales[j]
		}
	}
	kf := o.kf.RawMatrix().Data
	for a := range n {
		ra := o.xs.RawRowView(a)
		for b := 0; b <= a; b++ {
			rb := o.xs.RawRowView(b)[:len(ra)]
			var s float64
			for j, v := range ra {
				t := v - rb[j]
				s += t * t
			}
			v := signal * math.Exp(-0.5*s)
			kf[a*n+b], kf[b*n+a] = v, v
		}
	}
	o.k.Copy(o.kf)
	for i := range n {
		o.k.Set(i, i, o.k.At(i, i)+noise+jitter)
	}
	var chol mat.Cholesky
	if !chol.Factorize(mat.NewSymDense(n, o.k.RawMatrix().Data)) {
		if grad != nil {
			for i := range grad {
				grad[i] = 0
			}
		}
		return math.Inf(1), grad
	}
	alpha := mat.NewVecDense(n, nil)
	if err := chol.SolveVecTo(alpha, mat.NewVecDense(n, o.y)); err != nil {
		return math.Inf(1), grad
	}
	f := 0.5*mat.Dot(alpha, mat.NewVecDense(n, o.y)) + 0.5*chol.LogDet() + 0.5*float64(n)*math.Log(2*math.Pi)
	if grad == nil {
		return f, nil
	}
	// ∂f/∂θ_i = ½ tr((K⁻¹ − ααᵀ) ∂K/∂θ_i).
	var inv mat.SymDense
	if err := chol.InverseTo(&inv); err != nil {
		return math.Inf(1), grad
	}
	av := alpha.RawVector().Data
	iv := inv.RawSymmetric() // the upper triangle
	var trace float64
	for a := range n {
		wa, ka := o.w.RawRowView(a), o.kf.RawRowView(a)
		for b := a; b < n; b++ {
			wab := iv.Data[a*iv.Stride+b] - av[a]*av[b]
			if b == a {
				trace += wab
			}
			wa[b] = wab * ka[b] // M = W ∘ K_f
		}
		for b := range a {
			wa[b] = o.w.RawRowView(b)[a]
		}
	}
	// ∂K/∂log ℓ_j = K_f ∘ (x_aj − x_bj)²/ℓ_j², so with M = W ∘ K_f and
	// z_j = x_j/ℓ_j, ∂f/∂log ℓ_j = ½ Σ_ab M_ab (z_aj − z_bj)²
	// = Σ_a z_aj² (M1)_a − z_jᵀ M z_j.
	var mz mat.Dense
	mz.Mul(o.w, o.xs)
	rowSums := make([]float64, n)
	for a := range n {
		for _, v := range o.w.RawRowView(a) {
			rowSums[a] += v
		}
	}
	for j := range d {
		grad[j] = 0
	}
	for a := range n {
		za, ma := o.xs.RawRowView(a), mz.RawRowView(a)
		for j, z := range za {
			grad[j] += z*z*rowSums[a] - z*ma[j]
		}
	}
	for j := range d {
		if t := theta[j]; t <= math.Log(minScale) || t >= math.Log(maxScale) {
			grad[j] = 0 // held at its bound
		}
	}
	grad[d], grad[d+1] = 0, 0
	if t := theta[d]; t > math.Log(minSignal) && t < math.Log(maxSignal) {
		var s float64
		for a := range n {
			s += rowSums[a]
		}
		grad[d] = 0.5 * s // ∂K/∂log σ_f² = K_f
	}
	if t := theta[d+1]; t > math.Log(minNoise) && t < math.Log(maxNoise) {
		grad[d+1] = 0.5 * noise * trace // ∂K/∂log σ_n² = σ_n² I
	}
	return f, grad
}
