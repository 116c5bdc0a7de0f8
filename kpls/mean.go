package kpls

import (
	"context"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// Mean is the mean of the predictions of several models fitted to the
// same training rows and response, each with its own chosen number of
// components (Model.Chosen): what Select returns with
// CrossValidation.AverageWithin, the best grid point's model first.
//
// The mean is a linear smoother like each of its models, so its degrees
// of freedom are the mean of theirs (the trace of a mean of hat
// matrices), its residuals those of the mean fit, and its confidence
// bands those of the mean's gradient with respect to y (docs/design.md
// §4). A Mean is immutable and safe for concurrent use.
type Mean struct {
	members []*Model
	stats   Stats
}

// NewMean returns the mean of the models, each predicting with its chosen
// m. They must have been fitted to the same training rows: the same n and
// d, the same response bit for bit and the same feature and target names.
// One model gives a mean that predicts as that model does.
func NewMean(models ...*Model) (*Mean, error) {
	if len(models) == 0 {
		return nil, fmt.Errorf("%w: a mean of no models", ErrShape)
	}
	first := models[0]
	for i, m := range models {
		if m == nil {
			return nil, fmt.Errorf("%w: model %d is nil", ErrShape, i+1)
		}
		if err := sameTraining(first, m); err != nil {
			return nil, fmt.Errorf("%w: model %d: %v", ErrShape, i+1, err)
		}
	}
	a := &Mean{members: slices.Clone(models)}
	a.stats = a.meanStats()
	return a, nil
}

// sameTraining says how m's training data differ from first's, nil if
// they do not as far as a mean needs.
func sameTraining(first, m *Model) error {
	fo, mo := first.opts, m.opts
	switch {
	case m.n != first.n || m.d != first.d:
		return fmt.Errorf("fitted to %d×%d inputs, the first model to %d×%d", m.n, m.d, first.n, first.d)
	case !sameBits(m.yc, first.yc) || math.Float64bits(m.yMean) != math.Float64bits(first.yMean) || !sameBits(m.weights(), first.weights()):
		return fmt.Errorf("fitted to another response than the first model")
	case !slices.Equal(mo.FeatureNames, fo.FeatureNames):
		return fmt.Errorf("its features %q differ from the first model's %q", mo.FeatureNames, fo.FeatureNames)
	case mo.TargetName != fo.TargetName:
		return fmt.Errorf("its target %q differs from the first model's %q", mo.TargetName, fo.TargetName)
	}
	return nil
}

// meanStats returns the statistics of the mean fit: its RSS on the
// training rows, the mean of the members' DoF, σ̂ and the criteria from
// them. Each member's fitted values are Σ_{i<m} t_i t_iᵀy_c, its scores
// being orthonormal.
func (a *Mean) meanStats() Stats {
	first := a.members[0]
	n := first.n
	fitted := make([]float64, n)
	var dof, dofSE2, dofMax float64
	for _, m := range a.members {
		comp := m.Chosen().M
		for i := 0; i < comp; i++ {
			t := m.t[i*n : (i+1)*n]
			var q float64
			for j, v := range t {
				q += v * m.yc[j]
			}
			for j, v := range t {
				fitted[j] += q * v
			}
		}
		st := m.stats[comp]
		dof += st.DoF
		dofSE2 += st.DoFSE * st.DoFSE
		dofMax = math.Max(dofMax, m.dofMax())
	}
	k := float64(len(a.members))
	s := Stats{M: -1, DoF: dof / k, DoFSE: math.Sqrt(dofSE2) / k}
	if !sameDoFMethod(a.members) {
		// A mean of DoF by different methods (the best's approximate DoF,
		// the naive m + 1 of the others) is neither, and the naive m + 1
		// (DoFNone: Select's members) is no estimate of a kernel
		// smoother's DoF.
		s.DoF, s.DoFSE = math.NaN(), math.NaN()
	}
	for j, f := range fitted {
		f /= k
		e := first.yc[j] - f
		s.RSS += e * e
		f += first.rootWeight(j) * first.yMean
		s.YhatSq += f * f
	}
	fillCriteria(&s, first.total(), dofMax)
	return s
}

// sameDoFMethod reports whether every member's DoF come from one method
// other than DoFNone.
func sameDoFMethod(ms []*Model) bool {
	for _, m := range ms {
		if m.opts.DoF != ms[0].opts.DoF || m.opts.DoF == DoFNone {
			return false
		}
	}
	return true
}

// dofMax is the largest DoF the model's kernel allows: n − 1, and at
// most d + 1 for the linear kernel.
func (m *Model) dofMax() float64 {
	dm := float64(m.n - 1)
	if fd := featureDim(m.opts.Kernel, m.d); fd > 0 {
		dm = math.Min(dm, float64(fd+1))
	}
	return dm
}

// Members returns the models averaged, the first being the best grid
// point's when the mean comes from Select.
func (a *Mean) Members() []*Model { return slices.Clone(a.members) }

// trainingFit returns the root mean squared error and R² of the mean fit
// on its training rows (weighted, with N = Σw, for weighted models).
func (a *Mean) trainingFit() (rmse, r2 float64) {
	m := a.members[0]
	tss := m.stats[0].RSS // m = 0 fits the mean: its RSS is the total sum of squares
	return math.Sqrt(a.stats.RSS / m.total()), 1 - a.stats.RSS/tss
}

// Predict returns the mean of the members' predictions for the rows of
// x, each with its chosen number of components.
func (a *Mean) predict(ctx context.Context, x mat.Matrix) ([]float64, error) {
	var mean []float64
	for _, m := range a.members {
		p, err := m.predictAt(ctx, x, m.Chosen().M)
		if err != nil {
			return nil, err
		}
		if mean == nil {
			mean = p
			continue
		}
		for i, v := range p {
			mean[i] += v
		}
	}
	k := float64(len(a.members))
	for i := range mean {
		mean[i] /= k
	}
	return mean, nil
}

// predictBands returns the mean's predictions for the rows of x with
// first-order confidence intervals ŷ ± z·se(x),
//
//	se(x)² = s²(‖(1/K) Σ_k H_kᵀk_{c,k}(x)‖² + 1/n),
//
// the gradient of the mean prediction with respect to y (H_k = ∂α_k/∂y
// of member k at its m, k_{c,k} its centred kernel vector) and the noise
// level s of NoiseLevel. It costs what the members' bands cost together.
func (a *Mean) predictBands(ctx context.Context, x mat.Matrix, opt bandOpts) ([]bandValue, error) {
	zq, err := bandQuantile(ctx, opt)
	if err != nil {
		return nil, err
	}
	sigma, _ := a.noiseLevel()
	if math.IsNaN(sigma) {
		return nil, fmt.Errorf("%w: σ̂ of the mean needs every member's DoF, and one could not be computed", ErrUnreliable)
	}
	first := a.members[0]
	n := first.n
	zs := make([][]float64, len(a.members))
	p := 0
	for k, m := range a.members {
		if zs[k], p, err = m.inputs(x); err != nil {
			return nil, err
		}
	}
	// The members run one after the other over a block of points, each
	// adding its gradients to the block's: one member's band scratch
	// (the reverse path's is up to reverseBudget) is alive at a time,
	// not every member's at once.
	block := min(p, max(bandChunk, meanBandBytes/(8*n)))
	out := make([]bandValue, p)
	kf := float64(len(a.members))
	grad := make([]float64, block*n)
	yhat := make([]float64, block)
	for b0 := 0; b0 < p; b0 += block {
		rows := min(block, p-b0)
		clear(grad[:rows*n])
		clear(yhat[:rows])
		for k, m := range a.members {
			if err := m.addBandGradients(ctx, grad, yhat, zs[k][b0*m.d:(b0+rows)*m.d], rows, kf, opt); err != nil {
				return nil, fmt.Errorf("member %d of the mean: %w", k+1, err)
			}
		}
		for i := 0; i < rows; i++ {
			var h2 float64
			for _, v := range grad[i*n : (i+1)*n] {
				h2 += v * v
			}
			out[b0+i] = bandOf(yhat[i], h2, first.total(), sigma, zq, opt)
		}
	}
	return out, nil
}

// meanBandBytes bounds the block of gradients a mean's bands accumulate
// (points × n float64s) while its members take their turns (a variable
// for the tests of blocks).
var meanBandBytes = 64 << 20

// addBandGradients adds, for the rows points whose standardised inputs
// are z, H_mᵀk_c(x)/kf to grad (rows×n) and (ȳ + k_c(x)ᵀα_m)/kf to yhat,
// at the model's chosen m: one member's share of a mean's bands. It
// tells opt's advance of each block it finishes.
func (m *Model) addBandGradients(ctx context.Context, grad, yhat, z []float64, rows int, kf float64, opt bandOpts) error {
	n := m.n
	r, err := m.newBandRun(ctx, m.Chosen().M, min(rows, bandChunk))
	if err != nil {
		return err
	}
	for c0 := 0; c0 < rows; c0 += r.chunk {
		cr := min(r.chunk, rows-c0)
		m.centredCross(r.kx, z[c0*m.d:(c0+cr)*m.d], cr)
		h, f, err := r.vectors(ctx, cr)
		if err != nil {
			return err
		}
		g := grad[c0*n : (c0+cr)*n]
		for j, v := range h[:cr*n] {
			g[j] += v / kf
		}
		for i, v := range f {
			yhat[c0+i] += (m.yMean + v) / kf
		}
		opt.advanced(cr)
	}
	return nil
}

// predictIntervals returns the mean's predictions for the rows of x with
// prediction intervals for a new observation: the band's variance plus
// s² of NoiseLevel, as Model.PredictIntervals.
func (a *Mean) predictIntervals(ctx context.Context, x mat.Matrix, opt bandOpts) ([]bandValue, error) {
	bands, err := a.predictBands(ctx, x, opt)
	if err != nil {
		return nil, err
	}
	zq, _ := bandQuantile(ctx, opt)
	s, _ := a.noiseLevel()
	widenToIntervals(bands, s, zq)
	return bands, nil
}

// noiseLevel returns the noise level s of the mean's bands and intervals,
// and whether it is the members' root mean RMSECV² rather than the mean
// fit's σ̂: as Model.NoiseLevel, the RMSECV is taken when cross-validation
// chose every member and σ̂ is smaller or unknown (Select fits the mean's
// other members without DoF, so σ̂ of its means is unknown). The mean's
// squared error is at most the mean of the members', so it errs on the
// wide side.
func (a *Mean) noiseLevel() (s float64, fromRMSECV bool) {
	s = a.stats.Sigma
	var cv2 float64
	for _, m := range a.members {
		c := m.chosen
		if c == nil || c.Criterion != CV || !(c.RMSECV > 0) {
			return s, false
		}
		cv2 += c.RMSECV * c.RMSECV / float64(len(a.members))
	}
	if cv := math.Sqrt(cv2); !(s >= cv) {
		return cv, true
	}
	return s, false
}
