package kpls

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/internal/kernelop"
)

// fitter is one fit in progress: it owns the options, the centred kernel
// matrix as an operator (in the memory of a kernelBuffer it may share),
// and the Krylov steps run on it. It can fit, refit or grow to more
// components, and hand out the result as an immutable Model. Fit runs
// one; Select runs one per grid point and one per fold.
type fitter struct {
	raw   config // as the caller gave them, for setComponents
	opts  config // resolved
	n, d  int
	x     []float64 // n×d training inputs, standardised
	scale *scaling  // nil with RawFeatures
	yMean float64
	yc    []float64  // centred training response (ỹ with weights)
	warns []Warning  // about the data
	wt    *weighting // nil without Data.Weights

	// buf is the memory of the kernel matrix. op lives in it while this
	// fitter is buf's owner; another fitter that builds into buf takes
	// it over, and op becomes nil here (kernelBuffer.claim). Fitters of
	// other responses may share op (adopt).
	buf     *kernelBuffer
	op      kernelop.Operator
	storage Storage        // how op holds K_c
	kstats  kernelop.Stats // means and traces of K_c, kept for rebuilds

	kr *krylov // the Krylov steps so far
	// storageWarn says why storage is not what auto chose first; it
	// stays with the fitter through refits on the operator it chose.
	storageWarn *Warning
	// runWarns are this run's warnings about the storage's products.
	runWarns []Warning
	// passes, if not nil, counts the passes over the kernel matrix: its
	// builds and its products (Select's budget).
	passes *int
}

// newFitter checks the data and options and sets up a fit with the
// standardised training inputs. buf is the kernel matrix's memory, shared
// with other fitters one at a time; nil gives the fitter its own.
func newFitter(x mat.Matrix, y []float64, opts config, buf *kernelBuffer) (*fitter, error) {
	xs, n, d, err := denseRows(x, "x")
	if err != nil {
		return nil, err
	}
	var wt *weighting
	if opts.Weights != nil {
		if xs, y, n, wt, err = weightedRows(xs, y, n, d, opts); err != nil {
			return nil, err
		}
	}
	if err := checkResponse(y, n, d); err != nil {
		return nil, err
	}
	o, err := opts.resolved(n, d)
	if err != nil {
		return nil, err
	}
	if buf == nil {
		buf = new(kernelBuffer)
	}
	f := &fitter{raw: opts, opts: o, n: n, d: d, x: xs, buf: buf, wt: wt}
	if wt != nil && len(wt.w) < len(opts.Weights) {
		f.warns = append(f.warns, warnf(WarnWeights, "%d of %d rows have weight 0 and are left out", len(opts.Weights)-len(wt.w), len(opts.Weights)))
	}
	if !o.RawFeatures {
		var w []float64
		if wt != nil {
			w = wt.w
		}
		s, constant, err := learnScaling(xs, n, d, w, o.FeatureNames)
		if err != nil {
			return nil, err
		}
		s.weight = o.Relevance
		s.apply(xs, n, d)
		f.scale = &s
		for _, j := range constant {
			f.warns = append(f.warns, warnf(WarnConstantFeature, "feature %s is constant: left unscaled", featureName(o.FeatureNames, j)))
		}
	}
	var ss float64
	if wt != nil {
		f.yMean, f.yc = wt.centre(y)
		for _, v := range f.yc {
			ss += v * v
		}
	} else {
		var sum float64
		for _, v := range y {
			sum += v
		}
		f.yMean = sum / float64(n)
		f.yc = make([]float64, n)
		for i, v := range y {
			f.yc[i] = v - f.yMean
			ss += f.yc[i] * f.yc[i]
		}
	}
	if isNaNOrInf(ss) {
		return nil, fmt.Errorf("%w: y is too large in magnitude (its mean or sum of squares overflows)", ErrNonFinite)
	}
	return f, nil
}

// checkResponse checks y against n×d inputs.
func checkResponse(y []float64, n, d int) error {
	if len(y) != n {
		return fmt.Errorf("%w: Data.X has %d rows, Data.Y %d", ErrShape, n, len(y))
	}
	if n < 3 {
		return fmt.Errorf("%w: %d rows", ErrTooFewRows, n)
	}
	if d < 1 {
		return fmt.Errorf("%w: x has no columns", ErrShape)
	}
	for i, v := range y {
		if isNaNOrInf(v) {
			return fmt.Errorf("%w: y row %d is %v", ErrNonFinite, i+1, v)
		}
	}
	if isConstant(y) {
		return fmt.Errorf("%w: every value is %g", ErrConstantY, y[0])
	}
	return nil
}

