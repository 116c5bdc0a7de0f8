package kpls

import (
	"context"
	"fmt"
	"math"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/internal/gram"
)

// predictChunk bounds the rows of cross-kernel matrix held at once.
const predictChunk = 256

// predictAt returns ȳ + k_c(x)ᵀα_comp for every row of x, in row order. The
// rows are standardised and the kernel vectors centred with the training
// statistics. The context is checked between blocks of predictChunk rows.
func (m *Model) predictAt(ctx context.Context, x mat.Matrix, comp int) ([]float64, error) {
	if x == nil {
		return nil, fmt.Errorf("%w: x is nil", ErrShape)
	}
	r, _ := x.Dims()
	out := make([]float64, r)
	if err := m.predictDst(ctx, out, x, comp); err != nil {
		return nil, err
	}
	return out, nil
}

// predictDst is Predict writing into dst, which must have one element per
// row of x: a service predicting in a loop allocates nothing per row but
// the kernel rows. dst is unspecified after an error.
func (m *Model) predictDst(ctx context.Context, dst []float64, x mat.Matrix, comp int) error {
	return m.predictTo(ctx, dst, nil, nil, x, comp)
}

// predictReach returns Predict's predictions and Reach's max_i k(x, x_i)
// for the rows of x, both from one kernel vector per row: a caller that
// flags extrapolation (kpls predict) computes the kernel vectors once
// instead of twice. The predictions are Predict's, bit for bit.
func (m *Model) predictReach(ctx context.Context, x mat.Matrix, comp int) (yhat, reach []float64, err error) {
	if x == nil {
		return nil, nil, fmt.Errorf("%w: x is nil", ErrShape)
	}
	r, _ := x.Dims()
	yhat, reach = make([]float64, r), make([]float64, r)
	if err := m.predictTo(ctx, yhat, reach, nil, x, comp); err != nil {
		return nil, nil, err
	}
	return yhat, reach, nil
}

// predictDiagnostics returns Predict's predictions, Reach's
// max_i k(x, x_i) and Leverage's h(x) at comp components for the rows of
// x, all from one kernel vector per row: what kpls predict reports and
// flags extrapolation by. The predictions are Predict's, bit for bit.
func (m *Model) predictDiagnostics(ctx context.Context, x mat.Matrix, comp int) (yhat, reach, leverage []float64, err error) {
	if x == nil {
		return nil, nil, nil, fmt.Errorf("%w: x is nil", ErrShape)
	}
	r, _ := x.Dims()
	yhat, reach, leverage = make([]float64, r), make([]float64, r), make([]float64, r)
	if err := m.predictTo(ctx, yhat, reach, leverage, x, comp); err != nil {
		return nil, nil, nil, err
	}
	return yhat, reach, leverage, nil
}

// predictTo is PredictTo, filling reach (when not nil) with the largest
// uncentred kernel entry of each row before the vectors are centred, and
// lev (when not nil) with the rows' leverages at comp (Leverage).
func (m *Model) predictTo(ctx context.Context, dst, reach, lev []float64, x mat.Matrix, comp int) error {
	if err := m.checkComponents(comp); err != nil {
		return err
	}
	z, p, err := m.inputs(x)
	if err != nil {
		return err
	}
	if len(dst) != p {
		return fmt.Errorf("%w: dst has %d elements for %d rows", ErrShape, len(dst), p)
	}
	alpha := m.alpha[comp*m.n : (comp+1)*m.n]
	c := make([]float64, min(p, predictChunk)*m.n)
	var scores []float64
	if lev != nil {
		scores = make([]float64, min(p, predictChunk)*max(comp, 1))
	}
	for r0 := 0; r0 < p; r0 += predictChunk {
		if err := ctx.Err(); err != nil {
			return err
		}
		rows := min(predictChunk, p-r0)
		crossKernel(c, m.opts.Kernel, z[r0*m.d:(r0+rows)*m.d], rows, m.points())
		if reach != nil {
			for r := range rows {
				reach[r0+r] = rowMax(c[r*m.n : (r+1)*m.n])
			}
		}
		m.centre(c, rows)
		m.opts.Backend.Dgemv(gblas.NoTrans, rows, m.n, 1, c, m.n, alpha, 1, 0, dst[r0:r0+rows], 1)
		if lev != nil {
			if err := m.leverageRows(lev[r0:r0+rows], c, scores, rows, comp, r0); err != nil {
				return err
			}
		}
		for i := r0; i < r0+rows; i++ {
			dst[i] += m.yMean
			if isNaNOrInf(dst[i]) {
				// Only reachable with extreme inputs (a linear kernel on
				// huge values) or an extreme model; never return it silently.
				return fmt.Errorf("%w: the prediction for x row %d overflows", ErrNonFinite, i+1)
			}
		}
	}
	return nil
}

