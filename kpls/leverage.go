package kpls

import (
	"context"
	"fmt"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/mat"
)

// leverage returns, for every row of x, its leverage in the model's score
// space at comp components,
//
//	h(x) = 1/N + Σ_{a ≤ comp} t_a(x)²,  t_a(x) = k_c(x)ᵀg_a,
//
// the hat value x would have in the regression of y on the intercept and
// the first comp scores (the training scores t_a = K_c g_a are centred
// and orthonormal; N = n, or Σw with weights). The rows of the orthonormal
// [1/√N, T] have norm at most one, so every training row has
// 1/N ≤ h ≤ 1 and the training rows' leverages sum to 1 + comp. A point
// with h(x) > LeverageLimit lies beyond the training data along some
// score direction, and the prediction there extrapolates in the model's
// own coordinates, even for a point close to training rows in distance
// (Reach) and inside every feature's range (RangeExcess): spectra whose
// shape no training spectrum has are the typical case. It is Hotelling's
// T² of PLS monitoring, T² = (N−1)(h − 1/N), in the units of a hat value.
// Cost: one kernel vector and comp·n multiply–adds per row, as
// PredictDiagnostics, which gives the predictions with it.
func (m *Model) leverage(ctx context.Context, x mat.Matrix, comp int) ([]float64, error) {
	_, _, lev, err := m.predictDiagnostics(ctx, x, comp)
	return lev, err
}

// leverageRows fills lev with the leverages at comp of the rows whose
// centred kernel vectors are in c (rows×n); scores is rows×comp scratch,
// r0 the first row's index (for errors).
func (m *Model) leverageRows(lev, c, scores []float64, rows, comp, r0 int) error {
	if comp > 0 {
		m.opts.Backend.Dgemm(gblas.NoTrans, gblas.Trans, rows, comp, m.n, 1, c, m.n, m.g, m.n, 0, scores, comp)
	}
	base := 1 / m.total()
	for r := range rows {
		h := base
		for _, v := range scores[r*comp : (r+1)*comp] {
			h += v * v
		}
		if isNaNOrInf(h) {
			return fmt.Errorf("%w: the leverage of x row %d overflows", ErrNonFinite, r0+r+1)
		}
		lev[r] = h
	}
	return nil
}

// leverage returns, for every row of x, the largest leverage over the
// mean's members, each at its chosen m (Model.Leverage): the mean's
// prediction extrapolates where any member's does.
func (a *Mean) leverage(ctx context.Context, x mat.Matrix) ([]float64, error) {
	_, _, lev, err := a.predictDiagnostics(ctx, x)
	return lev, err
}

// predictDiagnostics returns Predict's predictions, the first member's
// max_i k(x, x_i) (Model.Reach; the first member is the model the search
// chose) and Leverage's largest leverage over the members, from one
// kernel vector per member and row.
func (a *Mean) predictDiagnostics(ctx context.Context, x mat.Matrix) (yhat, reach, leverage []float64, err error) {
	for k, m := range a.members {
		p, r, h, err := m.predictDiagnostics(ctx, x, m.Chosen().M)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("member %d of the mean: %w", k+1, err)
		}
		if k == 0 {
			yhat, reach, leverage = p, r, h
			continue
		}
		for i := range p {
			yhat[i] += p[i]
			leverage[i] = max(leverage[i], h[i])
		}
	}
	kf := float64(len(a.members))
	for i := range yhat {
		yhat[i] /= kf
	}
	return yhat, reach, leverage, nil
}