func isConstant(v []float64) bool {
	for _, w := range v[1:] {
		if w != v[0] {
			return false
		}
	}
	return true
}

func featureName(names []string, j int) string {
	if j < len(names) {
		return fmt.Sprintf("%q (column %d)", names[j], j+1)
	}
	return fmt.Sprintf("column %d", j+1)
}

// setComponents makes comp the number of components to fit, with the
// options resolved again (the default Lanczos steps follow it).
func (f *fitter) setComponents(comp int) error {
	f.raw.Components = comp
	o, err := f.raw.resolved(f.n, f.d)
	if err != nil {
		return err
	}
	f.opts = o
	return nil
}

// report sends progress for the fitter's kernel.
func (f *fitter) report(stage Stage) func(done, total int) {
	k := f.opts.Kernel
	return func(done, total int) { f.opts.report(stage, k, done, total) }
}

// operator returns the fitter's kernel matrix, building it when the
// fitter has none yet or another fitter has taken its memory since.
func (f *fitter) operator(ctx context.Context) (kernelop.Operator, error) {
	if f.op != nil && f.buf.holds(f) {
		return f.op, nil
	}
	s, limit, err := f.opts.storageFor(f.n)
	if err != nil {
		return nil, err
	}
	return f.build(ctx, s, limit)
}

// adopt takes over the kernel matrix of from, a fitter of another
// response over the same inputs and options, if it has one: the two
// share the operator (and its memory) instead of building it twice.
func (f *fitter) adopt(from *fitter) {
	if from == nil || from.op == nil || !from.buf.holds(from) || from.buf != f.buf {
		return
	}
	f.op, f.storage, f.kstats, f.storageWarn = from.op, from.storage, from.kstats, from.storageWarn
	f.buf.share(f)
}

// build builds K_c in storage s into the fitter's buffer. A rebuild
// reuses the column means of the first build, which saves the first of
// the two construction passes.
func (f *fitter) build(ctx context.Context, s Storage, limit int64) (kernelop.Operator, error) {
	f.op = nil
	f.buf.claim(f)
	var means *kernelop.Stats
	if f.kstats.ColMean != nil {
		means = &f.kstats
	}
	op, err := buildOperator(ctx, kernelBuild{
		kernel: f.opts.Kernel, x: f.x, n: f.n, d: f.d, storage: s, limit: limit,
		backend: f.opts.Backend, buf: f.buf, means: means, progress: f.report(StageKernel), comm: f.opts.Comm,
	})
	if err != nil {
		return nil, err
	}
	if comm := f.opts.Comm; comm != nil && s != StorageFeatures {
		// Over MPI ranks each rank holds its share of the tiles in float64,
		// cached within the limit (hybrid) or recomputed (matrix-free).
		if held := Storage(op.Kind()); held != s {
			if f.opts.Storage != StorageAuto && f.storageWarn == nil {
				w := warnf(WarnStorage, "storage %s is held over %d MPI ranks as %s: each rank caches its share of the kernel matrix's tiles in float64 within the memory limit", s, comm.Size(), held)
				f.storageWarn = &w
			}
			s = held
		}
	}
	f.storage, f.kstats = s, op.Stats()
	if f.wt != nil {
		if op, err = newWeightedOp(ctx, op, f.wt, kernelDiag(f.opts.Kernel, f.x, f.n, f.d)); err != nil {
			return nil, err
		}
	}
	if f.passes != nil {
		*f.passes++
		op = counted{op, f.passes}
	}
	f.op = op
	return op, nil
}

// fit runs the Krylov steps for the options' components from the start,
// on the kernel matrix it has (built if need be).
func (f *fitter) fit(ctx context.Context) error {
	op, err := f.operator(ctx)
	if err != nil {
		return err
	}
	o := &f.opts
	f.runWarns = nil
	kr, err := nipals(ctx, o.Backend, op, f.yc, o.steps(o.maxComponents(f.n, f.d)), f.report(StageFit))
	if err != nil {
		return err
	}
	f.kr = kr
	return f.settleStorage(ctx)
}

