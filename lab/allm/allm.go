// Package allm predicts with every number of components a model holds,
// for the studies that compare fits over m.
package allm

import (
	"context"

	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/kpls"
)

// Predict returns the predictions of the rows of x with m = 0 … M, M
// the most components m holds: row i, column c is the prediction of row
// i with c components.
func Predict(ctx context.Context, m *kpls.Model, x mat.Matrix) (*mat.Dense, error) {
	r, _ := x.Dims()
	most := len(m.Stats()) - 1
	out := mat.NewDense(r, most+1, nil)
	for c := 0; c <= most; c++ {
		mc, err := m.At(c)
		if err != nil {
			return nil, err
		}
		p, err := mc.Predict(ctx, x, kpls.PredictOptions{})
		if err != nil {
			return nil, err
		}
		out.SetCol(c, p.Yhat)
	}
	return out, nil
}
