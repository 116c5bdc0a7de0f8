package kpls

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/kpls-go/kpls/internal/gram"
)

// Kernel is a positive semi-definite kernel k(x, z) between feature
// vectors (standardised unless Options.RawFeatures). The built-in kernels
// are RBF, Linear, Polynomial, Laplacian and Matern, computed on
// vectorised paths; Func wraps any Go function, and Precomputed takes the
// kernel matrix itself. The DoF, the bands and Select work the same for
// all of them. A nil Kernel in Options means RBF{}.
//
// Parameters left zero take defaults that depend on the number of
// features d (Model.Options reports the values used).
type Kernel interface {
	// Name is the kernel's name in results, model files and the command:
	// rbf, linear, polynomial, laplacian, matern32, matern52, precomputed,
	// or a Func's label.
	Name() string
}

// Evaluator is a kernel that evaluates itself at two feature vectors of
// equal length, with its parameters as given (zero widths are not
// replaced by defaults here). Every kernel but Precomputed is one.
type Evaluator interface {
	Kernel
	Eval(x, z []float64) float64
}

// RBF is the Gaussian kernel exp(−‖x − z‖²/(2·Width)). Width plays the
// role of a variance (scikit-learn's gamma is 1/(2·Width)); zero means
// d/2, scikit-learn's default gamma = 1/d on standardised data.
type RBF struct{ Width float64 }

// Linear is xᵀz.
type Linear struct{}

// Polynomial is (xᵀz/d + Offset)^Degree, scikit-learn's polynomial kernel
// with its default gamma = 1/d. Zero Degree means 3 (scikit-learn's
// default); Offset (scikit-learn's coef0) is used as given, so the zero
// value is the homogeneous cubic. The command's default is Offset 1.
type Polynomial struct {
	Degree int
	Offset float64
}

// Laplacian is exp(−‖x − z‖/Width) with the Euclidean distance (as R's
// kernlab; scikit-learn's laplacian_kernel uses the L1 distance). Zero
// Width means √d, the order of the distance between standardised points.
type Laplacian struct{ Width float64 }

// Matern is the Matérn kernel of smoothness Nu, 3/2 or 5/2, and length
// scale Width: (1 + √3r/ℓ)e^{−√3r/ℓ} and (1 + √5r/ℓ + 5r²/(3ℓ²))e^{−√5r/ℓ}
// with r = ‖x − z‖. Zero Nu means 5/2; zero Width means √d.
type Matern struct {
	Nu    float64
	Width float64
}

// Func is a user kernel given as a Go function, which must be symmetric,
// positive semi-definite and safe for concurrent calls. Label names it
// (Name). A model with a Func kernel cannot be saved to a file: the
// function is code, not data.
type Func struct {
	Label string
	K     func(x, z []float64) float64
}

// Precomputed takes the kernel matrix itself, as scikit-learn's
// kernel="precomputed": Fit's x is the symmetric n×n matrix
// K(train, train) and the x of Predict and PredictBands the m×n matrix
// K(new, train). Its "features" are never standardised.
type Precomputed struct{}

func (RBF) Name() string         { return "rbf" }
func (Linear) Name() string      { return "linear" }
func (Polynomial) Name() string  { return "polynomial" }
func (Laplacian) Name() string   { return "laplacian" }
func (Precomputed) Name() string { return "precomputed" }
func (k Matern) Name() string {
	if k.Nu == 1.5 {
		return "matern32"
	}
	return "matern52"
}
func (k Func) Name() string {
	if k.Label == "" {
		return "func"
	}
	return k.Label
}

func (k RBF) Eval(x, z []float64) float64  { return math.Exp(-sqDist(x, z) / (2 * k.Width)) }
func (Linear) Eval(x, z []float64) float64 { return dot(x, z) }
func (k Polynomial) Eval(x, z []float64) float64 {
	deg := k.Degree
	if deg == 0 {
		deg = 3
	}
	return math.Pow(dot(x, z)/float64(len(x))+k.Offset, float64(deg))
}
func (k Laplacian) Eval(x, z []float64) float64 { return math.Exp(-math.Sqrt(sqDist(x, z)) / k.Width) }
func (k Matern) Eval(x, z []float64) float64 {
	r := math.Sqrt(sqDist(x, z))
	if k.Nu == 1.5 {
		a := math.Sqrt(3) * r / k.Width
		return (1 + a) * math.Exp(-a)
	}
	a := math.Sqrt(5) * r / k.Width
	return (1 + a + a*a/3) * math.Exp(-a)
}
func (k Func) Eval(x, z []float64) float64 { return k.K(x, z) }

func sqDist(x, z []float64) float64 {
	var s float64
	for i, v := range x {
		t := v - z[i]
		s += t * t
	}
	return s
}

func dot(x, z []float64) float64 {
	var s float64
	for i, v := range x {
		s += v * z[i]
	}
	return s
}

