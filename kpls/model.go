package kpls

import (
	"context"
	"fmt"
	"math"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/internal/gram"
	"github.com/kpls-go/kpls/internal/kernelop"
)

// Model is a fitted kernel PLS model holding every m up to its number of
// valid components. It holds results and what predictions need, nothing
// of the fit in progress (that is a fitter's), and is immutable after Fit,
// Select or Load: safe for concurrent use by multiple goroutines.
type Model struct {
	opts    config // resolved: every default filled in
	n, d    int
	scale   *scaling  // nil with RawFeatures
	x       []float64 // n×d training inputs, standardised
	yMean   float64
	yc      []float64 // centred training response
	colMean []float64 // column means of the uncentred K
	grand   float64   // grand mean of the uncentred K
	valid   int       // components that passed the breakdown checks
	steps   int       // Krylov steps run (≥ valid); L is steps×steps
	lanczos int       // Lanczos steps M behind the approximate DoF
	alpha   []float64 // (valid+1)×n kernel coefficients α_m
	t, g    []float64 // valid×n scores and coefficient directions
	l       []float64 // steps×steps Lanczos matrix L = TᵀKR̂
	stats   []Stats   // m = 0..valid
	dofSE   []float64 // standard error of the approximate DoF, nil if none
	warns   []Warning
	stop    Stop    // why the fit stopped early
	chosen  *Choice // how the default m was chosen; nil in files from before it was recorded
	// storage is how the fit held the kernel matrix ("" in a loaded
	// model until bands need the matrix).
	storage Storage
	// wt is the weighting of a weighted fit (Data.Weights), nil
	// without: yc, alpha, t and g are then in its tilde coordinates, and
	// colMean and grand are the weighted means Kw/N and wᵀKw/N².
	wt *weighting

	// The centred kernel matrix as an operator, kept from Fit or built on
	// the first request for confidence bands.
	opOnce sync.Once
	op     kernelop.Operator
	opErr  error

	// q_m(K)·T_m (m×n) for the m that confidence bands were asked for,
	// computed once each: the bands' second term for any point is this
	// matrix times Gᵀk, with no products with K per point.
	// pts are the training rows as kernel rows of new points read them
	// (made on first use; shared with the models of At through base).
	ptsOnce sync.Once
	pts     *gram.Points
	qtMu    sync.Mutex
	qt      map[int][]float64
	// kry holds the Krylov steps of the fit rerun for the bands' reverse
	// path (refitKrylov), per m, guarded by qtMu.
	kry map[int]*krylov
	// ritzOK records, per m, whether the Ritz form reproduces α_m
	// (ritzReproduces), guarded by qtMu: m products with K each time
	// otherwise, per band request and per block of a mean's points.
	ritzOK map[int]bool
	// base, when not nil, is the model this one is a view of (At): its
	// kernel matrix and the caches above, all per m, serve both.
	base *Model
}

// points are the training rows for kernel rows of new points, made once
// per model (and its views).
func (m *Model) points() *gram.Points {
	s := m.shared()
	s.ptsOnce.Do(func() { s.pts = gram.NewPoints(s.x, s.n, s.d) })
	return s.pts
}

// shared is the model whose kernel matrix and per-m caches m uses: its
// base, or itself.
func (m *Model) shared() *Model {
	if m.base != nil {
		return m.base
	}
	return m
}

// Fit fits kernel PLS to the rows of d.X (n×d) and the one column of
// d.Y, computing all m = 0..o.Components at once, with degrees of freedom
// and the selection criteria for each. A nil r means the default
// resources.
func Fit(ctx context.Context, d Data, o Options, r *Resources) (*Model, error) {
	y, c, err := d.single(newConfig(o, &d, r))
	if err != nil {
		return nil, err
	}
	return fit(ctx, d.X, y, c)
}

// fit fits x and y by c.
func fit(ctx context.Context, x mat.Matrix, y []float64, c config) (*Model, error) {
	f, err := newFitter(x, y, c, nil)
	if err != nil {
		return nil, err
	}
	m, err := fitModel(ctx, f)
	if err != nil {
		return nil, err
	}
	// The fitter's buffer is the model's alone: it keeps the operator
	// for confidence bands.
	m.op = f.op
	return m, nil
}

// fitModel runs f's fit and records its choice of m by the options'
// criterion.
func fitModel(ctx context.Context, f *fitter) (*Model, error) {
	if err := f.fit(ctx); err != nil {
		return nil, err
	}
	m, err := f.model(ctx)
	if err != nil {
		return nil, err
	}
	c := m.opts.Criterion
	m.chosen = &Choice{Criterion: c, M: m.ComponentsBy(c)}
	if m.chosen.M == m.valid && m.valid == m.opts.Components && m.valid > 0 {
		m.warns = append(m.warns, warnf(WarnChoiceAtEdge, "the %s choice m = %d is the largest fitted: a larger m might score better (Select extends the components by itself)", c, m.valid))
	}
	return m, nil
}

func (o *config) kernelWidth() float64 {
	w, _ := WidthOf(o.Kernel)
	return w
}

// Options returns the method the model was fitted with, every default
// filled in (Probes: the number the fit used).
func (m *Model) Options() Options {
	o := m.opts
	if o.DoF == DoFApprox && o.Probes == 0 {
		o.Probes = o.probes(m.n)
	}
	return o.method()
}

