package kpls

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/blas"
)

// DoFMethod names how degrees of freedom are computed.
type DoFMethod string

const (
	// DoFApprox is a quadratic-time estimate, within 1 % of DoFExact over
	// its test bed: the exact Krylov part plus a deflated Hutchinson
	// estimate, with control variates, of the spectrum the Ritz values
	// miss; seeded, with a standard error.
	DoFApprox DoFMethod = "approx"
	// DoFLanczos is the paper's Definition: Ritz values of D over the
	// Lanczos steps (quadratic time, free beyond the fit).
	DoFLanczos DoFMethod = "lanczos"
	// DoFExact is the trace of the Jacobian ∂ŷ/∂y of the fit, by forward-mode
	// differentiation of the algorithm itself (cubic time).
	DoFExact DoFMethod = "exact"
	// DoFNone sets DoF(m) = m + 1 (a naive count, as plsdof without the
	// Jacobian).
	DoFNone DoFMethod = "none"
)

// Criterion names a model-selection criterion. Empty means the default,
// by one rule: the best criterion the call can compute. Select refits on
// folds, so its default is CV (DefaultCriterion, which came closest to
// cross-validated kernel ridge on held-out data); Fit has one fit and no
// refits, so its default is GCV (DefaultFitCriterion), the closest to CV
// among the criteria that need only the DoF.
type Criterion string

const (
	// GMDL, AIC and BIC are the paper's criteria (docs/design.md §4),
	// each with the model's own σ̂.
	GMDL Criterion = "gmdl"
	AIC  Criterion = "aic"
	BIC  Criterion = "bic"
	// GCV is generalised cross-validation, n·RSS/(n − DoF)².
	GCV Criterion = "gcv"
	// CV is k-fold cross-validation (Select only): the root mean squared
	// error of the held-out folds.
	CV Criterion = "cv"
)

// Options are the method of a fit: what it computes, saved with its
// model (Model.Options). The zero value fits an RBF kernel of the default
// width on standardised features with DefaultComponents components and
// the approximate DoF, and chooses m by GCV.
type Options struct {
	// Kernel is the kernel with its parameters; nil means RBF{} (width
	// d/2). Zero parameters take the kernel's defaults (see each kernel).
	Kernel Kernel
	// Components is the largest number of components m to fit (M). Zero
	// means DefaultComponents, capped by what the data allow.
	Components int
	// DoF is the degrees-of-freedom method; empty means DoFApprox.
	DoF DoFMethod
	// Criterion is how Fit chooses the m that predictions use by default:
	// GCV, AIC, BIC or GMDL; empty means DefaultFitCriterion. CV needs
	// refits on folds: use Select.
	Criterion Criterion
	// Lanczos is the number of Lanczos steps (the paper's m_max) behind the
	// approximate DoF; zero means max(DefaultLanczos, 2·Components). It is
	// capped by the number of steps before the Krylov space breaks down.
	Lanczos int
	// Probes is the number of random probe vectors behind DoFApprox; zero
	// means 64000/n within [MinProbes, MaxProbes] (for n ≤ 256 the n unit
	// vectors replace them and the trace is exact), and at least 2 are
	// needed for a standard error. Seed seeds them: equal seeds give equal
	// results.
	Probes int
	Seed   uint64
	// RawFeatures switches feature standardisation off (it is on by
	// default: centre by the training mean, divide by the training
	// standard deviation).
	RawFeatures bool
	// Relevance, if not nil, weighs the standardised features, one
	// positive, finite value per column of Data.X: the kernel sees
	// (x_j − mean_j)/sd_j · Relevance[j], so that a feature of weight
	// 0.1 costs a tenth of the distance of one of weight 1. Nil weighs
	// every feature 1. Select learns it on the screen's sample
	// (Screen.Relevance); it needs standardisation (not RawFeatures).
	Relevance []float64
}

