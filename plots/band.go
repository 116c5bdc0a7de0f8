package plots

import (
	"fmt"
	"image/color"
	"math"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/kpls-go/kpls/kpls"
)

// Band1D writes the paper's Figure 3 for one model: the fitted curve
// band.Yhat[i] over grid[i], the confidence band [Lower, Upper] shaded,
// the training points and, if truth is not nil, the true function
// (dashed), with the legend in a strip above the plot. The grid need not be sorted. Grid points whose band is not
// finite (unreliable) leave a gap in the shading; a NaN prediction leaves
// a gap in the curve. The band's level is read off the bands themselves
// (z = (Upper − Yhat)/SE) for the legend. The image is 6 × 4.2 in.
func Band1D(path string, xTrain, yTrain []float64, grid []float64, band *kpls.Prediction, truth func(float64) float64, title string) error {
	switch {
	case len(xTrain) != len(yTrain):
		return fmt.Errorf("%w: %d training inputs, %d responses", ErrInput, len(xTrain), len(yTrain))
	case band == nil || len(band.SE) != len(band.Yhat):
		return fmt.Errorf("%w: a prediction without its band", ErrInput)
	case len(grid) != len(band.Yhat):
		return fmt.Errorf("%w: %d grid points, %d bands", ErrInput, len(grid), len(band.Yhat))
	case len(grid) < 2:
		return fmt.Errorf("%w: need at least 2 grid points, have %d", ErrInput, len(grid))
	}
	for i := range xTrain {
		if !finite(xTrain[i]) || !finite(yTrain[i]) {
			return fmt.Errorf("%w: training point %d is (%v, %v)", ErrInput, i+1, xTrain[i], yTrain[i])
		}
	}
	for i, g := range grid {
		if !finite(g) {
			return fmt.Errorf("%w: grid point %d is %v", ErrInput, i+1, g)
		}
	}
	if _, err := formatOf(path); err != nil {
		return err
	}
	order := make([]int, len(grid))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return grid[order[a]] < grid[order[b]] })
	gx := make([]float64, len(grid))
	yhat := make([]float64, len(grid))
	lower := make([]float64, len(grid))
	upper := make([]float64, len(grid))
	for k, i := range order {
		gx[k], yhat[k], lower[k], upper[k] = grid[i], band.Yhat[i], band.Lower[i], band.Upper[i]
	}

	p := newPlot(title, "x", "y")
	xmin, xmax := gx[0], gx[len(gx)-1]
	for _, v := range xTrain {
		xmin, xmax = math.Min(xmin, v), math.Max(xmax, v)
	}
	p.X.Min, p.X.Max = xmin, xmax

	// The band: one polygon per run of grid points with a finite band.
	bandColor := color.NRGBA{R: 120, G: 170, B: 230, A: 150}
	shaded := false
	for start := 0; start < len(gx); {
		if !finite(lower[start]) || !finite(upper[start]) || !finite(yhat[start]) {
			start++
			continue
		}
		end := start
		for end < len(gx) && finite(lower[end]) && finite(upper[end]) && finite(yhat[end]) {
			end++
		}
		if end-start >= 2 {
			ring := make(plotter.XYs, 0, 2*(end-start))
			for k := start; k < end; k++ {
				ring = append(ring, plotter.XY{X: gx[k], Y: upper[k]})
			}
			for k := end - 1; k >= start; k-- {
				ring = append(ring, plotter.XY{X: gx[k], Y: lower[k]})
			}
			if poly, err := plotter.NewPolygon(ring); err == nil {
				poly.Color = bandColor
				poly.LineStyle.Width = 0
				p.Add(poly)
				shaded = true
			}
		}
		start = end
	}
	var entries []legendEntry
	fitStyle := draw.LineStyle{Color: seriesColors[0], Width: vg.Points(2)}
	entries = append(entries, legendEntry{label: "KPLS fit", thumbs: []plot.Thumbnailer{&plotter.Line{LineStyle: fitStyle}}})
	if shaded {
		entries = append(entries, legendEntry{label: bandLabel(band), thumbs: []plot.Thumbnailer{colorBox{bandColor}}})
	}

	if truth != nil {
		f := plotter.NewFunction(func(x float64) float64 {
			v := truth(x)
			if !finite(v) {
				return math.NaN()
			}
			return v
		})
		f.XMin, f.XMax, f.Samples = xmin, xmax, 400
		f.LineStyle = draw.LineStyle{Color: color.Black, Width: vg.Points(1.2), Dashes: []vg.Length{vg.Points(5), vg.Points(3)}}
		p.Add(f)
		entries = append(entries, legendEntry{label: "true function", thumbs: []plot.Thumbnailer{f}})
	}

	for _, s := range segments(gx, yhat) {
		if l, err := plotter.NewLine(s); err == nil {
			l.LineStyle = fitStyle
			p.Add(l)
		}
	}

	if len(xTrain) > 0 {
		pts := make(plotter.XYs, len(xTrain))
		for i := range xTrain {
			pts[i] = plotter.XY{X: xTrain[i], Y: yTrain[i]}
		}
		if sc, err := plotter.NewScatter(pts); err == nil {
			sc.GlyphStyle = draw.GlyphStyle{Color: color.RGBA{R: 200, G: 30, B: 30, A: 255}, Radius: vg.Points(2.2), Shape: draw.CircleGlyph{}}
			p.Add(sc)
			entries = append(entries, legendEntry{label: "training data", thumbs: []plot.Thumbnailer{sc}})
		}
	}
	return saveWithStrip(path, 6*vg.Inch, 4.2*vg.Inch, p, entries, true)
}

