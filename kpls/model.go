package kpls

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/internal/kernelop"
)

// Model is a fitted kernel PLS model holding every m up to its number of
// valid components. It is immutable after Fit or Load and safe for
// concurrent use by multiple goroutines.
type Model struct {
	opts    Options // resolved: every default filled in
	n, d    int
	scale   *scaling  // nil with RawFeatures
	x       []float64 // n×d training inputs, standardised
	yMean   float64
	yc      []float64 // centred training response
	colMean []float64 // column means of the uncentred K
	grand   float64   // grand mean of the uncentred K
	trK     float64   // trace of the centred K
	trK2    float64   // ‖K_c‖²_F
	// prepWarns counts the warnings about the data (kept when the kernel
	// matrix is refitted with more components).
	prepWarns int
	valid     int       // components that passed the breakdown checks
	steps     int       // Krylov steps run (≥ valid); L is steps×steps
	lanczos   int       // Lanczos steps M behind the approximate DoF
	alpha     []float64 // (valid+1)×n kernel coefficients α_m
	t, g      []float64 // valid×n scores and coefficient directions
	l         []float64 // steps×steps Lanczos matrix L = TᵀKR̂
	stats     []Stats   // m = 0..valid
	dofSE     []float64 // standard error of the approximate DoF, nil if none
	warns     []Warning
	stop      Stop    // why the fit stopped early
	chosen    *Choice // how the default m was chosen; nil in files from before it was recorded

	// storage is how the fit held the kernel matrix ("" in a loaded
	// model until bands need the matrix).
	storage     Storage
	storageWarn *Warning // why storage is not what auto chose first
	cutWhy      string   // why auto leaves float32 (with errFloat32Cut)
	keepKrylov  bool     // keep the fit's Krylov steps in kr (cross-validation's folds)
	kr          *krylov
	// The centred kernel matrix as an operator, kept from Fit or built on
	// the first request for confidence bands.
	opOnce sync.Once
	op     kernelop.Operator
	opErr  error

	// q_m(K)·T_m (m×n) for the m that confidence bands were asked for,
	// computed once each: the bands' second term for any point is this
	// matrix times Gᵀk, with no products with K per point.
	qtMu sync.Mutex
	qt   map[int][]float64
}

// Fit fits kernel PLS to the rows of x (n×d) and the response y, computing
// all m = 0..opts.Components at once, with degrees of freedom and the
// selection criteria for each.
func Fit(ctx context.Context, x mat.Matrix, y []float64, opts Options) (*Model, error) {
	m, xs, err := prepare(x, y, opts)
	if err != nil {
		return nil, err
	}
	op, err := m.fit(ctx, nil, xs, y)
	if err != nil {
		return nil, err
	}
	m.op = op
	c := m.opts.Criterion
	m.chosen = &Choice{Criterion: c, M: m.ComponentsBy(c)}
	if m.chosen.M == m.valid && m.valid == m.opts.Components && m.valid > 0 {
		m.warns = append(m.warns, warnf(WarnChoiceAtEdge, "the %s choice m = %d is the largest fitted: a larger m might score better (Select extends the components by itself)", c, m.valid))
	}
	return m, nil
}

// prepare checks the data and options and sets up a model with its
// standardised training inputs, which it also returns.
func prepare(x mat.Matrix, y []float64, opts Options) (*Model, []float64, error) {
	xs, n, d, err := denseRows(x, "x")
	if err != nil {
		return nil, nil, err
	}
	if len(y) != n {
		return nil, nil, fmt.Errorf("%w: x has %d rows, y has %d values", ErrShape, n, len(y))
	}
	if n < 3 {
		return nil, nil, fmt.Errorf("%w: %d rows", ErrTooFewRows, n)
	}
	if d < 1 {
		return nil, nil, fmt.Errorf("%w: x has no columns", ErrShape)
	}
	for i, v := range y {
		if isNaNOrInf(v) {
			return nil, nil, fmt.Errorf("%w: y row %d is %v", ErrNonFinite, i+1, v)
		}
	}
	if isConstant(y) {
		return nil, nil, fmt.Errorf("%w: every value is %g", ErrConstantY, y[0])
	}
	o, err := opts.resolved(n, d)
	if err != nil {
		return nil, nil, err
	}
	m := &Model{opts: o, n: n, d: d, x: xs}
	if !o.RawFeatures {
		s, constant := learnScaling(xs, n, d)
		s.apply(xs, n, d)
		m.scale = &s
		for _, j := range constant {
			m.warns = append(m.warns, warnf(WarnConstantFeature, "feature %s is constant: left unscaled", m.featureName(j)))
		}
	}
	m.prepWarns = len(m.warns)
	return m, xs, nil
}

