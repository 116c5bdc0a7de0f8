package kpls

import (
	"context"
	"fmt"
	"math"

	"github.com/kpls-go/kpls/internal/gram"
	"github.com/kpls-go/kpls/internal/kernelop"
)

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

func (Laplacian) Name() string { return "laplacian" }

func (k Laplacian) Eval(x, z []float64) float64 {
	return math.Exp(-math.Sqrt(sqDist(x, z)) / k.Width)
}

func (k Laplacian) width() float64                   { return k.Width }
func (k Laplacian) withWidth(w float64) Kernel       { k.Width = w; return k }
func (Laplacian) defaultWidth(d int) float64         { return math.Sqrt(float64(d)) }
func (k Laplacian) resolve(n, d int) (Kernel, error) { return k, nil }
func (k Laplacian) spec() (kernelSpec, error)        { return widthSpec(k), nil }
func (k Laplacian) fromSpec(s kernelSpec) Kernel     { return k.withWidth(s.Width) }
func (Laplacian) featureDim(int) int                 { return 0 }
func (k Laplacian) label() string                    { return widthLabel(k) }
func (Laplacian) inputs() inputKind                  { return inputFeatures }
func (k Laplacian) profile() gram.Profile            { return gram.LaplacianProfile(k.Width) }

func (k Laplacian) matrix(ctx context.Context, dst []float64, ld int, x []float64, n, d int) error {
	return gram.Stationary(ctx, dst, ld, x, n, d, k.profile())
}

func (k Laplacian) cross(c, z []float64, m int, x *gram.Points) {
	x.StationaryCross(c, z, m, k.profile())
}

func (k Laplacian) rows(x []float64, n, d int) kernelop.Blocks {
	return gram.NewStationaryRows(x, n, d, k.profile())
}

func (k Matern) Name() string {
	if k.Nu == 1.5 {
		return "matern32"
	}
	return "matern52"
}

func (k Matern) Eval(x, z []float64) float64 {
	r := math.Sqrt(sqDist(x, z))
	if k.Nu == 1.5 {
		a := math.Sqrt(3) * r / k.Width
		return (1 + a) * math.Exp(-a)
	}
	a := math.Sqrt(5) * r / k.Width
	return (1 + a + a*a/3) * math.Exp(-a)
}

func (k Matern) width() float64               { return k.Width }
func (k Matern) withWidth(w float64) Kernel   { k.Width = w; return k }
func (Matern) defaultWidth(d int) float64     { return math.Sqrt(float64(d)) }
func (k Matern) spec() (kernelSpec, error)    { return widthSpec(k), nil }
func (k Matern) fromSpec(s kernelSpec) Kernel { return k.withWidth(s.Width) }
func (Matern) featureDim(int) int             { return 0 }
func (k Matern) label() string                { return widthLabel(k) }
func (Matern) inputs() inputKind              { return inputFeatures }

func (k Matern) resolve(n, d int) (Kernel, error) {
	if k.Nu == 0 {
		k.Nu = 2.5
	}
	if k.Nu != 1.5 && k.Nu != 2.5 {
		return nil, fmt.Errorf("%w: Matérn ν = %g (want 1.5 or 2.5)", ErrKernel, k.Nu)
	}
	return k, nil
}

func (k Matern) profile() gram.Profile {
	if k.Nu == 1.5 {
		return gram.Matern32Profile(k.Width)
	}
	return gram.Matern52Profile(k.Width)
}

func (k Matern) matrix(ctx context.Context, dst []float64, ld int, x []float64, n, d int) error {
	return gram.Stationary(ctx, dst, ld, x, n, d, k.profile())
}

func (k Matern) cross(c, z []float64, m int, x *gram.Points) {
	x.StationaryCross(c, z, m, k.profile())
}

func (k Matern) rows(x []float64, n, d int) kernelop.Blocks {
	return gram.NewStationaryRows(x, n, d, k.profile())
}
