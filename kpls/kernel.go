package kpls

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/kpls-go/kpls/internal/kernelop"

	"github.com/kpls-go/kpls/internal/gram"
)

// Kernel is a positive semi-definite kernel k(x, z) between feature
// vectors (standardised unless Options.RawFeatures). The built-in kernels
// are RBF, Linear, Polynomial, Laplacian and Matern, computed on
// vectorised paths; Func wraps any Go function, and Precomputed takes the
// kernel matrix itself. The DoF, the bands and Select work the same for
// all of them. A nil Options.Kernel means RBF{}.
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
type evaluator interface {
	Kernel
	Eval(x, z []float64) float64
}

// behaviour is everything the fit, the predictions and the model files
// need of a kernel. Each built-in kernel implements it in its own file
// (kernel_*.go), so that a new kernel is one file and its test; a user's
// Evaluator gets the generic one (evaluatorKernel).
type behaviour interface {
	Kernel
	// resolve returns the kernel with its defaults for n×d data filled in
	// (widths excepted: resolveKernel fills those) and its parameters
	// checked.
	resolve(n, d int) (Kernel, error)
	// matrix fills dst (n×n, rows ld apart) with the uncentred kernel
	// matrix of the rows of x (n×d).
	matrix(ctx context.Context, dst []float64, ld int, x []float64, n, d int) error
	// cross fills c (m×n) with k(z_i, x_j).
	cross(c, z []float64, m int, x *gram.Points)
	// rows gives the kernel's rows and blocks over x, for the storage
	// kinds that compute K tile by tile.
	rows(x []float64, n, d int) kernelop.Blocks
	// spec is how the kernel is written in model files; an error for a
	// kernel that is code.
	spec() (kernelSpec, error)
	// fromSpec returns the kernel with the parameters of a model file's
	// spec (whose name is the kernel's).
	fromSpec(s kernelSpec) Kernel
	// featureDim is the dimension of the kernel's centred feature space
	// on d features, which bounds the components and the DoF; 0 means
	// unbounded.
	featureDim(d int) int
	// label names the kernel with its parameters, for messages and tables.
	label() string
	// inputs says how the kernel takes Fit's x: as features, or as the
	// kernel matrix itself (never standardised).
	inputs() inputKind
}

// inputKind is what a kernel takes as Fit's x.
type inputKind int

const (
	inputFeatures inputKind = iota // rows of features, standardised by default
	inputLinear                    // features, with K = XXᵀ: features storage and primal predictions
	inputGram                      // the kernel matrix itself
)

// widthKernel is a kernel with a width (RBF, Laplacian, Matern): Select
// searches over it, and a zero width means a default that depends on d.
type widthKernel interface {
	behaviour
	width() float64
	withWidth(w float64) Kernel
	defaultWidth(d int) float64
}

// behaviourOf returns k's behaviour: its own for the built-in kernels,
// the generic one for a user's Evaluator, and nil for a kernel that has
// neither.
func behaviourOf(k Kernel) behaviour {
	switch b := k.(type) {
	case behaviour:
		return b
	case evaluator:
		return evaluatorKernel{b}
	}
	return nil
}

// mustBehave is behaviourOf for a resolved kernel, which has one.
func mustBehave(k Kernel) behaviour {
	b := behaviourOf(k)
	if b == nil {
		panic(fmt.Sprintf("kpls: unresolved kernel %T", k))
	}
	return b
}

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
var kernelNames = []string{"rbf", "linear", "polynomial", "laplacian", "matern32", "matern52", "precomputed"}

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
	return nil, fmt.Errorf("%w: %q (want one of %s)", ErrKernel, name, strings.Join(kernelNames, ", "))
}

// WidthOf returns the width of a kernel that has one (RBF, Laplacian,
// Matern), and false for the others.
func WidthOf(k Kernel) (float64, bool) {
	if wk, ok := k.(widthKernel); ok {
		return wk.width(), true
	}
	return 0, false
}

// WithWidth returns k with its width set to w; kernels without a width are
// returned unchanged.
func WithWidth(k Kernel, w float64) Kernel {
	if wk, ok := k.(widthKernel); ok {
		return wk.withWidth(w)
	}
	return k
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
	b := behaviourOf(k)
	if b == nil {
		return nil, fmt.Errorf("%w: %T (%q) has no Eval method; wrap the function in kpls.Func", ErrKernel, k, k.Name())
	}
	if wk, ok := b.(widthKernel); ok {
		w := wk.width()
		if w < 0 || isNaNOrInf(w) {
			return nil, fmt.Errorf("%w: %s width %g", ErrWidth, k.Name(), w)
		}
		if w == 0 {
			b = mustBehave(wk.withWidth(wk.defaultWidth(d)))
		}
	}
	return b.resolve(n, d)
}

// featureDim is the dimension of a resolved kernel's centred feature
// space on d features; 0 means unbounded.
func featureDim(k Kernel, d int) int { return mustBehave(k).featureDim(d) }

// kernelLabel names a resolved kernel with its parameters, for messages
// and tables.
func kernelLabel(k Kernel) string { return mustBehave(k).label() }

// kernelMatrix fills dst (n×n) with the uncentred kernel matrix of the
// rows of x (n×d).
func kernelMatrix(ctx context.Context, dst []float64, k Kernel, x []float64, n, d int) error {
	return mustBehave(k).matrix(ctx, dst, n, x, n, d)
}

// crossKernel fills c (m×n) with k(z_i, x_j).
func crossKernel(c []float64, k Kernel, z []float64, m int, x *gram.Points) {
	mustBehave(k).cross(c, z, m, x)
}

// kernelSpec is how a kernel is written in model files and JSON results.
type kernelSpec struct {
	Name   string   `json:"name"`
	Width  float64  `json:"width,omitempty"`
	Degree int      `json:"degree,omitempty"`
	Offset *float64 `json:"offset,omitempty"`
}

func specOf(k Kernel) (kernelSpec, error) {
	b := behaviourOf(k)
	if b == nil {
		return kernelSpec{Name: k.Name()}, fmt.Errorf("%w: %T cannot be written to a file", ErrKernel, k)
	}
	return b.spec()
}

// kernel decodes a model file's kernel.
func (s kernelSpec) kernel() (Kernel, error) {
	k, err := ParseKernel(s.Name)
	if err != nil {
		return nil, err
	}
	return mustBehave(k).fromSpec(s), nil
}

// KernelJSON is a kernel as JSON: {"name": "rbf", "width": 4}, with
// degree and offset for the polynomial kernel.
func kernelJSON(k Kernel) (json.RawMessage, error) {
	s, err := specOf(k)
	if err != nil {
		return nil, err
	}
	return json.Marshal(s)
}

// MaxComponents is the largest number of components n×d data allow with
// o.Kernel: n−1, and for kernels with a finite feature space (linear,
// polynomial) also its dimension.
func (o Options) MaxComponents(n, d int) int { return maxComponents(o.Kernel, n, d) }

func maxComponents(k Kernel, n, d int) int {
	b := behaviourOf(k)
	if b == nil {
		return n - 1
	}
	if f := b.featureDim(d); f > 0 {
		return min(n-1, f)
	}
	return n - 1
}

// widthSpec is the spec of a kernel whose only parameter is its width.
func widthSpec(k widthKernel) kernelSpec { return kernelSpec{Name: k.Name(), Width: k.width()} }

// widthLabel names a kernel by its width.
func widthLabel(k widthKernel) string { return fmt.Sprintf("%s width %g", k.Name(), k.width()) }
