package kpls

import (
	"context"
	"encoding/json"
	"fmt"

	"slices"

	"gonum.org/v1/gonum/mat"
)

// Predictor is what Fit, Select and Load give: a fitted *Model or a *Mean
// of models. Both predict with the number of components their fit chose
// (a Model predicts at another m through Model.At), are immutable, and
// are safe for concurrent use by multiple goroutines.
type Predictor interface {
	// Predict predicts the rows of x (features in the training order),
	// with the uncertainty and diagnostics opt asks for.
	Predict(ctx context.Context, x mat.Matrix, opt PredictOptions) (*Prediction, error)
	// Summary describes the training data and the models that predict.
	Summary() Summary
}

// Uncertainty names what a prediction's interval covers.
type Uncertainty string

const (
	// NoUncertainty gives the predictions alone, at the cost of one kernel
	// vector per point.
	NoUncertainty Uncertainty = ""
	// ConfidenceBand covers f(x), the mean of y at x:
	// ŷ ± z·se(x), se(x)² = s²(‖H_mᵀk_c(x)‖² + 1/n) (docs/design.md §3).
	ConfidenceBand Uncertainty = "band"
	// PredictionInterval covers a new observation y = f(x) + ε: the band's
	// variance plus s². Like the bands, intervals are first order in the
	// noise and do not cover the fit's bias.
	PredictionInterval Uncertainty = "interval"
)

// PredictOptions say what Predict computes besides the predictions. The
// zero value gives the predictions alone.
type PredictOptions struct {
	// Uncertainty asks for a confidence band or a prediction interval.
	// Either costs, per block of points and per member of a mean, m
	// products of the n×n kernel matrix with the block.
	Uncertainty Uncertainty
	// Level is the coverage of the band or interval, in (0, 1); zero
	// means DefaultLevel.
	Level float64
	// NoIntercept drops the intercept's 1/n from the band's variance, as
	// the paper does.
	NoIntercept bool
	// Diagnostics asks which points the predictor extrapolates to
	// (Prediction.Extrapolation): O(n·(d + m)) per point and member.
	Diagnostics bool
	// Progress, if not nil, is called as the points' bands advance
	// (StageBands), from the calling goroutine: after each block of
	// points of each model, Total being the points times the models (a
	// mean's members).
	Progress func(Progress)
}

// Prediction is what Predict computed, one element per row of x.
type Prediction struct {
	Yhat []float64
	// SE, Lower and Upper are the band's or interval's standard error and
	// limits, nil without PredictOptions.Uncertainty.
	SE, Lower, Upper []float64
	// Level is the coverage of the limits (zero without them).
	Level float64
	// Noise is the noise level s that scales the limits, and
	// NoiseFromRMSECV whether it is the RMSECV rather than σ̂ (Summary).
	Noise           float64
	NoiseFromRMSECV bool
	// Extrapolation says which points lie outside the training data's
	// reach; nil without PredictOptions.Diagnostics.
	Extrapolation *Extrapolation
}

// Summary describes a predictor.
type Summary struct {
	// N and D are the training rows and features; FeatureNames and
	// TargetName their names, when the fit was given them.
	N, D         int
	FeatureNames []string
	TargetName   string
	// Members are the models whose predictions are averaged, the best
	// grid point's first: a Model is its own single member.
	Members []Member
	// Stats are the training statistics of the predictions: the model's
	// at its m, or the mean fit's: its RSS, DoF (the mean of the members'
	// DoF at their m; NaN if one is unknown or they come from different
	// methods, as in Select's means, whose other members are fitted
	// without DoF), σ̂ and the criteria from them, with M −1.
	Stats Stats
	// TrainingRMSE and TrainingR2 are the predictions' fit to the
	// training rows (weighted, with N = Σw, for weighted fits).
	TrainingRMSE, TrainingR2 float64
	// Noise is the noise level s of bands and intervals: σ̂, or the RMSECV
	// where cross-validation chose the m and σ̂ is smaller or unknown
	// (NoiseFromRMSECV). NaN when neither is known.
	Noise           float64
	NoiseFromRMSECV bool
	// Storage is how the first member's fit held the kernel matrix,
	// LanczosSteps the Lanczos steps behind its DoF (Options.Lanczos, cut
	// where the Krylov space broke down), Stop why it stopped early (the
	// zero Stop if it did not), and Warnings what it found worth saying.
	Storage      Storage
	LanczosSteps int
	Stop         Stop
	Warnings     []Warning
}