func isConstant(v []float64) bool {
	for _, w := range v[1:] {
		if w != v[0] {
			return false
		}
	}
	return true
}

func (m *Model) featureName(j int) string {
	if j < len(m.opts.FeatureNames) {
		return fmt.Sprintf("%q (column %d)", m.opts.FeatureNames[j], j+1)
	}
	return fmt.Sprintf("column %d", j+1)
}

// fit builds the centred kernel matrix in buf's memory (reused by Select
// across widths and folds), runs NIPALS and computes DoF and criteria. It
// returns the operator, which lives in buf.
//
// Auto chooses float32 only for fits without DoF or with the Lanczos DoF
// (storageFor). When such a float32 fit with Lanczos DoF stops early
// (breakdown, lost K-orthogonality, Ritz spread, or a product float32 does
// not resolve) before the components or the Lanczos steps asked for, it
// is refitted on hybrid storage (float64, within the same memory limit)
// with a warning: near breakdown, float32 rounding can move the step the
// fit stops at, and the DoF with it (docs/scale.md). A resolution stop
// after all the components goes on in float64 instead (continueFloat64).
// Fits without DoF (cross-validation's folds) keep float32, whose
// predictions stay within 10⁻⁵ even where it stops early; their stop is
// reported as any is.
func (m *Model) fit(ctx context.Context, buf *kernelBuffer, xs, y []float64) (kernelop.Operator, error) {
	if buf == nil {
		buf = new(kernelBuffer) // for the refit to reuse the first one's memory
	}
	m.storageWarn = nil
	op, err := m.buildOperator(ctx, xs, buf)
	if err != nil {
		return nil, err
	}
	err = m.fitOperator(ctx, op, y)
	if !errors.Is(err, errFloat32Cut) {
		return op, err
	}
	op = nil // its memory is the refit's
	return m.refitHybrid(ctx, buf, y)
}

// refitHybrid refits on hybrid storage after a float32 fit that auto
// chose stopped early (errFloat32Cut), and records why.
func (m *Model) refitHybrid(ctx context.Context, buf *kernelBuffer, y []float64) (kernelop.Operator, error) {
	why := m.cutWhy
	m.opts.Storage = StorageHybrid
	op, err := m.rebuildOperator(ctx, buf)
	m.opts.Storage = StorageAuto
	if err != nil {
		return nil, err
	}
	w := warnf(WarnStorage, "on float32 storage of the kernel matrix %s: refitted on hybrid storage, in float64", why)
	m.storageWarn = &w
	return op, m.fitOperator(ctx, op, y)
}

// continueFloat64 runs the Krylov steps that float32 storage no longer
// resolves on matrix-free products in float64, which need no memory
// beside the float32 matrix. Auto does this when a float32 fit with
// Lanczos DoF has all its components and stopped for resolution among the
// extra Lanczos steps: the components keep float32's products, each
// resolved to float32Resolution, and the Lanczos matrix gets exact steps
// instead of being cut short (against dense, the Lanczos DoF went from
// 11–26 % off to 1e-5; TestFloat32Continuation).
func (m *Model) continueFloat64(ctx context.Context, kr *krylov, yc []float64) error {
	o := &m.opts
	width := o.kernelWidth()
	from, why := kr.steps, kr.stop.Message
	mf, err := kernelop.NewMatrixFree(ctx, kernelop.WithMeans(m.kernelRows(m.x), m.colMean, m.grand), nil)
	if err != nil {
		return err
	}
	if err := kr.extend(ctx, o.Backend, mf, yc, func(done, total int) { o.report("fit", width, done, total) }); err != nil {
		return err
	}
	m.warns = append(m.warns, warnf(WarnStorage, "float32 storage of the kernel matrix stopped resolving the fit's products after %d steps (%s): steps %d to %d, which only the DoF use, ran on matrix-free float64 products", from, why, from+1, kr.steps))
	return nil
}

// errFloat32Cut tells fit that a float32 fit that auto chose stopped
// before what was asked for (m.cutWhy says where).
var errFloat32Cut = errors.New("kpls: the float32 fit stopped early")