// Data are the rows to learn from and what belongs to them.
type Data struct {
	// X holds the features, one row per observation (n×d).
	X mat.Matrix
	// Y holds the targets: one column for Fit and Select, one per target
	// for FitTargets and SelectTargets (n×q). A []float64 y is
	// mat.NewVecDense(len(y), y) (gonum panics on an empty one).
	Y mat.Matrix
	// Weights, if not nil, are frequency weights, one per row: a row of
	// weight w counts as w copies of itself (w need not be an integer).
	// Rows of weight 0 are left out; a negative, NaN or infinite weight,
	// or weights summing to 0, is an error. Fit and Select take them,
	// with every DoF method, bands and intervals (docs/design.md §5); a
	// precomputed kernel does not. Select's folds split the distinct rows
	// and are fitted one by one (not by the one-pass engine).
	Weights []float64
	// FeatureNames (one per column of X) and TargetNames (one per column
	// of Y) are saved with the models so that a prediction file can be
	// matched by column name. Optional.
	FeatureNames, TargetNames []string
}

// Resources say how a fit runs on this machine; they are never saved
// with a model. A nil *Resources means the defaults.
type Resources struct {
	// Storage is how the fit holds the centred kernel matrix; the zero
	// value (StorageAuto) chooses by MemoryLimit. A loaded model that
	// needs its kernel matrix (confidence bands) chooses on the machine
	// that loads it.
	Storage Storage
	// MemoryLimit is the bytes the kernel matrix may take; zero means
	// Resources.Memory(). Storage forced to dense or float32 beyond it
	// is an error (ErrTooLarge); hybrid storage caches this much.
	MemoryLimit int64
	// Backend does the linear algebra; nil means blas.Default().
	Backend blas.Float64
	// Progress, if not nil, is called as long work advances. It is called
	// from the goroutine that called Fit or Select and must be fast.
	Progress func(Progress)
	// Comm, if not nil, spreads the kernel matrix's products over the
	// ranks of a group of processes (an MPI communicator; the command's
	// mpi build): every rank calls Fit or Select with the same data and
	// options and gets the same model. A loaded model's bands run in one
	// process.
	Comm Comm
}

// config is everything a fit reads: the method, the data's weights and
// names, and the resources. Its JSON is the options record of a model
// file (method and names; weights and resources are not written).
type config struct {
	Kernel       Kernel    `json:"-"`
	Components   int       `json:"components"`
	DoF          DoFMethod `json:"dof"`
	Criterion    Criterion `json:"criterion,omitempty"`
	Lanczos      int       `json:"lanczos"`
	Probes       int       `json:"probes,omitempty"`
	Seed         uint64    `json:"seed,omitempty"`
	RawFeatures  bool      `json:"raw_features,omitempty"`
	Relevance    []float64 `json:"relevance,omitempty"`
	FeatureNames []string  `json:"feature_names,omitempty"`
	TargetName   string    `json:"target_name,omitempty"`
	// TargetNames name the columns of a response matrix; each target's
	// model records its own as TargetName.
	TargetNames []string       `json:"-"`
	Weights     []float64      `json:"-"`
	Storage     Storage        `json:"-"`
	MemoryLimit int64          `json:"-"`
	Backend     blas.Float64   `json:"-"`
	Progress    func(Progress) `json:"-"`
	Comm        Comm           `json:"-"`
}

// newConfig joins a fit's method, data and resources.
func newConfig(o Options, d *Data, r *Resources) config {
	c := config{Kernel: o.Kernel, Components: o.Components, DoF: o.DoF, Criterion: o.Criterion,
		Lanczos: o.Lanczos, Probes: o.Probes, Seed: o.Seed, RawFeatures: o.RawFeatures, Relevance: slices.Clone(o.Relevance),
		FeatureNames: d.FeatureNames, Weights: d.Weights}
	if len(d.TargetNames) > 0 { // an empty list names nothing
		c.TargetNames = d.TargetNames
	}
	if r != nil {
		c.Storage, c.MemoryLimit, c.Backend, c.Progress, c.Comm = r.Storage, r.MemoryLimit, r.Backend, r.Progress, r.Comm
	}
	return c
}

// MarshalJSON writes o as a model file records its method: the kernel as
// {"name", "width", …}. A Func kernel cannot be written.
func (o Options) MarshalJSON() ([]byte, error) { return newConfig(o, &Data{}, nil).MarshalJSON() }