// rowMax is the largest of the finite values v, four at a time (the
// comparisons of one running maximum wait on each other).
func rowMax(v []float64) float64 {
	b := [4]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	i := 0
	for ; i+4 <= len(v); i += 4 {
		for k, x := range v[i : i+4] {
			if x > b[k] {
				b[k] = x
			}
		}
	}
	for _, x := range v[i:] {
		if x > b[0] {
			b[0] = x
		}
	}
	return max(b[0], b[1], b[2], b[3])
}

// predictEvery returns the predictions of every m = 0..ValidComponents() for
// the rows of x: row i, column m is ȳ + k_c(x_i)ᵀα_m. One cross-kernel
// matrix serves every m.
func (m *Model) predictEvery(ctx context.Context, x mat.Matrix) (*mat.Dense, error) {
	out, err := m.predictAll(ctx, x)
	if err != nil {
		return nil, err
	}
	for i, v := range out {
		if isNaNOrInf(v) {
			return nil, fmt.Errorf("%w: the prediction for x row %d overflows", ErrNonFinite, i/(m.valid+1)+1)
		}
	}
	return mat.NewDense(len(out)/(m.valid+1), m.valid+1, out), nil
}

// predictAll returns the predictions of every m = 0..valid for the rows
// of x, row-major p×(valid+1): one cross-kernel matrix for all of them.
func (m *Model) predictAll(ctx context.Context, x mat.Matrix) ([]float64, error) {
	return m.predictFrom(ctx, x, 0)
}

// predictFrom is predictAll for m = from..valid only, row-major
// p×(valid+1−from): cross-validation, having grown a fold's fit, needs
// only the new components' predictions.
func (m *Model) predictFrom(ctx context.Context, x mat.Matrix, from int) ([]float64, error) {
	z, p, err := m.inputs(x)
	if err != nil {
		return nil, err
	}
	cols := m.valid + 1 - from
	if cols <= 0 {
		return nil, nil
	}
	if mustBehave(m.opts.Kernel).inputs() == inputLinear && m.d > 0 && m.wt == nil {
		return m.predictLinear(z, p, from, cols), nil
	}
	out := make([]float64, p*cols)
	c := make([]float64, min(p, predictChunk)*m.n)
	for r0 := 0; r0 < p; r0 += predictChunk {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rows := min(predictChunk, p-r0)
		m.centredCross(c, z[r0*m.d:(r0+rows)*m.d], rows)
		m.opts.Backend.Dgemm(gblas.NoTrans, gblas.Trans, rows, cols, m.n, 1, c, m.n, m.alpha[from*m.n:], m.n, 0, out[r0*cols:], cols)
	}
	for i := range out {
		out[i] += m.yMean
	}
	return out, nil
}

// predictLinear is predictFrom for the linear kernel, in the primal: its
// centred kernel vector is k_c(z)_j = (z − x̄)ᵀ(x_j − x̄), so
// k_c(z)ᵀα_m = (z − x̄)ᵀw_m with w_m = X_cᵀα_m, d numbers per m instead of
// n kernel entries per point (for cross-validation on protein, 9 instead
// of 36,584).
func (m *Model) predictLinear(z []float64, p, from, cols int) []float64 {
	n, d := m.n, m.d
	xbar := gram.ColumnMeans(m.x, n, d)
	xc := make([]float64, n*d)
	for j := range n {
		for l, v := range m.x[j*d : j*d+d] {
			xc[j*d+l] = v - xbar[l]
		}
	}
	w := make([]float64, cols*d) // row c: w_{from+c} = X_cᵀα_{from+c}
	bl := m.opts.Backend
	bl.Dgemm(gblas.NoTrans, gblas.NoTrans, cols, d, n, 1, m.alpha[from*n:], n, xc, d, 0, w, d)
	zc := make([]float64, p*d)
	for i := range p {
		for l, v := range z[i*d : i*d+d] {
			zc[i*d+l] = v - xbar[l]
		}
	}
	out := make([]float64, p*cols)
	bl.Dgemm(gblas.NoTrans, gblas.Trans, p, cols, d, 1, zc, d, w, d, 0, out, cols)
	for i := range out {
		out[i] += m.yMean
	}
	return out
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
	crossKernel(c, m.opts.Kernel, z, rows, m.points())
	m.centre(c, rows)
}
