package kpls

import (
	"context"

	"gonum.org/v1/gonum/mat"
)

// Extrapolation says which points of a batch a model extrapolates to, by
// two rules: the distance rule (far from the training inputs, see
// ReachMin) and the leverage rule (a leverage in the model's score space
// above LeverageLimit, which no training row can have). These are the
// rules by which `kpls predict` flags a point "outside".
//
// The leverage of x at m components is h(x) = 1/N + Σ_{a ≤ m} t_a(x)²,
// t_a(x) = k_c(x)ᵀg_a: the hat value x would have in the regression of y
// on the intercept and the first m scores (orthonormal in training), so
// every training row has 1/N ≤ h ≤ 1. It is Hotelling's T² of PLS
// monitoring, T² = (N−1)(h − 1/N), in the units of a hat value. A mean
// takes its members' largest, each at its m.
type Extrapolation struct {
	// Measure is the distance rule's measure: "max_k" (max_i k(x, x_i),
	// for kernels with a width; far below Threshold) or "range_excess"
	// (how far a feature lies beyond its training range, as a share of
	// it, for the others; far above Threshold).
	Measure   string  `json:"measure"`
	Threshold float64 `json:"threshold"`
	// Distance holds each point's value of Measure, Leverage its leverage.
	Distance []float64 `json:"distance"`
	Leverage []float64 `json:"leverage"`
	// Outside flags the points either rule flags.
	Outside []bool `json:"outside"`
	// Far and HighLeverage count the points each rule flags, Count
	// those either flags.
	Far          int `json:"far"`
	HighLeverage int `json:"high_leverage"`
	Count        int `json:"count"`
}

// predictOutside predicts the rows of x with comp components, as Predict
// does, and says which of them the model extrapolates to. Predictions,
// reach and leverage come from one kernel vector per row
// (PredictDiagnostics): it costs O(n·(d + comp)) per row where Predict
// costs O(n·d).
func (m *Model) predictOutside(ctx context.Context, x mat.Matrix, comp int) ([]float64, *Extrapolation, error) {
	yhat, reach, lev, err := m.predictDiagnostics(ctx, x, comp)
	if err != nil {
		return nil, nil, err
	}
	ex, err := m.extrapolation(x, reach, lev)
	if err != nil {
		return nil, nil, err
	}
	return yhat, ex, nil
}

// predictOutside predicts the rows of x with the mean, as Predict does,
// and says which of them it extrapolates to: by the distance rule of its
// first model (the members share the training inputs) or by a leverage
// above the limit in any member's score space (Mean.Leverage).
func (a *Mean) predictOutside(ctx context.Context, x mat.Matrix) ([]float64, *Extrapolation, error) {
	yhat, reach, lev, err := a.predictDiagnostics(ctx, x)
	if err != nil {
		return nil, nil, err
	}
	ex, err := a.members[0].extrapolation(x, reach, lev)
	if err != nil {
		return nil, nil, err
	}
	return yhat, ex, nil
}

// extrapolation applies both rules to the rows of x, given their reach
// and leverage.
func (m *Model) extrapolation(x mat.Matrix, reach, lev []float64) (*Extrapolation, error) {
	ex := &Extrapolation{Measure: "max_k", Threshold: ReachMin, Distance: reach, Leverage: lev}
	if _, stationary := WidthOf(m.opts.Kernel); !stationary {
		// Reach reads as closeness only where k(x, x) = 1 and the
		// kernel decays with distance.
		var err error
		ex.Measure, ex.Threshold = "range_excess", RangeExcessMax
		if ex.Distance, err = m.rangeExcess(x); err != nil {
			return nil, err
		}
	}
	ex.Outside = make([]bool, len(lev))
	for i, d := range ex.Distance {
		far := ex.Measure == "max_k" && d < ReachMin || ex.Measure == "range_excess" && d > RangeExcessMax
		high := lev[i] > LeverageLimit
		if far {
			ex.Far++
		}
		if high {
			ex.HighLeverage++
		}
		if far || high {
			ex.Outside[i] = true
			ex.Count++
		}
	}
	return ex, nil
}
