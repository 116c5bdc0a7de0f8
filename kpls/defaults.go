package kpls

// The defaults that zero options mean, and the limits of the
// extrapolation rules.
const (
	// DefaultComponents and DefaultLanczos are Options.Components and
	// Options.Lanczos when zero.
	DefaultComponents = 20
	DefaultLanczos    = 30
	// MinProbes and MaxProbes bound the random probe vectors behind
	// DoFApprox, 64000/n by default: the probes' block products cost s·n²
	// flops per two components, cheap for small n, where the standard
	// error matters most.
	MinProbes = 8
	MaxProbes = 64
	// DefaultFitCriterion is the criterion Fit records its choice of m by
	// when Options.Criterion is empty.
	DefaultFitCriterion = GCV
	// DefaultCriterion is how Select chooses when SelectOptions.By is
	// nil: measured on held-out data (docs/guide.md, "Choosing a
	// model"), k-fold cross-validation came closest to cross-validated
	// kernel ridge.
	DefaultCriterion = CV
	// DefaultFolds is the number of cross-validation folds.
	DefaultFolds = 5
	// DefaultMaxPasses is the search's budget when SelectOptions.MaxPasses
	// is zero: passes over the kernel matrix (a build, or one product with
	// a block of vectors). The default select on kin8nm makes about 450.
	DefaultMaxPasses = 3000
	// DefaultAverageWithin is the margin Select averages within by default
	// with cross-validation (CrossValidation.AverageWithin): the grid points
	// within 10 % of the best RMSECV are the candidates stacking chooses
	// the mean's members from. On the panel's small real sets that came to
	// 0.949 of cross-validated kernel ridge (geometric mean), against
	// 0.958 for the mean of every point within 5 % and 1.004 for the best
	// alone (docs/scale.md).
	DefaultAverageWithin = 0.10
	// DefaultLevel is the coverage of bands and intervals when
	// PredictOptions.Level is zero: the paper's figure.
	DefaultLevel = 0.98

	// ReachMin and RangeExcessMax are the thresholds of the distance rule
	// of Extrapolation. For a kernel with a width (RBF, Laplacian, Matérn)
	// a point is far when max_i k(x, x_i) < ReachMin: for the RBF every
	// training point is then more than sqrt(2w·ln 20) ≈ 2.45·sqrt(w) away,
	// and the prediction has decayed most of the way to the intercept. For
	// the others, whose predictions grow without bound beyond the data, it
	// is far when some feature lies beyond its training range by more than
	// RangeExcessMax of that range.
	ReachMin       = 0.05
	RangeExcessMax = 0.1
	// LeverageLimit is the leverage no training row can exceed: a point
	// above it lies farther along the model's score directions than the
	// training data reach (Extrapolation.Leverage).
	LeverageLimit = 1.0
)
