package kpls

import (
	gblas "gonum.org/v1/gonum/blas"

	"github.com/kpls-go/kpls/blas"
)

// outOfFold carries a fit's scores to rows it does not train on: the
// held-out rows of a cross-validation fold. A fold's centred kernel
// matrix is the principal submatrix of the full K_c over its training
// rows T, centred again over T; for a vector g that sums to zero over T,
// the held-out rows h of the full product K_c g, less its mean over T,
// are k_c(x_h)ᵀg with k_c centred by the fold's own statistics. So the
// product the fit makes anyway gives the held-out scores, and with the
// same Gram–Schmidt coefficients and step coefficients q as the fit's
// scores, the held-out predictions of every m, with no kernel entries
// computed for them.
type outOfFold struct {
	rows    int
	t       []float64 // steps×rows: the scores at the held-out rows
	yhat    []float64 // (steps+1)×rows: centred predictions of m = 0..steps
	pending []float64 // the step in progress's K_c r at the held-out rows, less its mean over T
}

func newOutOfFold(rows, steps int) *outOfFold {
	return &outOfFold{rows: rows, t: make([]float64, steps*rows), yhat: make([]float64, (steps+1)*rows), pending: make([]float64, rows)}
}

// begin starts score i from the pending product.
func (o *outOfFold) begin(i int) {
	if o == nil {
		return
	}
	copy(o.t[i*o.rows:(i+1)*o.rows], o.pending)
}

// subtract applies one Gram–Schmidt pass with the fit's coefficients c
// (against scores 0..i−1) to score i.
func (o *outOfFold) subtract(bl blas.Float64, i int, c []float64) {
	if o == nil || o.rows == 0 {
		return
	}
	bl.Dgemv(gblas.Trans, i, o.rows, -1, o.t, o.rows, c, 1, 1, o.t[i*o.rows:], 1)
}

// finish scales score i as the fit's and adds q times it to the
// predictions.
func (o *outOfFold) finish(bl blas.Float64, i int, scale, q float64) {
	if o == nil || o.rows == 0 {
		return
	}
	r := o.rows
	t := o.t[i*r : (i+1)*r]
	bl.Dscal(r, scale, t, 1)
	yh := o.yhat[(i+1)*r : (i+2)*r]
	copy(yh, o.yhat[i*r:(i+1)*r])
	bl.Daxpy(r, q, t, 1, yh, 1)
}

// grow makes room for maxSteps steps.
func (o *outOfFold) grow(maxSteps int) {
	if o == nil || len(o.t) >= maxSteps*o.rows {
		return
	}
	o.t, o.yhat = extendZeroed(o.t, maxSteps*o.rows), extendZeroed(o.yhat, (maxSteps+1)*o.rows)
}