// UnmarshalJSON reads options written by MarshalJSON, or the options
// record of a model file (its names are not Options').
func (o *Options) UnmarshalJSON(b []byte) error {
	var c config
	if err := c.UnmarshalJSON(b); err != nil {
		return err
	}
	*o = c.method()
	return nil
}

// method is the Options part of c.
func (c config) method() Options {
	return Options{Kernel: c.Kernel, Components: c.Components, DoF: c.DoF, Criterion: c.Criterion,
		Lanczos: c.Lanczos, Probes: c.Probes, Seed: c.Seed, RawFeatures: c.RawFeatures, Relevance: slices.Clone(c.Relevance)}
}

// Comm is a group of processes that fit together (Resources.Comm). Every
// rank makes the same calls in the same order.
type Comm interface {
	Rank() int
	Size() int
	// AllreduceSum replaces buf, on every rank, by the element-wise sum
	// of every rank's buf, bit for bit the same on every rank (so that
	// the ranks' fits never diverge).
	AllreduceSum(buf []float64) error
}

// Progress reports how far long work has come.
type Progress struct {
	Stage  Stage  // what the work is doing
	Kernel Kernel // the kernel being worked on (String names it with its width); nil for bands
	Done   int
	Total  int
}

// Stage names what long work is doing when it reports Progress.
type Stage string

// The stages of Fit and Select, in the order they come.
const (
	StageSelect Stage = "select" // Select: grid point Done of Total
	StageCV     Stage = "cv"     // Select: Krylov steps Done of Total of all the folds at one grid point
	StageKernel Stage = "kernel" // building the kernel matrix
	StageFit    Stage = "fit"    // Krylov step Done of Total
	StageDoF    Stage = "dof"    // the degrees of freedom, step Done of Total
	StageBands  Stage = "bands"  // bands and intervals (Predict): points Done of Total, a point counted once per member of a mean
)

func (o *config) report(stage Stage, k Kernel, done, total int) {
	if o.Progress != nil {
		o.Progress(Progress{Stage: stage, Kernel: k, Done: done, Total: total})
	}
}

// resolved returns a copy of o with defaults filled in and everything
// checked against the data size n×d.
func (o config) resolved(n, d int) (config, error) {
	k, err := resolveKernel(o.Kernel, n, d)
	if err != nil {
		return o, err
	}
	o.Kernel = k
	if mustBehave(k).inputs() == inputGram {
		o.RawFeatures = true
	}
	if err := o.checkRelevance(d); err != nil {
		return o, err
	}
	o.DoF = DoFMethod(strings.ToLower(string(o.DoF)))
	if o.DoF == "" {
		o.DoF = DoFApprox
	}
	switch o.DoF {
	case DoFApprox, DoFLanczos, DoFExact, DoFNone:
	default:
		return o, fmt.Errorf("%w: %q (want exact, lanczos, approx or none)", ErrDoFMethod, o.DoF)
	}
	if o.Criterion == "" {
		o.Criterion = DefaultFitCriterion
	}
	c, err := parseCriterion(string(o.Criterion))
	if err != nil {
		return o, err
	}
	if c == CV {
		return o, fmt.Errorf("%w: criterion cv needs refits on folds: use Select", ErrBadOption)
	}
	o.Criterion = c
	maxComp := o.maxComponents(n, d)
	if maxComp < 1 {
		return o, fmt.Errorf("%w: the data allow no components", ErrComponents)
	}
	if o.Components < 0 {
		return o, fmt.Errorf("%w: Options.Components: %d", ErrComponents, o.Components)
	}
	if o.Components == 0 {
		o.Components = min(DefaultComponents, maxComp)
	}
	if o.Components > maxComp {
		return o, fmt.Errorf("%w: Options.Components: %d asked for, the data allow at most %d", ErrComponents, o.Components, maxComp)
	}
	if o.Lanczos < 0 {
		return o, fmt.Errorf("%w: Options.Lanczos: %d steps", ErrBadOption, o.Lanczos)
	}
	if o.Lanczos == 0 {
		o.Lanczos = max(DefaultLanczos, 2*o.Components)
	}
	o.Lanczos = max(min(o.Lanczos, maxComp), o.Components)
	if o.Probes < 0 || o.Probes == 1 {
		// One probe has no spread, so no standard error.
		return o, fmt.Errorf("%w: Options.Probes: %d (want 0 for the default or at least 2)", ErrBadOption, o.Probes)
	}
	if o.MemoryLimit < 0 {
		return o, fmt.Errorf("%w: Resources.MemoryLimit: %d bytes", ErrBadOption, o.MemoryLimit)
	}
	if o.Storage, err = parseStorage(string(o.Storage)); err != nil {
		return o, err
	}
	if o.Backend == nil {
		o.Backend = blas.Default()
	}
	return o, nil
}