// fitOperator runs NIPALS on the centred kernel matrix op for
// m.opts.Components components and computes DoF and criteria. Run again
// with more components on the same op, it fits from scratch without
// rebuilding the kernel matrix.
func (m *Model) fitOperator(ctx context.Context, op kernelop.Operator, y []float64) error {
	o := &m.opts
	n := m.n
	width := o.kernelWidth()
	var sum float64
	for _, v := range y {
		sum += v
	}
	m.yMean = sum / float64(n)
	yc := make([]float64, n)
	m.yc = yc
	var ss float64
	for i, v := range y {
		yc[i] = v - m.yMean
		ss += yc[i] * yc[i]
	}
	if isNaNOrInf(ss) {
		return fmt.Errorf("%w: y is too large in magnitude (its mean or sum of squares overflows)", ErrNonFinite)
	}
	kr, err := nipals(ctx, o.Backend, op, yc, o.steps(o.maxComponents(n, m.d)), func(done, total int) { o.report("fit", width, done, total) })
	if err != nil {
		return err
	}
	return m.finish(ctx, op, kr)
}

// resumeFit continues the fit whose Krylov steps kr holds (kept with
// keepKrylov) to m.opts.Components components on op, the same kernel
// matrix rebuilt: cross-validation grows its folds' fits this way instead
// of refitting them. The result is the one a fit to that many components
// from the start gives, as every step depends only on the ones before.
func (m *Model) resumeFit(ctx context.Context, op kernelop.Operator, kr *krylov) error {
	o := &m.opts
	width := o.kernelWidth()
	kr.grow(o.steps(o.maxComponents(m.n, m.d)))
	if kr.stop.Reason == StopNone {
		if err := kr.extend(ctx, o.Backend, op, m.yc, func(done, total int) { o.report("fit", width, done, total) }); err != nil {
			return err
		}
	}
	return m.finish(ctx, op, kr)
}

// finish turns the Krylov steps kr on op into the model: components,
// coefficients, DoF and criteria.
func (m *Model) finish(ctx context.Context, op kernelop.Operator, kr *krylov) error {
	o := &m.opts
	n, yc := m.n, m.yc
	m.warns = m.warns[:m.prepWarns]
	if m.storageWarn != nil {
		m.warns = append(m.warns, *m.storageWarn)
	}
	if m.keepKrylov {
		m.kr = kr
	}
	if kr.stop.Reason == StopStorage && kr.steps >= o.Components && m.storage == StorageFloat32 && o.Storage == StorageAuto &&
		o.DoF == DoFLanczos {
		if err := m.continueFloat64(ctx, kr, yc); err != nil {
			return err
		}
	}
	m.valid = min(o.Components, kr.steps)
	m.steps = kr.steps
	m.lanczos = min(o.Lanczos, kr.steps)
	m.stop = kr.stop
	if kr.stop.Reason != StopNone && m.storage == StorageFloat32 && o.Storage == StorageAuto && m.storageWarn == nil &&
		o.DoF == DoFLanczos && (m.valid < o.Components || m.lanczos < o.Lanczos) {
		m.cutWhy = fmt.Sprintf("the fit stopped early (%s), where float32 rounding can move the stop and the DoF with it", kr.stop.Message)
		return errFloat32Cut // before the DoF: the refit computes them
	}
	if kr.stop.Reason != StopNone {
		m.warns = append(m.warns, warnf(WarnStopped, "fit stopped at %s", kr.stop.Message))
	}
	if m.valid < o.Components {
		m.warns = append(m.warns, warnf(WarnFewerComponents, "only %d of the %d components asked for are valid (the fit stopped at %s)", m.valid, o.Components, kr.stop.Message))
	}
	// Tight copies: the fit's work arrays are sized for all steps.
	m.alpha = append([]float64(nil), kr.alpha[:(m.valid+1)*n]...)
	m.t = append([]float64(nil), kr.t[:m.valid*n]...)
	m.g = append([]float64(nil), kr.g[:m.valid*n]...)
	l := kr.lanczosL(o.Backend, m.steps)
	m.l = l

	dof, err := m.dof(ctx, op, yc, kr)
	if err != nil {
		return err
	}
	m.stats = make([]Stats, m.valid+1)
	dofMax := float64(n - 1)
	if f := featureDim(o.Kernel, m.d); f > 0 {
		dofMax = math.Min(dofMax, float64(f+1))
	}
	for i := range m.stats {
		s := &m.stats[i]
		s.M = i
		s.RSS = kr.rss[i]
		s.DoF = dof[i]
		if m.dofSE != nil {
			s.DoFSE = m.dofSE[i]
		}
		yh := kr.yhat[i*n : (i+1)*n]
		for _, v := range yh {
			s.YhatSq += (v + m.yMean) * (v + m.yMean)
		}
		fillCriteria(s, n, dofMax)
	}
	return nil
}

