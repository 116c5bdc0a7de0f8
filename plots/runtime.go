package plots

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// TimeSeries is one line of RuntimeVersusN: the fit time in seconds at
// each training size N, labelled (the runtime experiment puts the fitted
// slope in the label).
type TimeSeries struct {
	Label   string
	N       []int
	Seconds []float64
}

// RuntimeVersusN writes fit time against n on log–log axes, one line with
// markers per series, legend top left; times below 1 µs are drawn at
// 1 µs. The image is 16 × 11 cm.
func RuntimeVersusN(path string, series []TimeSeries) error {
	if len(series) == 0 {
		return fmt.Errorf("%w: no series to plot", ErrInput)
	}
	for _, s := range series {
		if len(s.N) == 0 || len(s.N) != len(s.Seconds) {
			return fmt.Errorf("%w: series %q has %d sizes and %d times", ErrInput, s.Label, len(s.N), len(s.Seconds))
		}
		for i, n := range s.N {
			if n <= 0 || !finite(s.Seconds[i]) {
				return fmt.Errorf("%w: series %q has n = %d, %v s", ErrInput, s.Label, n, s.Seconds[i])
			}
		}
	}
	if _, err := formatOf(path); err != nil {
		return err
	}
	p := plot.New()
	p.Title.Text = "KPLS fit time: exact versus approximate degrees of freedom"
	p.X.Label.Text = "n (training points)"
	p.Y.Label.Text = "seconds"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	p.Legend.Top, p.Legend.Left = true, true
	for i, s := range series {
		xy := make(plotter.XYs, len(s.N))
		for j, n := range s.N {
			xy[j] = plotter.XY{X: float64(n), Y: math.Max(s.Seconds[j], 1e-6)}
		}
		l, sc, err := plotter.NewLinePoints(xy)
		if err != nil {
			return err
		}
		l.Color = plotutil.Color(i)
		sc.Color = plotutil.Color(i)
		sc.Shape = plotutil.Shape(i)
		p.Add(l, sc)
		p.Legend.Add(s.Label, l, sc)
	}
	return save(path, 16*vg.Centimeter, 11*vg.Centimeter, p)
}
