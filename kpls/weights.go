package kpls

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/kpls-go/kpls/internal/kernelop"

	"github.com/kpls-go/kpls/internal/gram"
)

// weighting holds a weighted fit's frequency weights over the rows it
// kept (those of positive weight): a row of weight w counts as w copies
// of itself (docs/design.md §5, "Sample weights"). The fit is the
// unweighted one of ỹ = W^{1/2}C_w y on K̃ = W^{1/2}C_w K C_wᵀW^{1/2},
// C_w = I − 1wᵀ/N, and every vector of the model (α, t, g, y_c) is in
// those coordinates.
type weighting struct {
	w, sw []float64 // the weights and their square roots
	total float64   // N = Σ w
}

// checkWeights checks frequency weights for n rows: finite, ≥ 0, and
// some positive.
func checkWeights(w []float64, n int) error {
	if len(w) != n {
		return fmt.Errorf("%w: %d weights for %d rows", ErrShape, len(w), n)
	}
	var sum float64
	for i, v := range w {
		if isNaNOrInf(v) || v < 0 {
			return fmt.Errorf("%w: weight of row %d is %v, want a finite number ≥ 0", ErrBadOption, i+1, v)
		}
		sum += v
	}
	if !(sum > 0) || isNaNOrInf(sum) {
		return fmt.Errorf("%w: the weights sum to %v: no row is left to fit", ErrBadOption, sum)
	}
	return nil
}

// newWeighting returns the weighting of the positive weights in w, and
// the indices of their rows.
func newWeighting(w []float64) (*weighting, []int) {
	var keep []int
	wt := &weighting{}
	for i, v := range w {
		if v > 0 {
			keep = append(keep, i)
			wt.w = append(wt.w, v)
			wt.sw = append(wt.sw, math.Sqrt(v))
			wt.total += v
		}
	}
	return wt, keep
}

// centre returns the weighted mean of y and ỹ = W^{1/2}(y − ȳ_w).
func (wt *weighting) centre(y []float64) (mean float64, yc []float64) {
	for i, v := range y {
		mean += wt.w[i] * v
	}
	mean /= wt.total
	yc = make([]float64, len(y))
	for i, v := range y {
		yc[i] = wt.sw[i] * (v - mean)
	}
	return mean, yc
}

// weightedOp is K̃ = W^{1/2}C_w K_c C_wᵀW^{1/2} over an operator of K_c
// (C_w K C_wᵀ = C_w K_c C_wᵀ, as C_w C = C_w). Its Stats hold the
// weighted column means Kw/N and grand mean wᵀKw/N² of the uncentred K
// (what centring a new point needs), tr K̃, and an upper bound on ‖K̃‖_F
// in Frob2 (float32's resolution test needs a bound; the approximate
// DoF, which needs the value, is not given it).
type weightedOp struct {
	kernelop.Operator
	wt    *weighting
	stats kernelop.Stats
	// frobExact says Frob2 is ‖K̃‖²_F itself: equal weights c make
	// K̃ = cK_c.
	frobExact bool
	scratch   sync.Pool // *[]float64: the vectors W^{1/2}-weighted and centred
}

// newWeightedOp wraps op, computing its statistics: one product with w,
// and the kernel's diagonal from diag (k(x_i, x_i), uncentred).
func newWeightedOp(ctx context.Context, op kernelop.Operator, wt *weighting, diag []float64) (*weightedOp, error) {
	n := op.N()
	inner := op.Stats()
	kcw := make([]float64, n)
	if err := op.Mul(ctx, kcw, wt.w, 1); err != nil {
		return nil, err
	}
	N := wt.total
	var cmw, wKcw float64 // cmᵀw/N and wᵀK_c w
	for i, v := range inner.ColMean {
		cmw += v * wt.w[i] / N
		wKcw += wt.w[i] * kcw[i]
	}
	// K = K_c + cm1ᵀ + 1cmᵀ − g11ᵀ, so Kw/N = K_c w/N + cm + (cmᵀw/N − g)1.
	s := kernelop.Stats{ColMean: make([]float64, n)}
	for i := range s.ColMean {
		s.ColMean[i] = kcw[i]/N + inner.ColMean[i] + cmw - inner.Grand
	}
	for i, v := range s.ColMean {
		s.Grand += wt.w[i] * v / N
	}
	// (K_w)_ii = (K_c)_ii − 2(K_c w)_i/N + wᵀK_c w/N², (K_c)_ii = K_ii − 2cm_i + g.
	for i, k := range diag {
		kc := k - 2*inner.ColMean[i] + inner.Grand
		s.Trace += wt.w[i] * (kc - 2*kcw[i]/N + wKcw/(N*N))
	}
	// ‖K̃‖_F ≤ ‖W^{1/2}‖²‖C_w‖²‖K_c‖_F, ‖C_w‖₂ = √n‖w‖/N.
	var wmax, w2 float64
	for _, v := range wt.w {
		wmax = math.Max(wmax, v)
		w2 += v * v
	}
	bound := wmax * float64(n) * w2 / (N * N) * math.Sqrt(inner.Frob2)
	s.Frob2 = bound * bound
	equal := !slices.ContainsFunc(wt.w, func(v float64) bool { return v != wt.w[0] })
	if equal {
		s.Frob2 = wt.w[0] * wt.w[0] * inner.Frob2
	}
	return &weightedOp{Operator: op, wt: wt, stats: s, frobExact: equal}, nil
}