// grow continues the Krylov steps to the options' components (after
// setComponents) instead of refitting: every step depends only on the
// ones before, so the result is the one a fit to that many components
// from the start gives. Cross-validation's folds grow this way.
func (f *fitter) grow(ctx context.Context) error {
	if f.kr == nil {
		return f.fit(ctx)
	}
	o := &f.opts
	f.kr.grow(o.steps(o.maxComponents(f.n, f.d)))
	if f.kr.stop.Reason == StopNone { // else it cannot go further
		op, err := f.operator(ctx)
		if err != nil {
			return err
		}
		f.runWarns = nil
		if err := f.kr.extend(ctx, o.Backend, op, f.yc, f.report(StageFit)); err != nil {
			return err
		}
	}
	return f.settleStorage(ctx)
}

// settleStorage is auto storage's one decision after a float32 fit with
// the Lanczos DoF (storageFor gives float32 only to fits without DoF or
// with the Lanczos DoF):
//   - it stopped for resolution after all the components: the Lanczos
//     steps that only the DoF use go on in float64 (continueFloat64);
//   - it stopped early (breakdown, lost K-orthogonality, Ritz spread, or
//     a product float32 does not resolve) before the components or the
//     Lanczos steps asked for: it is refitted on hybrid storage (float64,
//     within the same memory limit) with a warning, since near breakdown
//     float32 rounding can move the step the fit stops at, and the DoF
//     with it (docs/scale.md).
//
// Fits without DoF (cross-validation's folds) keep float32, whose
// predictions stay within 10⁻⁵ even where it stops early; their stop is
// reported as any is.
func (f *fitter) settleStorage(ctx context.Context) error {
	o := &f.opts
	if f.storage != StorageFloat32 || o.Storage != StorageAuto || o.DoF != DoFLanczos {
		return nil
	}
	kr := f.kr
	if kr.stop.Reason == StopStorage && kr.steps >= o.Components {
		if err := f.continueFloat64(ctx); err != nil {
			return err
		}
	}
	if kr.stop.Reason == StopNone || f.storageWarn != nil ||
		(min(o.Components, kr.steps) == o.Components && min(o.Lanczos, kr.steps) == o.Lanczos) {
		return nil
	}
	why := fmt.Sprintf("the fit stopped early (%s), where float32 rounding can move the stop and the DoF with it", kr.stop.Message)
	_, limit, err := o.storageFor(f.n)
	if err != nil {
		return err
	}
	op, err := f.build(ctx, StorageHybrid, limit)
	if err != nil {
		return err
	}
	w := warnf(WarnStorage, "on float32 storage of the kernel matrix %s: refitted on hybrid storage, in float64", why)
	f.storageWarn = &w
	f.runWarns = nil
	if f.kr, err = nipals(ctx, o.Backend, op, f.yc, o.steps(o.maxComponents(f.n, f.d)), f.report(StageFit)); err != nil {
		return err
	}
	return nil
}

// continueFloat64 runs the Krylov steps that float32 storage no longer
// resolves on matrix-free products in float64, which need no memory
// beside the float32 matrix: the components keep float32's products,
// each resolved to float32Resolution, and the Lanczos matrix gets exact
// steps instead of being cut short (against dense, the Lanczos DoF went
// from 11–26 % off to 1e-5; TestFloat32Continuation).
func (f *fitter) continueFloat64(ctx context.Context) error {
	kr := f.kr
	from, why := kr.steps, kr.stop.Message
	rows := mustBehave(f.opts.Kernel).rows(f.x, f.n, f.d)
	var mf kernelop.Operator
	mf, err := kernelop.NewMatrixFree(ctx, kernelop.WithMeans(rows, f.kstats.ColMean, f.kstats.Grand), nil)
	if err != nil {
		return err
	}
	if f.wt != nil {
		if mf, err = newWeightedOp(ctx, mf, f.wt, kernelDiag(f.opts.Kernel, f.x, f.n, f.d)); err != nil {
			return err
		}
	}
	if f.passes != nil {
		mf = counted{mf, f.passes}
	}
	if err := kr.extend(ctx, f.opts.Backend, mf, f.yc, f.report(StageFit)); err != nil {
		return err
	}
	f.runWarns = append(f.runWarns, warnf(WarnStorage, "float32 storage of the kernel matrix stopped resolving the fit's products after %d steps (%s): steps %d to %d, which only the DoF use, ran on matrix-free float64 products", from, why, from+1, kr.steps))
	return nil
}