// Member is one model of a predictor: its kernel, the weights of its
// features (Options.Relevance; nil: all 1), the m it predicts with and
// how that was chosen (Choice), and the most components it holds.
type Member struct {
	Kernel    Kernel
	Relevance []float64
	Choice
	MaxComponents int
}

// Predict predicts the rows of x with m = Chosen().M components (use At
// for another m): ȳ + k_c(x)ᵀα_m, the rows standardised and the kernel
// vectors centred with the training statistics.
func (m *Model) Predict(ctx context.Context, x mat.Matrix, opt PredictOptions) (*Prediction, error) {
	comp := m.Chosen().M
	return predictBy(ctx, x, opt, predictPaths{
		plain: func(ctx context.Context, x mat.Matrix) ([]float64, error) { return m.predictAt(ctx, x, comp) },
		outside: func(ctx context.Context, x mat.Matrix) ([]float64, *Extrapolation, error) {
			return m.predictOutside(ctx, x, comp)
		},
		bands: func(ctx context.Context, x mat.Matrix, bo bandOpts, intervals bool) ([]bandValue, error) {
			if intervals {
				return m.predictIntervals(ctx, x, comp, bo)
			}
			return m.predictBands(ctx, x, comp, bo)
		},
		noise:   func() (float64, bool) { return m.noiseLevel(comp) },
		members: 1,
	})
}

// Predict predicts the rows of x with the mean of its members'
// predictions, each at its chosen m.
func (a *Mean) Predict(ctx context.Context, x mat.Matrix, opt PredictOptions) (*Prediction, error) {
	return predictBy(ctx, x, opt, predictPaths{
		plain:   a.predict,
		outside: a.predictOutside,
		bands: func(ctx context.Context, x mat.Matrix, bo bandOpts, intervals bool) ([]bandValue, error) {
			if intervals {
				return a.predictIntervals(ctx, x, bo)
			}
			return a.predictBands(ctx, x, bo)
		},
		noise:   a.noiseLevel,
		members: len(a.members),
	})
}

// predictPaths are how a model or a mean computes what Predict asks for.
type predictPaths struct {
	plain   func(context.Context, mat.Matrix) ([]float64, error)
	outside func(context.Context, mat.Matrix) ([]float64, *Extrapolation, error)
	bands   func(ctx context.Context, x mat.Matrix, bo bandOpts, intervals bool) ([]bandValue, error)
	noise   func() (float64, bool)
	// members is how many models the bands run through, one after the
	// other, for every block of points.
	members int
}

// predictBy answers Predict through paths: the predictions alone (with
// the diagnostics, from the same kernel vectors), or the band's or
// interval's predictions and limits, then the diagnostics.
func predictBy(ctx context.Context, x mat.Matrix, opt PredictOptions, paths predictPaths) (*Prediction, error) {
	p := &Prediction{}
	var err error
	if opt.Uncertainty == NoUncertainty {
		if opt.Diagnostics {
			p.Yhat, p.Extrapolation, err = paths.outside(ctx, x)
		} else {
			p.Yhat, err = paths.plain(ctx, x)
		}
		return p, err
	}
	bo, err := opt.bandOptions()
	if err != nil {
		return nil, err
	}
	bands := func(ctx context.Context, x mat.Matrix, advance func(int)) ([]bandValue, error) {
		bo.advance = advance
		return paths.bands(ctx, x, bo, opt.Uncertainty == PredictionInterval)
	}
	p.Noise, p.NoiseFromRMSECV = paths.noise()
	if err := p.fillBands(ctx, x, bands, paths.members, opt); err != nil {
		return nil, err
	}
	if opt.Diagnostics {
		_, p.Extrapolation, err = paths.outside(ctx, x)
	}
	return p, err
}

