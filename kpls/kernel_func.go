package kpls

import (
	"context"
	"fmt"

	"github.com/kpls-go/kpls/internal/gram"
	"github.com/kpls-go/kpls/internal/kernelop"
)

// Func is a user kernel given as a Go function, which must be symmetric,
// positive semi-definite and safe for concurrent calls. Label names it
// (Name). A model with a Func kernel cannot be saved to a file: the
// function is code, not data.
type Func struct {
	Label string
	K     func(x, z []float64) float64
}

func (k Func) Name() string {
	if k.Label == "" {
		return "func"
	}
	return k.Label
}

func (k Func) Eval(x, z []float64) float64 { return k.K(x, z) }

func (k Func) resolve(n, d int) (Kernel, error) {
	if k.K == nil {
		return nil, fmt.Errorf("%w: Func %q has no function", ErrKernel, k.Label)
	}
	return k, nil
}

func (k Func) spec() (kernelSpec, error)                  { return evaluatorKernel{k}.spec() }
func (k Func) fromSpec(kernelSpec) Kernel                 { return k }
func (Func) featureDim(int) int                           { return 0 }
func (k Func) label() string                              { return k.Name() }
func (Func) inputs() inputKind                            { return inputFeatures }
func (k Func) rows(x []float64, n, d int) kernelop.Blocks { return crossRows{k: k, x: x, n: n, d: d} }

func (k Func) matrix(ctx context.Context, dst []float64, ld int, x []float64, n, d int) error {
	return gram.Func(ctx, dst, ld, x, n, d, k.Eval)
}

func (k Func) cross(c, z []float64, m int, x *gram.Points) {
	gram.FuncCross(c, z, m, x.X, x.N, x.D, k.Eval)
}

// evaluatorKernel is the behaviour of a user's type that has an Eval
// method: every entry through it, as Func.
type evaluatorKernel struct{ evaluator }

func (k evaluatorKernel) resolve(n, d int) (Kernel, error) { return k.evaluator, nil }
func (k evaluatorKernel) fromSpec(kernelSpec) Kernel       { return k.evaluator }
func (evaluatorKernel) featureDim(int) int                 { return 0 }
func (k evaluatorKernel) label() string                    { return k.Name() }
func (evaluatorKernel) inputs() inputKind                  { return inputFeatures }

func (k evaluatorKernel) spec() (kernelSpec, error) {
	return kernelSpec{Name: k.Name()}, fmt.Errorf("%w: a %s kernel is code and cannot be written to a file", ErrKernel, k.Name())
}

func (k evaluatorKernel) rows(x []float64, n, d int) kernelop.Blocks {
	return crossRows{k: k.evaluator, x: x, n: n, d: d}
}

func (k evaluatorKernel) matrix(ctx context.Context, dst []float64, ld int, x []float64, n, d int) error {
	return gram.Func(ctx, dst, ld, x, n, d, k.Eval)
}

func (k evaluatorKernel) cross(c, z []float64, m int, x *gram.Points) {
	gram.FuncCross(c, z, m, x.X, x.N, x.D, k.Eval)
}