// bandLabel names the band's level, recovered from z = (Upper − Yhat)/SE.
func bandLabel(band *kpls.Prediction) string {
	for i, se := range band.SE {
		if se > 0 && finite(se) && finite(band.Upper[i]) && finite(band.Yhat[i]) {
			z := (band.Upper[i] - band.Yhat[i]) / se
			level := 2*distuv.UnitNormal.CDF(z) - 1
			if level > 0 && level < 1 {
				return fmt.Sprintf("%.3g %% confidence band", 100*level)
			}
		}
	}
	return "confidence band"
}

// ObservedVsPredicted writes the predictions yhat against the observations
// y with the identity line; the title gives n, the root mean squared error
// and R² = 1 − RSS/TSS. The image is 5 × 5 in.
func ObservedVsPredicted(path string, y, yhat []float64) error {
	if len(y) != len(yhat) {
		return fmt.Errorf("%w: %d observations, %d predictions", ErrInput, len(y), len(yhat))
	}
	if len(y) == 0 {
		return fmt.Errorf("%w: no observations", ErrInput)
	}
	for i := range y {
		if !finite(y[i]) || !finite(yhat[i]) {
			return fmt.Errorf("%w: point %d is (%v, %v)", ErrInput, i+1, y[i], yhat[i])
		}
	}
	if _, err := formatOf(path); err != nil {
		return err
	}
	var mean, rss, tss float64
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := range y {
		mean += y[i]
		lo = math.Min(lo, math.Min(y[i], yhat[i]))
		hi = math.Max(hi, math.Max(y[i], yhat[i]))
	}
	mean /= float64(len(y))
	for i := range y {
		rss += (y[i] - yhat[i]) * (y[i] - yhat[i])
		tss += (y[i] - mean) * (y[i] - mean)
	}
	title := fmt.Sprintf("n = %d, RMSE = %.4g", len(y), math.Sqrt(rss/float64(len(y))))
	if tss > 0 {
		title += fmt.Sprintf(", R² = %.3f", 1-rss/tss)
	}
	if !(hi > lo) {
		lo, hi = lo-0.5, hi+0.5
	}
	pad := 0.03 * (hi - lo)
	lo, hi = lo-pad, hi+pad

	p := newPlot(title, "observed y", "predicted ŷ")
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = lo, hi, lo, hi
	id, err := plotter.NewLine(plotter.XYs{{X: lo, Y: lo}, {X: hi, Y: hi}})
	if err != nil {
		return err
	}
	id.LineStyle = draw.LineStyle{Color: color.Gray{Y: 60}, Width: vg.Points(1.2), Dashes: []vg.Length{vg.Points(5), vg.Points(3)}}
	pts := make(plotter.XYs, len(y))
	for i := range y {
		pts[i] = plotter.XY{X: y[i], Y: yhat[i]}
	}
	sc, err := plotter.NewScatter(pts)
	if err != nil {
		return err
	}
	sc.GlyphStyle = draw.GlyphStyle{Color: color.NRGBA{R: 0, G: 84, B: 180, A: 140}, Radius: vg.Points(2), Shape: draw.CircleGlyph{}}
	p.Add(sc, id)
	p.Legend.Add("points", sc)
	p.Legend.Add("ŷ = y", id)
	p.Legend.Top = true
	p.Legend.Left = true
	return save(path, 5*vg.Inch, 5*vg.Inch, p)
}