// storageKind returns how the fit held the kernel matrix (dense, float32,
// hybrid or matrix-free; see Resources.Storage).
func (m *Model) storageKind() Storage { return m.storage }

// N returns the number of training points; D the number of features.

// validComponents returns the number of valid components: every m from
// 0 to it can be used for prediction. It is at most Options.Components,
// the number asked for, and fewer where the fit stopped early (Stop).
// The m predictions use by default is Chosen().M.
func (m *Model) validComponents() int { return m.valid }

// lanczosSteps returns the number of Lanczos steps behind the approximate DoF.
func (m *Model) lanczosSteps() int { return m.lanczos }

// Stats returns the fit statistics for m = 0..ValidComponents().
func (m *Model) Stats() []Stats { return append([]Stats(nil), m.stats...) }

// Warnings returns what the fit found worth saying (constant features,
// breakdown, unreliable DoF), each with a code.
func (m *Model) Warnings() []Warning { return append([]Warning(nil), m.warns...) }

// stopped returns why the fit ran fewer Krylov steps than it was asked for;
// the zero Stop if it did not. Models loaded from files of format version
// 2 or older have the zero Stop (their warnings say it in words).
func (m *Model) stopped() Stop { return m.stop }

// ComponentsBy returns the number of components criterion c picks for
// this model: the first local minimum of its score over m =
// 0..ValidComponents(), not looking past an unknown DoF. For CV it is the
// recorded choice of a model that Select chose by cross-validation, and
// −1 for any other model. (Select, the function, chooses the kernel, the
// width and m over a grid.)
func (m *Model) ComponentsBy(c Criterion) int {
	if c == CV {
		if m.chosen != nil && m.chosen.Criterion == CV {
			return m.chosen.M
		}
		return -1
	}
	score := make([]float64, len(m.stats))
	for i, s := range m.stats {
		score[i] = s.Score(c)
	}
	return max(firstLocalMin(score), 0)
}

// Choice records how a model's default number of components was chosen.
type Choice struct {
	Criterion Criterion `json:"criterion"`
	M         int       `json:"m"`
	// RMSECV is the cross-validated prediction error at M when
	// cross-validation chose it (Select), and zero otherwise. Prediction
	// intervals take it as the noise level where σ̂ is smaller
	// (PredictIntervals).
	RMSECV float64 `json:"rmsecv,omitempty"`
}

// Chosen returns the number of components that predictions use by
// default and how it was chosen: by Select's criterion, or by Fit's
// Options.Criterion. Model files from before the choice was recorded
// give gMDL's choice, as they did then.
func (m *Model) Chosen() Choice {
	if m.chosen != nil {
		return *m.chosen
	}
	return Choice{Criterion: GMDL, M: m.ComponentsBy(GMDL)}
}

// Alpha returns the kernel coefficients α_m (length n); predictions are
// ȳ + k_c(x)ᵀα_m with k_c the centred kernel vector.
func (m *Model) Alpha(comp int) ([]float64, error) {
	if err := m.checkComponents(comp); err != nil {
		return nil, err
	}
	return append([]float64(nil), m.alpha[comp*m.n:(comp+1)*m.n]...), nil
}

// Intercept returns ȳ.
func (m *Model) Intercept() float64 { return m.yMean }

func (m *Model) checkComponents(comp int) error {
	if comp < 0 || comp > m.valid {
		return fmt.Errorf("%w: %d components asked for, the model has 0..%d", ErrComponents, comp, m.valid)
	}
	return nil
}

// trainingFit returns the root mean squared error and R² of the fit with
// comp components on the training data; NaN outside 0..ValidComponents().
func (m *Model) trainingFit(comp int) (rmse, r2 float64) {
	if comp < 0 || comp > m.valid {
		return math.NaN(), math.NaN()
	}
	rss := m.stats[comp].RSS
	var tss float64
	for _, v := range m.yc {
		tss += v * v
	}
	return math.Sqrt(rss / m.total()), 1 - rss/tss
}

// weights returns the frequency weights of the rows the model was fitted
// to (those of positive weight, in their order), nil for an unweighted
// fit.
func (m *Model) weights() []float64 {
	if m.wt == nil {
		return nil
	}
	return append([]float64(nil), m.wt.w...)
}

// total is N, the number of rows the fit counts: Σw with weights, else n.
func (m *Model) total() float64 {
	if m.wt != nil {
		return m.wt.total
	}
	return float64(m.n)
}

// rootWeight is √w_i, 1 without weights: the factor from row i's
// fitted value to its tilde coordinate.
func (m *Model) rootWeight(i int) float64 {
	if m.wt != nil {
		return m.wt.sw[i]
	}
	return 1
}

// centre turns rows uncentred kernel rows c (rows×n) into the centred
// vectors the model's coefficients apply to: k_c(x), or with weights
// k̃(x) = W^{1/2}k_w(x).
func (m *Model) centre(c []float64, rows int) {
	if m.wt != nil {
		m.wt.weightedCentre(c, rows, m.n, m.colMean, m.grand)
		return
	}
	gram.CenterCross(c, rows, m.n, m.colMean, m.grand)
}
