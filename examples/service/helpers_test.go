package main

import (
	"context"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/kpls"
)

// testBand is a prediction with its band as the service writes it (yhat
// alone without a level).
type testBand struct {
	Yhat  float64 `json:"yhat"`
	SE    float64 `json:"se"`
	Lower float64 `json:"lower"`
	Upper float64 `json:"upper"`
}

// mustServer is NewServer for tests.
func mustServer(tb testing.TB, ps ...kpls.Predictor) *Server {
	tb.Helper()
	s, err := NewServer(ps...)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// libPredict is the library's own answer for the rows of x: p's
// predictions (at comp components when comp ≥ 0, p then being a model),
// with the band or interval at level when it is not nil, and the
// extrapolation diagnostics.
func libPredict(p kpls.Predictor, x mat.Matrix, comp int, level *float64, intervals bool) (*kpls.Prediction, error) {
	if comp >= 0 {
		var err error
		if p, err = p.(*kpls.Model).At(comp); err != nil {
			return nil, err
		}
	}
	opt := kpls.PredictOptions{Diagnostics: true}
	if level != nil {
		opt.Level, opt.Uncertainty = *level, kpls.ConfidenceBand
		if intervals {
			opt.Uncertainty = kpls.PredictionInterval
		}
	}
	return p.Predict(context.Background(), x, opt)
}

// bandsOf is a prediction as the service writes its points.
func bandsOf(p *kpls.Prediction) []testBand {
	out := make([]testBand, len(p.Yhat))
	for i, v := range p.Yhat {
		out[i].Yhat = v
		if p.SE != nil {
			out[i].SE, out[i].Lower, out[i].Upper = p.SE[i], p.Lower[i], p.Upper[i]
		}
	}
	return out
}

// maxComponents is the most components m holds.
func maxComponents(m *kpls.Model) int { return len(m.Stats()) - 1 }