// dof computes DoF(m) for m = 0..valid with the configured method.
func (m *Model) dof(ctx context.Context, op kernelop.Operator, yc []float64, kr *krylov) ([]float64, error) {
	o := &m.opts
	width := o.kernelWidth()
	var dof []float64
	switch o.DoF {
	case DoFNone:
		dof = make([]float64, m.valid+1)
		for i := range dof {
			dof[i] = float64(i + 1)
		}
	case DoFExact:
		var err error
		dof, err = exactDoF(ctx, o.Backend, op, yc, kr, m.valid, func(done, total int) { o.report("dof", width, done, total) })
		if err != nil {
			return nil, err
		}
	case DoFApprox:
		var why []string
		var err error
		// The control variates need the traces of the matrix the
		// products apply (float32's, when stored so).
		tr, frob2 := op.Stats().Applied()
		dof, m.dofSE, why, err = approxDoF(ctx, approxInput{
			bl: o.Backend, op: op, yc: yc, kr: kr, trK: tr, trK2: frob2,
			lz: newLanczos(m.l, m.steps), mMax: m.valid, probes: o.probes(m.n), seed: o.Seed,
			progress: func(done, total int) { o.report("dof", width, done, total) },
		})
		if err != nil {
			return nil, err
		}
		for i, r := range why {
			if r != "" {
				m.warns = append(m.warns, warnf(WarnDoFUnknown, "approx DoF for m = %d is unknown: %s", i, r))
			}
		}
	default: // lanczos
		dof = lanczosDoF(m.l, m.steps, m.lanczos, m.valid)
		if m.lanczos < o.Lanczos {
			m.warns = append(m.warns, warnf(WarnLanczosShort, "approximate DoF from %d Lanczos steps, not %d: the Krylov space is exhausted", m.lanczos, o.Lanczos))
		}
	}
	for i, v := range dof {
		if isNaNOrInf(v) {
			dof[i] = math.NaN()
			m.warns = append(m.warns, warnf(WarnDoFUnknown, "DoF for m = %d could not be computed reliably (%s)", i, o.DoF))
		}
	}
	return dof, nil
}

func (o *Options) kernelWidth() float64 {
	w, _ := WidthOf(o.Kernel)
	return w
}

// Options returns the resolved options the model was fitted with.
func (m *Model) Options() Options {
	o := m.opts
	o.FeatureNames = append([]string(nil), o.FeatureNames...)
	if o.DoF == DoFApprox && o.Probes == 0 {
		o.Probes = o.probes(m.n) // the number the fit used
	}
	return o
}

// Storage returns how the fit held the kernel matrix (dense, float32,
// hybrid or matrix-free; see Options.Storage).
func (m *Model) Storage() Storage { return m.storage }

// N returns the number of training points; D the number of features.
func (m *Model) N() int { return m.n }
func (m *Model) D() int { return m.d }

// Components returns the number of valid components: every m from 0 to
// it can be used for prediction.
func (m *Model) Components() int { return m.valid }

// LanczosSteps returns the number of Lanczos steps behind the approximate DoF.
func (m *Model) LanczosSteps() int { return m.lanczos }

// Stats returns the fit statistics for m = 0..Components().
func (m *Model) Stats() []Stats { return append([]Stats(nil), m.stats...) }

// Warnings returns what the fit found worth saying (constant features,
// breakdown, unreliable DoF), each with a code.
func (m *Model) Warnings() []Warning { return append([]Warning(nil), m.warns...) }

// Stop returns why the fit ran fewer Krylov steps than it was asked for;
// the zero Stop if it did not. Models loaded from files of format version
// 2 or older have the zero Stop (their warnings say it in words).
func (m *Model) Stop() Stop { return m.stop }

// ComponentsBy returns the number of components criterion c picks for
// this model: the first local minimum of its score over m =
// 0..Components(), not looking past an unknown DoF. For CV it is the
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
	return max(FirstLocalMin(score), 0)
}

// Choice records how a model's default number of components was chosen.
type Choice struct {
	Criterion Criterion `json:"criterion"`
	M         int       `json:"m"`
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
