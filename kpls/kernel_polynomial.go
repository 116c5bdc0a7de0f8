package kpls

import (
	"context"
	"fmt"
	"math"

	"github.com/kpls-go/kpls/internal/gram"
	"github.com/kpls-go/kpls/internal/kernelop"
)

// Polynomial is (xᵀz/d + Offset)^Degree, scikit-learn's polynomial kernel
// with its default gamma = 1/d. Zero Degree means 3 (scikit-learn's
// default); Offset (scikit-learn's coef0) is used as given, so the zero
// value is the homogeneous cubic. The command's default is Offset 1.
type Polynomial struct {
	Degree int
	Offset float64
}

func (Polynomial) Name() string { return "polynomial" }

func (k Polynomial) Eval(x, z []float64) float64 {
	deg := k.Degree
	if deg == 0 {
		deg = 3
	}
	return math.Pow(dot(x, z)/float64(len(x))+k.Offset, float64(deg))
}

func (k Polynomial) resolve(n, d int) (Kernel, error) {
	if k.Degree == 0 {
		k.Degree = 3
	}
	if k.Degree < 1 || k.Degree > maxPolynomialDegree {
		return nil, fmt.Errorf("%w: polynomial degree %d (want 1..%d)", ErrKernel, k.Degree, maxPolynomialDegree)
	}
	if k.Offset < 0 || isNaNOrInf(k.Offset) {
		// A negative offset makes the kernel indefinite.
		return nil, fmt.Errorf("%w: polynomial offset %g (want ≥ 0)", ErrKernel, k.Offset)
	}
	return k, nil
}

func (k Polynomial) spec() (kernelSpec, error) {
	return kernelSpec{Name: k.Name(), Degree: k.Degree, Offset: &k.Offset}, nil
}

func (k Polynomial) fromSpec(s kernelSpec) Kernel {
	k.Degree = s.Degree
	if s.Offset != nil {
		k.Offset = *s.Offset
	}
	return k
}

// featureDim counts the monomials of degree ≤ p in d variables, C(d+p, p),
// without the constant that centring removes.
func (k Polynomial) featureDim(d int) int {
	c := 1.0
	for i := 1; i <= k.Degree; i++ {
		c = c * float64(d+i) / float64(i)
	}
	if c-1 < 1<<30 {
		return int(c) - 1
	}
	return 0
}

func (k Polynomial) label() string {
	return fmt.Sprintf("polynomial degree %d offset %g", k.Degree, k.Offset)
}

func (Polynomial) inputs() inputKind { return inputFeatures }

func (k Polynomial) matrix(ctx context.Context, dst []float64, ld int, x []float64, n, d int) error {
	return gram.Polynomial(ctx, dst, ld, x, n, d, k.Degree, 1/float64(d), k.Offset)
}

func (k Polynomial) cross(c, z []float64, m int, x *gram.Points) {
	gram.PolynomialCross(c, z, m, x.X, x.N, x.D, k.Degree, 1/float64(x.D), k.Offset)
}

func (k Polynomial) rows(x []float64, n, d int) kernelop.Blocks {
	return crossRows{k: k, x: x, n: n, d: d}
}
