package kpls

import (
	"context"

	"github.com/kpls-go/kpls/internal/gram"
	"github.com/kpls-go/kpls/internal/kernelop"
)

// Linear is xᵀz.
type Linear struct{}

func (Linear) Name() string                       { return "linear" }
func (Linear) Eval(x, z []float64) float64        { return dot(x, z) }
func (k Linear) resolve(n, d int) (Kernel, error) { return k, nil }
func (k Linear) spec() (kernelSpec, error)        { return kernelSpec{Name: k.Name()}, nil }
func (k Linear) fromSpec(kernelSpec) Kernel       { return k }
func (k Linear) label() string                    { return k.Name() }

// featureDim: the centred inputs span at most d dimensions.
func (Linear) featureDim(d int) int { return d }

// inputs: K = XXᵀ, which features storage holds as X and predictions
// apply in the primal.
func (Linear) inputs() inputKind { return inputLinear }

func (Linear) matrix(ctx context.Context, dst []float64, ld int, x []float64, n, d int) error {
	return gram.Linear(ctx, dst, ld, x, n, d)
}

func (Linear) cross(c, z []float64, m int, x *gram.Points) {
	gram.LinearCross(c, z, m, x.X, x.N, x.D)
}

func (Linear) rows(x []float64, n, d int) kernelop.Blocks { return gram.NewLinearRows(x, n, d) }