func (o *weightedOp) Stats() kernelop.Stats { return o.stats }

// Mul sets row i of dst to K̃ v_i: O(n) per vector around the product,
// with the scratch for the vectors reused across calls.
func (o *weightedOp) Mul(ctx context.Context, dst, v []float64, k int) error {
	n, wt := o.N(), o.wt
	buf, _ := o.scratch.Get().(*[]float64)
	if buf == nil || cap(*buf) < k*n {
		b := make([]float64, k*n)
		buf = &b
	}
	u := (*buf)[:k*n]
	defer o.scratch.Put(buf)
	invN := 1 / wt.total
	for r := 0; r < k; r++ {
		ur, vr := u[r*n:(r+1)*n], v[r*n:(r+1)*n]
		var sum float64 // 1ᵀ W^{1/2} v
		for i, x := range vr {
			ur[i] = wt.sw[i] * x
			sum += ur[i]
		}
		c := sum * invN
		for i, wi := range wt.w { // C_wᵀu = u − w(1ᵀu)/N
			ur[i] -= wi * c
		}
	}
	if err := o.Operator.Mul(ctx, dst, u, k); err != nil {
		return err
	}
	for r := 0; r < k; r++ {
		dr := dst[r*n : (r+1)*n]
		var wd float64 // wᵀt
		for i, x := range dr {
			wd += wt.w[i] * x
		}
		c := wd * invN
		for i, s := range wt.sw { // W^{1/2}C_w t = W^{1/2}(t − 1 wᵀt/N)
			dr[i] = s * (dr[i] - c)
		}
	}
	return nil
}

// kernelDiag returns k(x_i, x_i) for the rows of x.
func kernelDiag(k Kernel, x []float64, n, d int) []float64 {
	out := make([]float64, n)
	for i := 0; i < n; i++ {
		crossKernel(out[i:i+1], k, x[i*d:(i+1)*d], 1, gram.NewPoints(x[i*d:(i+1)*d], 1, d))
	}
	return out
}

// weightedCentre turns rows kernel rows c (rows×n, uncentred k(z, x_j))
// into k̃(z) = W^{1/2}k_w(z), k_w(z) = k(z) − Kw/N − (wᵀk(z)/N − wᵀKw/N²)1
// with colMean = Kw/N and grand = wᵀKw/N².
func (wt *weighting) weightedCentre(c []float64, rows, n int, colMean []float64, grand float64) {
	for r := 0; r < rows; r++ {
		cr := c[r*n : (r+1)*n]
		var mean float64
		for j, v := range cr {
			mean += wt.w[j] * v
		}
		mean /= wt.total
		for j, v := range cr {
			cr[j] = wt.sw[j] * (v - colMean[j] - mean + grand)
		}
	}
}

// weightedRows checks opts.Weights against the n×d rows xs and response
// y, and returns the rows and responses of positive weight with their
// weighting.
func weightedRows(xs, y []float64, n, d int, opts config) ([]float64, []float64, int, *weighting, error) {
	if err := checkWeights(opts.Weights, n); err != nil {
		return nil, nil, 0, nil, err
	}
	if opts.Kernel != nil && mustBehave(opts.Kernel).inputs() == inputGram {
		return nil, nil, 0, nil, fmt.Errorf("%w: weights with a precomputed kernel matrix are not supported: repeat its rows and columns instead", ErrBadOption)
	}
	if len(y) != n {
		return nil, nil, 0, nil, fmt.Errorf("%w: x has %d rows, y has %d values", ErrShape, n, len(y))
	}
	wt, keep := newWeighting(opts.Weights)
	if len(keep) == n {
		return xs, y, n, wt, nil
	}
	kx := make([]float64, 0, len(keep)*d)
	ky := make([]float64, 0, len(keep))
	for _, i := range keep {
		kx = append(kx, xs[i*d:(i+1)*d]...)
		ky = append(ky, y[i])
	}
	return kx, ky, len(keep), wt, nil
}

// unwrapWeighted finds the weighted operator under op's counting wrapper.
func unwrapWeighted(op kernelop.Operator) (*weightedOp, bool) {
	if c, ok := op.(counted); ok {
		op = c.Operator
	}
	w, ok := op.(*weightedOp)
	return w, ok
}