// bandOptions checks the uncertainty asked for and returns the band
// options it means.
func (o PredictOptions) bandOptions() (bandOpts, error) {
	switch o.Uncertainty {
	case ConfidenceBand, PredictionInterval:
	default:
		return bandOpts{}, fmt.Errorf("%w: uncertainty %q, want %q or %q", ErrBadOption, o.Uncertainty, ConfidenceBand, PredictionInterval)
	}
	level := o.Level
	if level == 0 {
		level = DefaultLevel
	}
	return bandOpts{Level: level, NoIntercept: o.NoIntercept}, nil
}

// predictBlock is how many points one call of the band computation takes:
// it bounds the results held between calls, not the progress reports.
const predictBlock = 512

// fillBands computes the bands of the rows of x in blocks of
// predictBlock and fills p's predictions and limits. Progress counts a
// point once per model the bands run it through (members), as each
// block of a model finishes: the time left is then known after the
// first block of the first model, not only when the call ends.
func (p *Prediction) fillBands(ctx context.Context, x mat.Matrix, bandOf func(context.Context, mat.Matrix, func(int)) ([]bandValue, error), members int, opt PredictOptions) error {
	if x == nil {
		return fmt.Errorf("%w: x is nil", ErrShape)
	}
	rows, d := x.Dims()
	bs := make([]bandValue, 0, rows)
	total, done := rows*max(members, 1), 0
	report := func(n int) {
		done = min(total, done+n)
		if opt.Progress != nil {
			opt.Progress(Progress{Stage: StageBands, Done: done, Total: total})
		}
	}
	report(0)
	for r0 := 0; r0 < rows; r0 += predictBlock {
		r1 := min(rows, r0+predictBlock)
		var sub mat.Matrix = x
		if r0 > 0 || r1 < rows {
			sub = sliceRows(x, r0, r1, d)
		}
		b, err := bandOf(ctx, sub, report)
		if err != nil {
			return err
		}
		bs = append(bs, b...)
	}
	if rows == 0 {
		if _, err := bandOf(ctx, x, nil); err != nil {
			return err
		}
	}
	bo, _ := opt.bandOptions()
	p.Level = bo.Level
	p.Yhat = make([]float64, rows)
	p.SE, p.Lower, p.Upper = make([]float64, rows), make([]float64, rows), make([]float64, rows)
	for i, b := range bs {
		p.Yhat[i], p.SE[i], p.Lower[i], p.Upper[i] = b.Yhat, b.SE, b.Lower, b.Upper
	}
	return nil
}

// sliceRows returns rows r0..r1 of x as a matrix, without copying where x
// can slice itself.
func sliceRows(x mat.Matrix, r0, r1, d int) mat.Matrix {
	if s, ok := x.(interface {
		Slice(i, k, j, l int) mat.Matrix
	}); ok {
		return s.Slice(r0, r1, 0, d)
	}
	out := mat.NewDense(r1-r0, d, nil)
	for i := r0; i < r1; i++ {
		for j := 0; j < d; j++ {
			out.Set(i-r0, j, x.At(i, j))
		}
	}
	return out
}

// At returns the model predicting with comp components instead of its
// chosen m. Its Chosen().M is comp; the choice's criterion and RMSECV
// stay only when comp is the m they chose, so bands and intervals take
// σ̂ at any other m. The arrays are shared, not copied.
func (m *Model) At(comp int) (*Model, error) {
	if err := m.checkComponents(comp); err != nil {
		return nil, err
	}
	c := m.Chosen()
	if c.M == comp {
		return m, nil
	}
	v := m.shallowCopy()
	v.chosen = &Choice{M: comp}
	return v, nil
}

