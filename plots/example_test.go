package plots_test

import (
	"context"
	"log"
	"math"
	"os"
	"path/filepath"

	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/kpls"
	"github.com/kpls-go/kpls/plots"
)

// figure3Like returns 40 points shaped like the paper's Figure 3 sample:
// two clusters around −2 and 3, y = (x−1)(x+2)(x−1.5)·exp(−x²/10) plus a
// deterministic wiggle. (internal/sim draws the paper's own sample.)
func figure3Like() (x, y []float64) {
	for i := range 40 {
		v := -2 + 1.5*math.Sin(float64(i))
		if i%2 == 1 {
			v += 5
		}
		x = append(x, v)
		y = append(y, (v-1)*(v+2)*(v-1.5)*math.Exp(-v*v/10)+math.Cos(7*float64(i)))
	}
	return x, y
}

// Degrees of freedom against m for two widths, exact and Lanczos.
func ExampleDoFVersusM() {
	ctx := context.Background()
	x, y := figure3Like()
	var panels []plots.DoFPanel
	for _, w := range []float64{0.1, 1} {
		panel := plots.DoFPanel{Width: w}
		for _, method := range []kpls.DoFMethod{kpls.DoFExact, kpls.DoFLanczos} {
			m, err := kpls.Fit(ctx, kpls.Data{X: mat.NewDense(len(x), 1, append([]float64(nil), x...)), Y: mat.NewVecDense(len(y), y)}, kpls.Options{Kernel: kpls.RBF{Width: w}, Components: 10, DoF: method, RawFeatures: true}, nil)
			if err != nil {
				log.Fatal(err)
			}
			panel.Series = append(panel.Series, plots.Series{Label: string(method), Stats: m.Stats()})
		}
		panels = append(panels, panel)
	}
	if err := plots.DoFVersusM(filepath.Join(os.TempDir(), "dof.svg"), panels); err != nil {
		log.Fatal(err)
	}
}

// A fit with its 98 % confidence band, as in the paper's Figure 3.
func ExampleBand1D() {
	ctx := context.Background()
	x, y := figure3Like()
	m, err := kpls.Fit(ctx, kpls.Data{X: mat.NewDense(len(x), 1, append([]float64(nil), x...)), Y: mat.NewVecDense(len(y), y)}, kpls.Options{Kernel: kpls.RBF{Width: 1}, Components: 9, RawFeatures: true}, nil)
	if err != nil {
		log.Fatal(err)
	}
	grid := make([]float64, 201)
	for i := range grid {
		grid[i] = -6 + 13*float64(i)/200
	}
	m9, err := m.At(min(9, len(m.Stats())-1))
	if err != nil {
		log.Fatal(err)
	}
	bands, err := m9.Predict(ctx, mat.NewDense(len(grid), 1, grid), kpls.PredictOptions{Uncertainty: kpls.ConfidenceBand, Level: 0.98})
	if err != nil {
		log.Fatal(err) // errors.Is(err, kpls.ErrUnreliable): draw the predictions alone
	}
	truth := func(v float64) float64 { return (v - 1) * (v + 2) * (v - 1.5) * math.Exp(-v*v/10) }
	if err := plots.Band1D(filepath.Join(os.TempDir(), "band.png"), x, y, grid, bands, truth, "width 1"); err != nil {
		log.Fatal(err)
	}
}