// KernelNames lists the built-in kernels by the names ParseKernel takes.
var KernelNames = []string{"rbf", "linear", "polynomial", "laplacian", "matern32", "matern52", "precomputed"}

// ParseKernel returns the built-in kernel of the given name (any case)
// with default parameters, for command lines and configuration: the
// polynomial kernel gets Offset 1.
func ParseKernel(name string) (Kernel, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "rbf":
		return RBF{}, nil
	case "linear":
		return Linear{}, nil
	case "polynomial":
		return Polynomial{Degree: 3, Offset: 1}, nil
	case "laplacian":
		return Laplacian{}, nil
	case "matern32":
		return Matern{Nu: 1.5}, nil
	case "matern52":
		return Matern{Nu: 2.5}, nil
	case "precomputed":
		return Precomputed{}, nil
	}
	return nil, fmt.Errorf("%w: %q (want one of %s)", ErrKernel, name, strings.Join(KernelNames, ", "))
}

// WidthOf returns the width of a kernel that has one (RBF, Laplacian,
// Matern), and false for the others.
func WidthOf(k Kernel) (float64, bool) {
	switch k := k.(type) {
	case RBF:
		return k.Width, true
	case Laplacian:
		return k.Width, true
	case Matern:
		return k.Width, true
	}
	return 0, false
}

// WithWidth returns k with its width set to w; kernels without a width are
// returned unchanged.
func WithWidth(k Kernel, w float64) Kernel {
	switch k := k.(type) {
	case RBF:
		k.Width = w
		return k
	case Laplacian:
		k.Width = w
		return k
	case Matern:
		k.Width = w
		return k
	}
	return k
}

// defaultWidth is the width a zero width means on d features.
func defaultWidth(k Kernel, d int) float64 {
	if _, ok := k.(RBF); ok {
		return float64(d) / 2
	}
	return math.Sqrt(float64(d))
}

// maxPolynomialDegree bounds Polynomial.Degree: past it the values of an
// unnormalised kernel overflow for ordinary data long before anything is
// learnt.
const maxPolynomialDegree = 20

// resolveKernel fills in a kernel's defaults for n×d data and checks its
// parameters.
func resolveKernel(k Kernel, n, d int) (Kernel, error) {
	if k == nil {
		k = RBF{}
	}
	if w, ok := WidthOf(k); ok {
		if w < 0 || isNaNOrInf(w) {
			return nil, fmt.Errorf("%w: %s width %g", ErrWidth, k.Name(), w)
		}
		if w == 0 {
			k = WithWidth(k, defaultWidth(k, d))
		}
	}
	switch kk := k.(type) {
	case RBF, Linear, Laplacian:
	case Polynomial:
		if kk.Degree == 0 {
			kk.Degree = 3
		}
		if kk.Degree < 1 || kk.Degree > maxPolynomialDegree {
			return nil, fmt.Errorf("%w: polynomial degree %d (want 1..%d)", ErrKernel, kk.Degree, maxPolynomialDegree)
		}
		if kk.Offset < 0 || isNaNOrInf(kk.Offset) {
			// A negative offset makes the kernel indefinite.
			return nil, fmt.Errorf("%w: polynomial offset %g (want ≥ 0)", ErrKernel, kk.Offset)
		}
		k = kk
	case Matern:
		if kk.Nu == 0 {
			kk.Nu = 2.5
		}
		if kk.Nu != 1.5 && kk.Nu != 2.5 {
			return nil, fmt.Errorf("%w: Matérn ν = %g (want 1.5 or 2.5)", ErrKernel, kk.Nu)
		}
		k = kk
	case Func:
		if kk.K == nil {
			return nil, fmt.Errorf("%w: Func %q has no function", ErrKernel, kk.Label)
		}
	case Precomputed:
		if d != n {
			return nil, fmt.Errorf("%w: a precomputed kernel matrix is square: x has %d rows and %d columns", ErrShape, n, d)
		}
	default:
		if _, ok := k.(Evaluator); !ok {
			return nil, fmt.Errorf("%w: %T (%q) has no Eval method; wrap the function in kpls.Func", ErrKernel, k, k.Name())
		}
	}
	return k, nil
}

// featureDim is the dimension of the kernel's centred feature space on d
// features, which bounds the components and the DoF; 0 means unbounded.
func featureDim(k Kernel, d int) int {
	switch k := k.(type) {
	case Linear:
		return d
	case Polynomial:
		// The monomials of degree ≤ p in d variables, C(d+p, p), without
		// the constant that centring removes.
		c := 1.0
		for i := 1; i <= k.Degree; i++ {
			c = c * float64(d+i) / float64(i)
		}
		if c-1 < 1<<30 {
			return int(c) - 1
		}
	}
	return 0
}