// shallowCopy is a new Model sharing m's results and arrays, and its
// kernel matrix and per-m caches (through base): a copy with caches of
// its own built the n×n matrix again on its first band request (512 MiB
// and seconds at n = 8192, past any deadline: the service makes one per
// request that names its components).
func (m *Model) shallowCopy() *Model {
	return &Model{opts: m.opts, n: m.n, d: m.d, scale: m.scale, x: m.x, yMean: m.yMean, yc: m.yc,
		colMean: m.colMean, grand: m.grand, valid: m.valid, steps: m.steps, lanczos: m.lanczos,
		alpha: m.alpha, t: m.t, g: m.g, l: m.l, stats: m.stats, dofSE: m.dofSE, warns: m.warns,
		stop: m.stop, chosen: m.chosen, storage: m.storage, wt: m.wt, base: m.shared()}
}

// Summary describes the model as the single member of its predictions.
func (m *Model) Summary() Summary {
	c := m.Chosen()
	s := Summary{N: m.n, D: m.d, FeatureNames: slices.Clone(m.opts.FeatureNames), TargetName: m.opts.TargetName,
		Members: []Member{{Kernel: m.opts.Kernel, Relevance: slices.Clone(m.opts.Relevance), Choice: c, MaxComponents: m.valid}},
		Stats:   m.stats[c.M],
		Storage: m.storage, LanczosSteps: m.lanczos, Stop: m.stop, Warnings: m.Warnings()}
	s.Noise, s.NoiseFromRMSECV = m.noiseLevel(c.M)
	s.TrainingRMSE, s.TrainingR2 = m.trainingFit(c.M)
	return s
}

// Summary describes the mean: its members in order, the mean fit's
// statistics and noise level.
func (a *Mean) Summary() Summary {
	first := a.members[0]
	s := first.Summary()
	s.Members = s.Members[:0]
	for _, m := range a.members {
		s.Members = append(s.Members, Member{Kernel: m.opts.Kernel, Relevance: slices.Clone(m.opts.Relevance), Choice: m.Chosen(), MaxComponents: m.valid})
	}
	s.Stats = a.stats
	s.Noise, s.NoiseFromRMSECV = a.noiseLevel()
	s.TrainingRMSE, s.TrainingR2 = a.trainingFit()
	return s
}

// MarshalJSON writes the prediction with null for what is unknown (a NaN
// limit where no noise level is known) and leaves out what was not asked
// for.
func (p *Prediction) MarshalJSON() ([]byte, error) {
	nums := func(v []float64) []jsonNum {
		if v == nil {
			return nil
		}
		out := make([]jsonNum, len(v))
		for i, x := range v {
			out[i] = jsonNum(x)
		}
		return out
	}
	return json.Marshal(struct {
		Yhat            []jsonNum      `json:"yhat"`
		SE              []jsonNum      `json:"se,omitempty"`
		Lower           []jsonNum      `json:"lower,omitempty"`
		Upper           []jsonNum      `json:"upper,omitempty"`
		Level           float64        `json:"level,omitempty"`
		Noise           *jsonNum       `json:"noise,omitempty"`
		NoiseFromRMSECV bool           `json:"noise_from_rmsecv,omitempty"`
		Extrapolation   *Extrapolation `json:"extrapolation,omitempty"`
	}{nums(p.Yhat), nums(p.SE), nums(p.Lower), nums(p.Upper), p.Level, noiseOf(p), p.NoiseFromRMSECV, p.Extrapolation})
}

// noiseOf is p's noise level for JSON, nil without limits.
func noiseOf(p *Prediction) *jsonNum {
	if p.SE == nil {
		return nil
	}
	n := jsonNum(p.Noise)
	return &n
}