// model turns the Krylov steps so far into a Model: components,
// coefficients, DoF and criteria. The model shares nothing the fitter
// writes to later.
func (f *fitter) model(ctx context.Context) (*Model, error) {
	o := f.opts
	kr, n := f.kr, f.n
	means := f.kstats
	if f.wt != nil {
		// The weighted means, which centring a new point needs, are the
		// weighted operator's.
		op, err := f.operator(ctx)
		if err != nil {
			return nil, err
		}
		means = op.Stats()
	}
	m := &Model{
		opts: o, n: n, d: f.d, scale: f.scale, x: f.x, yMean: f.yMean, yc: f.yc, wt: f.wt,
		colMean: means.ColMean, grand: means.Grand, storage: f.storage,
		valid: min(o.Components, kr.steps), steps: kr.steps, lanczos: min(o.Lanczos, kr.steps), stop: kr.stop,
	}
	// The weights are the model's (Model.Weights, over the rows kept),
	// not its options', as in a loaded model.
	m.opts.Weights = nil
	m.warns = append([]Warning(nil), f.warns...)
	if f.storageWarn != nil {
		m.warns = append(m.warns, *f.storageWarn)
	}
	m.warns = append(m.warns, f.runWarns...)
	if kr.stop.Reason != StopNone {
		m.warns = append(m.warns, warnf(WarnStopped, "fit stopped at %s", kr.stop.Message))
	}
	if m.valid < o.Components {
		m.warns = append(m.warns, warnf(WarnFewerComponents, "only %d of the %d components asked for are valid (the fit stopped at %s)", m.valid, o.Components, kr.stop.Message))
	}
	// Tight copies: the fit's work arrays are sized for all steps, and
	// grow on.
	m.alpha = append([]float64(nil), kr.alpha[:(m.valid+1)*n]...)
	m.t = append([]float64(nil), kr.t[:m.valid*n]...)
	m.g = append([]float64(nil), kr.g[:m.valid*n]...)
	m.l = kr.lanczosL(o.Backend, m.steps)
	dof, err := f.dof(ctx, m)
	if err != nil {
		return nil, err
	}
	m.stats = make([]Stats, m.valid+1)
	dofMax := m.dofMax()
	for i := range m.stats {
		s := &m.stats[i]
		s.M, s.RSS, s.DoF = i, kr.rss[i], dof[i]
		if m.dofSE != nil {
			s.DoFSE = m.dofSE[i]
		}
		for j, v := range kr.yhat[i*n : (i+1)*n] {
			v += m.rootWeight(j) * m.yMean
			s.YhatSq += v * v
		}
		fillCriteria(s, m.total(), dofMax)
	}
	return m, nil
}

// dof computes DoF(m) for m = 0..valid with the configured method, and
// records the approximate DoF's standard errors and every warning in m.
func (f *fitter) dof(ctx context.Context, m *Model) ([]float64, error) {
	o := &f.opts
	var op kernelop.Operator
	if o.DoF == DoFExact || o.DoF == DoFApprox {
		var err error
		if op, err = f.operator(ctx); err != nil {
			return nil, err
		}
	}
	var dof []float64
	switch o.DoF {
	case DoFNone:
		dof = make([]float64, m.valid+1)
		for i := range dof {
			dof[i] = float64(i + 1)
		}
	case DoFExact:
		var err error
		if dof, err = exactDoF(ctx, o.Backend, op, f.yc, f.kr, m.valid, f.report(StageDoF)); err != nil {
			return nil, err
		}
	case DoFApprox:
		var why []string
		var err error
		// The control variates need the traces of the matrix the
		// products apply (float32's, when stored so).
		tr, frob2 := op.Stats().Applied()
		var null []float64
		if f.wt != nil {
			// K̃ annihilates √w, not the constant vector, and unless the
			// weights are equal only a bound on ‖K̃‖_F is known: no
			// second control variate then.
			if wop, ok := unwrapWeighted(op); !ok || !wop.frobExact {
				frob2 = math.NaN()
			}
			null = make([]float64, f.n)
			for i, v := range f.wt.sw {
				null[i] = v / math.Sqrt(f.wt.total)
			}
		}
		dof, m.dofSE, why, err = approxDoF(ctx, approxInput{
			bl: o.Backend, op: op, yc: f.yc, kr: f.kr, trK: tr, trK2: frob2, null: null,
			lz: newLanczos(m.l, m.steps), mMax: m.valid, probes: o.probes(m.n), seed: o.Seed,
			progress: f.report(StageDoF),
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

// counted is an operator whose products are counted: each Mul, whatever
// its number of vectors, is one pass over the kernel matrix.
type counted struct {
	kernelop.Operator
	passes *int
}

func (c counted) Mul(ctx context.Context, dst, v []float64, k int) error {
	*c.passes++
	return c.Operator.Mul(ctx, dst, v, k)
}