// kernelLabel names a resolved kernel with its parameters, for messages
// and tables.
func kernelLabel(k Kernel) string {
	switch k := k.(type) {
	case RBF, Laplacian, Matern:
		w, _ := WidthOf(k)
		return fmt.Sprintf("%s width %g", k.Name(), w)
	case Polynomial:
		return fmt.Sprintf("polynomial degree %d offset %g", k.Degree, k.Offset)
	}
	return k.Name()
}

// kernelMatrix fills dst (n×n) with the uncentred kernel matrix of the
// rows of x (n×d).
func kernelMatrix(ctx context.Context, dst []float64, k Kernel, x []float64, n, d int) error {
	switch k := k.(type) {
	case RBF:
		return gram.RBF(ctx, dst, x, n, d, k.Width)
	case Linear:
		return gram.Linear(ctx, dst, x, n, d)
	case Polynomial:
		return gram.Polynomial(ctx, dst, x, n, d, k.Degree, 1/float64(d), k.Offset)
	case Laplacian, Matern:
		return gram.Stationary(ctx, dst, x, n, d, profile(k))
	case Precomputed:
		return copyGram(dst, x, n)
	case Evaluator:
		return gram.Func(ctx, dst, x, n, d, k.Eval)
	}
	return fmt.Errorf("%w: %T", ErrKernel, k)
}

// crossKernel fills c (m×n) with k(z_i, x_j).
func crossKernel(c []float64, k Kernel, z []float64, m int, x []float64, n, d int) {
	switch k := k.(type) {
	case RBF:
		gram.RBFCross(c, z, m, x, n, d, k.Width)
	case Linear:
		gram.LinearCross(c, z, m, x, n, d)
	case Polynomial:
		gram.PolynomialCross(c, z, m, x, n, d, k.Degree, 1/float64(d), k.Offset)
	case Laplacian, Matern:
		gram.StationaryCross(c, z, m, x, n, d, profile(k))
	case Precomputed:
		copy(c[:m*n], z[:m*n])
	case Evaluator:
		gram.FuncCross(c, z, m, x, n, d, k.Eval)
	}
}

// profile is the squared-distance profile of a resolved stationary kernel.
func profile(k Kernel) gram.Profile {
	switch k := k.(type) {
	case RBF:
		return gram.RBFProfile(k.Width)
	case Laplacian:
		return gram.LaplacianProfile(k.Width)
	case Matern:
		if k.Nu == 1.5 {
			return gram.Matern32Profile(k.Width)
		}
		return gram.Matern52Profile(k.Width)
	}
	return nil
}

// copyGram copies a precomputed kernel matrix, which must be symmetric to
// rounding: the fit reads one triangle.
func copyGram(dst, x []float64, n int) error {
	var scale float64
	for _, v := range x[:n*n] {
		scale = math.Max(scale, math.Abs(v))
	}
	for i := range n {
		for j := i + 1; j < n; j++ {
			if a, b := x[i*n+j], x[j*n+i]; math.Abs(a-b) > 1e-10*scale {
				return fmt.Errorf("%w: the precomputed kernel matrix is not symmetric: row %d, column %d is %g, row %d, column %d is %g",
					ErrKernel, i+1, j+1, a, j+1, i+1, b)
			}
		}
	}
	copy(dst[:n*n], x[:n*n])
	return nil
}

// kernelSpec is how a kernel is written in model files and JSON results.
type kernelSpec struct {
	Name   string   `json:"name"`
	Width  float64  `json:"width,omitempty"`
	Degree int      `json:"degree,omitempty"`
	Offset *float64 `json:"offset,omitempty"`
}

func specOf(k Kernel) (kernelSpec, error) {
	s := kernelSpec{Name: k.Name()}
	switch k := k.(type) {
	case RBF, Laplacian, Matern:
		s.Width, _ = WidthOf(k)
	case Polynomial:
		s.Degree, s.Offset = k.Degree, &k.Offset
	case Linear, Precomputed:
	default:
		return s, fmt.Errorf("%w: a %s kernel is code and cannot be written to a file", ErrKernel, k.Name())
	}
	return s, nil
}

func (s kernelSpec) kernel() (Kernel, error) {
	k, err := ParseKernel(s.Name)
	if err != nil {
		return nil, err
	}
	switch k := k.(type) {
	case Polynomial:
		k.Degree = s.Degree
		if s.Offset != nil {
			k.Offset = *s.Offset
		}
		return k, nil
	}
	return WithWidth(k, s.Width), nil
}

// KernelJSON is a kernel as JSON: {"name": "rbf", "width": 4}, with
// degree and offset for the polynomial kernel.
func KernelJSON(k Kernel) (json.RawMessage, error) {
	s, err := specOf(k)
	if err != nil {
		return nil, err
	}
	return json.Marshal(s)
}

// MaxComponents is the largest number of components n×d data allow with
// kernel k: n−1, and for kernels with a finite feature space (linear,
// polynomial) also its dimension.
func MaxComponents(k Kernel, n, d int) int {
	if f := featureDim(k, d); f > 0 {
		return min(n-1, f)
	}
	return n - 1
}
