package kpls

import (
	"context"
	"math"

	"gonum.org/v1/gonum/mat"
)

// PredictIntervals returns predictions for the rows of x with prediction
// intervals for a new observation y = f(x) + ε at each: ŷ ± z·se_y with
//
//	se_y(x)² = se(x)² + s²,
//
// the confidence band's variance of ŷ (PredictBands) plus a noise
// variance s²: σ̂_m² = RSS_m/(n − DoF_m) of the model with comp
// components, or, when cross-validation chose comp (Select), RMSECV² if
// that is larger. RSS/(n − DoF) assumes a fit that projects; a fit close
// to interpolating (a rough kernel, many components) shrinks its
// residuals more than n − DoF allows for, and σ̂ then falls far below the
// error on new data (protein with the Laplacian kernel: σ̂ 0.76 against
// a held-out RMSE of 3.36), while RMSECV measures that error directly.
// Band.SE is se_y. A confidence band covers f(x), the mean of y at x; an
// interval covers a new y, which also carries its own noise. Like the
// bands, intervals are first order in the noise and do not cover the
// fit's bias: where the model is biased (too few components, a kernel
// too wide) they cover less than the level.
func (m *Model) PredictIntervals(ctx context.Context, x mat.Matrix, comp int, opt BandOptions) ([]Band, error) {
	bands, err := m.PredictBands(ctx, x, comp, opt)
	if err != nil {
		return nil, err
	}
	zq, _ := bandQuantile(ctx, opt)
	s, _ := m.IntervalNoise(comp)
	widenToIntervals(bands, s, zq)
	return bands, nil
}

// IntervalNoise returns the noise level s that PredictIntervals adds to
// the band's variance for comp components (comp in 0..ValidComponents),
// and whether it is the chosen m's RMSECV rather than σ̂: the RMSECV is
// taken where cross-validation chose comp and σ̂ is smaller or unknown.
// It is NaN for a comp outside 0..ValidComponents.
func (m *Model) IntervalNoise(comp int) (s float64, fromRMSECV bool) {
	if comp < 0 || comp > m.valid {
		return math.NaN(), false
	}
	s = m.stats[comp].Sigma
	if c := m.chosen; c != nil && c.Criterion == CV && c.M == comp && c.RMSECV > 0 && !(s >= c.RMSECV) {
		return c.RMSECV, true
	}
	return s, false
}

// widenToIntervals turns bands into prediction intervals: se_y² = se² + σ̂².
func widenToIntervals(bands []Band, sigma, zq float64) {
	s2 := sigma * sigma
	for i := range bands {
		b := &bands[i]
		b.SE = math.Sqrt(b.SE*b.SE + s2)
		b.Lower, b.Upper = b.Yhat-zq*b.SE, b.Yhat+zq*b.SE
	}
}
