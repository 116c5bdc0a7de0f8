package kpls

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// reach returns, for every row of x, max_i k(x, x_i) over the training
// inputs, computed on standardised features as the model's kernel is.
//
// For the RBF kernel it lies in (0, 1] and measures how close the nearest
// training point is in units of the width: k < 0.05 means
// ‖x − x_i‖² > 2w·ln 20 ≈ 6w for every i. There the prediction decays
// towards the intercept ȳ whatever the truth, and the confidence bands,
// which measure variance only, say nothing about that bias. For the
// linear kernel the value is the largest inner product with a training
// point and has no such reading; see RangeExcess.
func (m *Model) reach(x mat.Matrix) ([]float64, error) {
	z, p, err := m.inputs(x)
	if err != nil {
		return nil, err
	}
	out := make([]float64, p)
	const chunk = 256
	c := make([]float64, min(p, chunk)*m.n)
	for r0 := 0; r0 < p; r0 += chunk {
		rows := min(chunk, p-r0)
		crossKernel(c, m.opts.Kernel, z[r0*m.d:(r0+rows)*m.d], rows, m.points())
		for r := range rows {
			best := math.Inf(-1)
			for _, v := range c[r*m.n : (r+1)*m.n] {
				best = max(best, v)
			}
			out[r0+r] = best
		}
	}
	return out, nil
}

// rangeExcess returns, for every row of x, how far it lies beyond the box
// spanned by the training inputs: the largest over features j of the
// distance of x_j outside [min_i x_ij, max_i x_ij], in units of that
// feature's training range (max − min). It is 0 inside the box; a feature
// that was constant in training counts any departure as +Inf. It is the
// extrapolation measure for the linear kernel, whose predictions grow
// without bound beyond the data.
func (m *Model) rangeExcess(x mat.Matrix) ([]float64, error) {
	z, p, err := m.inputs(x)
	if err != nil {
		return nil, err
	}
	lo := make([]float64, m.d)
	hi := make([]float64, m.d)
	for j := range m.d {
		lo[j], hi[j] = math.Inf(1), math.Inf(-1)
	}
	for i := range m.n {
		for j, v := range m.x[i*m.d : (i+1)*m.d] {
			lo[j], hi[j] = min(lo[j], v), max(hi[j], v)
		}
	}
	out := make([]float64, p)
	for r := range p {
		for j, v := range z[r*m.d : (r+1)*m.d] {
			beyond := max(lo[j]-v, v-hi[j], 0)
			if beyond == 0 {
				continue
			}
			e := math.Inf(1)
			if span := hi[j] - lo[j]; span > 0 {
				e = beyond / span
			}
			out[r] = max(out[r], e)
		}
	}
	return out, nil
}