// checkRelevance checks Options.Relevance against d features.
func (o *config) checkRelevance(d int) error {
	switch {
	case o.Relevance == nil:
		return nil
	case o.RawFeatures:
		return fmt.Errorf("%w: Options.Relevance weighs standardised features: not with RawFeatures or a precomputed kernel", ErrBadOption)
	case len(o.Relevance) != d:
		return fmt.Errorf("%w: Options.Relevance: %d values for %d features", ErrBadOption, len(o.Relevance), d)
	}
	for j, r := range o.Relevance {
		if !(r > 0) || isNaNOrInf(r) {
			return fmt.Errorf("%w: Options.Relevance: feature %s has %v (want positive and finite)", ErrBadOption, featureName(o.FeatureNames, j), r)
		}
	}
	return nil
}

// steps is how many Krylov steps the fit runs: enough for the components
// and, when the DoF needs them, for the Lanczos approximation (see
// lanczosDoF for the 2m+1), within what the data allow.
func (o *config) steps(maxComp int) int {
	if o.DoF == DoFLanczos || o.DoF == DoFApprox {
		return min(max(o.Components, o.Lanczos, 2*o.Components+1), maxComp)
	}
	return o.Components
}

// maxComponents is the largest number of components the data allow: n−1,
// and for kernels with a finite feature space (linear, polynomial) also
// its dimension.
func (o *config) maxComponents(n, d int) int { return maxComponents(o.Kernel, n, d) }

func (o *config) probes(n int) int {
	if o.Probes > 1 {
		return o.Probes
	}
	return min(max(64000/n, MinProbes), MaxProbes)
}

// optionsAlias has config' fields without its JSON methods.
type optionsAlias config

// optionsJSON is config as JSON: the kernel as {"name", "width", ...}.
// Files of format version 1 and 2 wrote the kernel's name as a string
// with separate width and gamma fields; they are still read.
type optionsJSON struct {
	optionsAlias
	Kernel json.RawMessage `json:"kernel"`
	Width  float64         `json:"width,omitempty"`
	Gamma  float64         `json:"gamma,omitempty"`
}

// MarshalJSON writes the options with the kernel as an object; a Func
// kernel cannot be written.
func (o config) MarshalJSON() ([]byte, error) {
	k := o.Kernel
	if k == nil {
		k = RBF{}
	}
	raw, err := kernelJSON(k)
	if err != nil {
		return nil, err
	}
	return json.Marshal(optionsJSON{optionsAlias: optionsAlias(o), Kernel: raw})
}

// UnmarshalJSON reads options written by MarshalJSON or by format
// versions 1 and 2.
func (o *config) UnmarshalJSON(b []byte) error {
	var j optionsJSON
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		return err
	}
	*o = config(j.optionsAlias)
	var name string
	if err := json.Unmarshal(j.Kernel, &name); err == nil {
		// Versions 1 and 2: "kernel": "rbf", "width": w or "gamma": g.
		k, err := ParseKernel(name)
		if err != nil {
			return err
		}
		switch {
		case j.Gamma > 0:
			k = WithWidth(k, 1/(2*j.Gamma))
		case j.Width > 0:
			k = WithWidth(k, j.Width)
		}
		o.Kernel = k
		return nil
	}
	if j.Width != 0 || j.Gamma != 0 {
		return fmt.Errorf("width and gamma belong in the kernel object")
	}
	var s kernelSpec
	kd := json.NewDecoder(bytes.NewReader(j.Kernel))
	kd.DisallowUnknownFields()
	if err := kd.Decode(&s); err != nil {
		return fmt.Errorf("kernel: %v", err)
	}
	k, err := s.kernel()
	if err != nil {
		return err
	}
	o.Kernel = k
	return nil
}
