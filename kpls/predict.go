package kpls

import (
	"fmt"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/internal/gram"
)

// predictChunk bounds the rows of cross-kernel matrix held at once.
const predictChunk = 256

// Predict returns ȳ + k_c(x)ᵀα_comp for every row of x, in row order. The
// rows are standardised and the kernel vectors centred with the training
// statistics.
func (m *Model) Predict(x mat.Matrix, comp int) ([]float64, error) {
	if err := m.checkComponents(comp); err != nil {
		return nil, err
	}
	z, p, err := m.inputs(x)
	if err != nil {
		return nil, err
	}
	out := make([]float64, p)
	alpha := m.alpha[comp*m.n : (comp+1)*m.n]
	c := make([]float64, min(p, predictChunk)*m.n)
	for r0 := 0; r0 < p; r0 += predictChunk {
		rows := min(predictChunk, p-r0)
		m.centredCross(c, z[r0*m.d:(r0+rows)*m.d], rows)
		m.opts.Backend.Dgemv(gblas.NoTrans, rows, m.n, 1, c, m.n, alpha, 1, 0, out[r0:r0+rows], 1)
		for i := r0; i < r0+rows; i++ {
			out[i] += m.yMean
			if isNaNOrInf(out[i]) {
				// Only reachable with extreme inputs (a linear kernel on
				// huge values) or an extreme model; never return it silently.
				return nil, fmt.Errorf("%w: the prediction for x row %d overflows", ErrNonFinite, i+1)
			}
		}
	}
	return out, nil
}

// inputs checks and standardises new inputs.
func (m *Model) inputs(x mat.Matrix) ([]float64, int, error) {
	z, p, d, err := denseRows(x, "x")
	if err != nil {
		return nil, 0, err
	}
	if d != m.d {
		return nil, 0, fmt.Errorf("%w: x has %d columns, the model was fitted on %d", ErrShape, d, m.d)
	}
	if m.scale != nil {
		m.scale.apply(z, p, d)
	}
	return z, p, nil
}

// centredCross fills c (rows×n) with the centred kernel vectors k_c(z_i).
func (m *Model) centredCross(c, z []float64, rows int) {
	crossKernel(c, m.opts.Kernel, z, rows, m.x, m.n, m.d)
	gram.CenterCross(c, rows, m.n, m.colMean, m.grand)
}
