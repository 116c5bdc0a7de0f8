package kpls

import (
	"context"
	"fmt"
	"math"

	"github.com/kpls-go/kpls/internal/kernelop"

	"github.com/kpls-go/kpls/internal/gram"
)

// Precomputed takes the kernel matrix itself, as scikit-learn's
// kernel="precomputed": Fit's x is the symmetric n×n matrix
// K(train, train) and the x of Predict and PredictBands the m×n matrix
// K(new, train). Its "features" are never standardised.
type Precomputed struct{}

func (Precomputed) Name() string                 { return "precomputed" }
func (k Precomputed) spec() (kernelSpec, error)  { return kernelSpec{Name: k.Name()}, nil }
func (k Precomputed) fromSpec(kernelSpec) Kernel { return k }
func (Precomputed) featureDim(int) int           { return 0 }
func (k Precomputed) label() string              { return k.Name() }
func (Precomputed) inputs() inputKind            { return inputGram }

func (k Precomputed) resolve(n, d int) (Kernel, error) {
	if d != n {
		return nil, fmt.Errorf("%w: a precomputed kernel matrix is square: x has %d rows and %d columns", ErrShape, n, d)
	}
	return k, nil
}

// matrix copies the given matrix, which must be symmetric to rounding:
// the fit reads one triangle.
func (Precomputed) matrix(_ context.Context, dst []float64, ld int, x []float64, n, _ int) error {
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
	for i := range n {
		copy(dst[i*ld:i*ld+n], x[i*n:i*n+n])
	}
	return nil
}

// cross: the new points' "features" are their kernel rows already.
func (Precomputed) cross(c, z []float64, m int, x *gram.Points) { copy(c[:m*x.N], z[:m*x.N]) }

func (Precomputed) rows(x []float64, n, _ int) kernelop.Blocks { return precomputedRows{g: x, n: n} }

// precomputedRows reads blocks of a precomputed Gram matrix.
type precomputedRows struct {
	g []float64
	n int
}

func (p precomputedRows) N() int { return p.n }

func (p precomputedRows) Rows(dst []float64, r0, r1 int) { copy(dst, p.g[r0*p.n:r1*p.n]) }

func (p precomputedRows) Block(dst []float64, r0, r1, c0, c1 int) {
	w := c1 - c0
	for i := r0; i < r1; i++ {
		copy(dst[(i-r0)*w:(i-r0+1)*w], p.g[i*p.n+c0:i*p.n+c1])
	}
}
