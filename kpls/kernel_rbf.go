package kpls

import (
	"context"
	"math"

	"github.com/kpls-go/kpls/internal/gram"
	"github.com/kpls-go/kpls/internal/kernelop"
)

// RBF is the Gaussian kernel exp(−‖x − z‖²/(2·Width)). Width plays the
// role of a variance (scikit-learn's gamma is 1/(2·Width)); zero means
// d/2, scikit-learn's default gamma = 1/d on standardised data.
type RBF struct{ Width float64 }

func (RBF) Name() string                       { return "rbf" }
func (k RBF) Eval(x, z []float64) float64      { return math.Exp(-sqDist(x, z) / (2 * k.Width)) }
func (k RBF) width() float64                   { return k.Width }
func (k RBF) withWidth(w float64) Kernel       { k.Width = w; return k }
func (RBF) defaultWidth(d int) float64         { return float64(d) / 2 }
func (k RBF) resolve(n, d int) (Kernel, error) { return k, nil }
func (k RBF) spec() (kernelSpec, error)        { return widthSpec(k), nil }
func (k RBF) fromSpec(s kernelSpec) Kernel     { return k.withWidth(s.Width) }
func (RBF) featureDim(int) int                 { return 0 }
func (k RBF) label() string                    { return widthLabel(k) }
func (RBF) inputs() inputKind                  { return inputFeatures }

func (k RBF) matrix(ctx context.Context, dst []float64, ld int, x []float64, n, d int) error {
	return gram.RBF(ctx, dst, ld, x, n, d, k.Width)
}

func (k RBF) cross(c, z []float64, m int, x *gram.Points) { x.RBFCross(c, z, m, k.Width) }

func (k RBF) rows(x []float64, n, d int) kernelop.Blocks { return gram.NewRBFRows(x, n, d, k.Width) }
