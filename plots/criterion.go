package plots

import (
	"fmt"
	"image/color"
	"math"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/kpls-go/kpls/kpls"
)

// widthGroup is the rows of one width, sorted by m.
type widthGroup struct {
	width float64
	stats []kpls.Stats
}

// groupRows splits a selection table by width, widths in order of first
// appearance, and checks it.
func groupRows(criterion string, rows []kpls.SelectionRow) (kpls.Criterion, []widthGroup, error) {
	crit, err := kpls.ParseCriterion(criterion)
	if err != nil {
		return "", nil, fmt.Errorf("%w: %w", ErrInput, err)
	}
	if len(rows) == 0 {
		return "", nil, fmt.Errorf("%w: empty selection table", ErrInput)
	}
	var groups []widthGroup
	index := map[float64]int{}
	for i, r := range rows {
		if !finite(r.Width()) {
			return "", nil, fmt.Errorf("%w: row %d has width %v", ErrInput, i+1, r.Width())
		}
		if r.M < 0 {
			return "", nil, fmt.Errorf("%w: row %d has m = %d", ErrInput, i+1, r.M)
		}
		g, ok := index[r.Width()]
		if !ok {
			g = len(groups)
			index[r.Width()] = g
			groups = append(groups, widthGroup{width: r.Width()})
		}
		groups[g].stats = append(groups[g].stats, r.Stats)
	}
	for _, g := range groups {
		sort.SliceStable(g.stats, func(i, j int) bool { return g.stats[i].M < g.stats[j].M })
		for i := 1; i < len(g.stats); i++ {
			if g.stats[i].M == g.stats[i-1].M {
				return "", nil, fmt.Errorf("%w: width %g has two rows for m = %d", ErrInput, g.width, g.stats[i].M)
			}
		}
	}
	return crit, groups, nil
}

// selected returns the index (into g.stats) of the first local minimum of
// the criterion, as kpls selects it, or -1.
func (g widthGroup) selected(c kpls.Criterion) int {
	score := make([]float64, len(g.stats))
	for i, s := range g.stats {
		score[i] = s.Score(c)
	}
	return kpls.FirstLocalMin(score)
}

// best returns the winning group and row, as kpls.Select chooses: the
// lowest of the per-width first local minima. ok is false when no width
// has a finite score.
func best(c kpls.Criterion, groups []widthGroup) (gi, si int, ok bool) {
	low := math.Inf(1)
	for i, g := range groups {
		j := g.selected(c)
		if j < 0 {
			continue
		}
		if v := g.stats[j].Score(c); v < low {
			low, gi, si, ok = v, i, j, true
		}
	}
	return gi, si, ok
}

// focusRange returns the range of the finite scores, its lower end cut
// when some scores lie far below every width's selected minimum (an
// interpolating fit with its DoF clipped at n − 1 drives gMDL towards
// −∞): more than half the span above that minimum. Then lo is the minimum
// less 15 % of that span, and cut is true.
func focusRange(c kpls.Criterion, groups []widthGroup) (lo, hi float64, cut bool) {
	lo, hi = math.Inf(1), math.Inf(-1)
	sel := math.Inf(1)
	for _, g := range groups {
		for _, s := range g.stats {
			if v := scoreOrNaN(s.Score(c)); finite(v) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
		if j := g.selected(c); j >= 0 {
			if v := scoreOrNaN(g.stats[j].Score(c)); finite(v) {
				sel = math.Min(sel, v)
			}
		}
	}
	if lo > hi {
		return 0, 1, false
	}
	if finite(sel) && hi > sel && lo < sel-0.5*(hi-sel) {
		return sel - 0.15*(hi-sel), hi, true
	}
	if !(hi > lo) {
		return lo - 0.5, hi + 0.5, false
	}
	return lo, hi, false
}

// CriterionVersusM writes the criterion (gmdl, aic or bic) against the
// number of components m, one line per kernel width of the selection
// table, with each width's selected m (first local minimum) ringed and the
// overall choice named in the title. Rows may come in any order; NaN
// scores are gaps. Scores far below every selected minimum (typically
// interpolating fits whose DoF is clipped at n − 1, or fits close to the
// Krylov breakdown) run off the bottom of the axis, which the title then
// says. The image is 7.5 × 4.5 in with the legend on the right.
func CriterionVersusM(path, criterion string, rows []kpls.SelectionRow) error {
	crit, groups, err := groupRows(criterion, rows)
	if err != nil {
		return err
	}
	if _, err := formatOf(path); err != nil {
		return err
	}
	name := critName(crit)
	title := name + " against components"
	if gi, si, ok := best(crit, groups); ok {
		title += fmt.Sprintf(": best width %s, m = %d", fmtWidth(groups[gi].width), groups[gi].stats[si].M)
	}
	lo, hi, cut := focusRange(crit, groups)
	if cut {
		title += "\n(scores far below every selected minimum run off the scale)"
	}
	p := newPlot(title, "components m", name)
	p.X.Tick.Marker = intTicks{}
	drawn := false
	var chosen plotter.XYs
	var entries []legendEntry
	for i, g := range groups {
		x := make([]float64, len(g.stats))
		y := make([]float64, len(g.stats))
		for j, s := range g.stats {
			x[j], y[j] = float64(s.M), scoreOrNaN(s.Score(crit))
		}
		label := "width " + fmtWidth(g.width)
		if !hasFinite(y) {
			label += " (not reliable)"
		}
		e, ok := addSeriesAbove(p, label, i, x, y, lo)
		entries = append(entries, e)
		drawn = drawn || ok
		if j := g.selected(crit); j >= 0 && finite(y[j]) {
			chosen = append(chosen, plotter.XY{X: x[j], Y: y[j]})
		}
	}
	if !drawn {
		p.X.Min, p.X.Max = 0, 1
	}
	pad := 0.03 * (hi - lo)
	p.Y.Min, p.Y.Max = lo-pad, hi+pad
	if len(chosen) > 0 {
		if sc, err := plotter.NewScatter(chosen); err == nil {
			sc.GlyphStyle = draw.GlyphStyle{Color: color.Black, Radius: vg.Points(5), Shape: draw.RingGlyph{}}
			p.Add(sc)
			entries = append(entries, legendEntry{label: "selected m", thumbs: []plot.Thumbnailer{sc}})
		}
	}
	const legendW = 1.5 * vg.Inch
	return render(path, 7.5*vg.Inch, 4.5*vg.Inch, func(dc draw.Canvas) {
		p.Draw(draw.Crop(dc, 0, -legendW, 0, 0))
		l := newLegend()
		addLegend(&l, entries)
		l.YOffs = -0.5 * vg.Inch
		l.Draw(draw.Crop(dc, dc.Max.X-dc.Min.X-legendW+vg.Millimeter*3, 0, 0, 0))
	})
}

// heatGrid is the width × m table as a plotter.GridXYZ: column c is m = c,
// row r the r-th width; cells without a finite score are NaN.
type heatGrid struct {
	z          [][]float64 // [row][col]
	cols, rows int
}

func (h heatGrid) Dims() (c, r int)   { return h.cols, h.rows }
func (h heatGrid) Z(c, r int) float64 { return h.z[r][c] }
func (h heatGrid) X(c int) float64    { return float64(c) }
func (h heatGrid) Y(r int) float64    { return float64(r) }

// labelTicks labels integer positions with fixed strings.
type labelTicks []string

func (t labelTicks) Ticks(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	for i, s := range t {
		if v := float64(i); v >= lo-0.5 && v <= hi+0.5 {
			ticks = append(ticks, plot.Tick{Value: v, Label: s})
		}
	}
	return ticks
}

// CriterionHeatmap writes the criterion (gmdl, aic or bic) over the grid
// of widths (rows, in the order of the table) × components m (columns) as
// a heat map (plotter.HeatMap, Kindlmann palette: darker is lower, i.e.
// better) with a colour bar. Each width's selected m (first local minimum)
// is ringed in cyan, the overall choice marked with a large yellow cross
// and named in the legend below the map; cells with no reliable value (or
// not fitted) are grey. Scores far below every selected minimum (see
// CriterionVersusM) are drawn orange, outside the colour
// scale, so that they do not flatten the region around the minimum. The
// image is 7 in wide and 4.5 in high plus the legend.
func CriterionHeatmap(path, criterion string, rows []kpls.SelectionRow) error {
	crit, groups, err := groupRows(criterion, rows)
	if err != nil {
		return err
	}
	if _, err := formatOf(path); err != nil {
		return err
	}
	maxM := 0
	for _, g := range groups {
		maxM = max(maxM, g.stats[len(g.stats)-1].M)
	}
	grid := heatGrid{cols: maxM + 1, rows: len(groups), z: make([][]float64, len(groups))}
	var all []float64
	for r, g := range groups {
		grid.z[r] = make([]float64, maxM+1)
		for c := range grid.z[r] {
			grid.z[r][c] = math.NaN()
		}
		for _, s := range g.stats {
			v := scoreOrNaN(s.Score(crit))
			grid.z[r][s.M] = v
			if finite(v) {
				all = append(all, v)
			}
		}
	}
	name := critName(crit)
	title := name + " over widths × components"
	lo, hi, cut := focusRange(crit, groups)
	if len(all) == 0 {
		title += " (no reliable values)"
	}
	cmap := moreland.Kindlmann()
	cmap.SetMin(lo)
	cmap.SetMax(hi)
	pal := cmap.Palette(255)
	hm := plotter.NewHeatMap(grid, pal)
	hm.Min, hm.Max = lo, hi
	hm.NaN = color.Gray{Y: 200}
	colors := pal.Colors()
	hm.Underflow, hm.Overflow = colors[0], colors[len(colors)-1]
	if cut {
		hm.Underflow = color.RGBA{R: 255, G: 90, B: 0, A: 255}
	}

	labels := make([]string, len(groups))
	for i, g := range groups {
		labels[i] = fmtWidth(g.width)
	}
	p := newPlot(title, "components m", "kernel width")
	// Twice: the second pass covers the anti-aliased seams between cells.
	p.Add(hm, hm)
	p.Y.Tick.Marker = labelTicks(labels)
	p.X.Tick.Marker = intTicks{}
	p.X.Padding, p.Y.Padding = 0, 0
	// Put the cell edges at the axis ends.
	p.X.Min, p.X.Max = -0.5, float64(maxM)+0.5
	p.Y.Min, p.Y.Max = -0.5, float64(len(groups))-0.5

	var entries []legendEntry
	var chosen plotter.XYs
	for r, g := range groups {
		if j := g.selected(crit); j >= 0 {
			chosen = append(chosen, plotter.XY{X: float64(g.stats[j].M), Y: float64(r)})
		}
	}
	if len(chosen) > 0 {
		if sc, err := plotter.NewScatter(chosen); err == nil {
			sc.GlyphStyle = draw.GlyphStyle{Color: color.RGBA{R: 0, G: 210, B: 255, A: 255}, Radius: vg.Points(4.5), Shape: draw.RingGlyph{}}
			p.Add(sc)
			entries = append(entries, legendEntry{label: "selected m of each width", thumbs: []plot.Thumbnailer{sc}})
		}
	}
	if gi, si, ok := best(crit, groups); ok {
		m := groups[gi].stats[si].M
		if sc, err := plotter.NewScatter(plotter.XYs{{X: float64(m), Y: float64(gi)}}); err == nil {
			sc.GlyphStyle = draw.GlyphStyle{Color: color.RGBA{R: 255, G: 225, B: 0, A: 255}, Radius: vg.Points(8), Shape: draw.CrossGlyph{}}
			p.Add(sc)
			entries = append(entries, legendEntry{label: fmt.Sprintf("best: width %s, m = %d (%s %.4g)", fmtWidth(groups[gi].width), m, name, groups[gi].stats[si].Score(crit)), thumbs: []plot.Thumbnailer{sc}})
		}
	}
	entries = append(entries, legendEntry{label: "not fitted or not reliable", thumbs: []plot.Thumbnailer{colorBox{hm.NaN}}})
	if cut {
		entries = append(entries, legendEntry{label: "far below every selected minimum", thumbs: []plot.Thumbnailer{colorBox{hm.Underflow}}})
	}

	bar := plot.New()
	bar.Title.Text = name
	bar.Title.TextStyle.Font.Size = vg.Points(11)
	bar.Y.Tick.Label.Font.Size = vg.Points(9)
	bar.Y.Tick.Marker = niceTicks{}
	bar.HideX()
	bar.Y.Padding = 0
	bar.Add(&plotter.ColorBar{ColorMap: cmap, Vertical: true})

	const (
		w, h = 7 * vg.Inch, 4.5 * vg.Inch
		barW = 0.9 * vg.Inch
	)
	sh := stripHeight(w, entries)
	return render(path, w, h+sh, func(dc draw.Canvas) {
		drawStrip(draw.Crop(dc, 0, 0, 0, -h), entries)
		top := draw.Crop(dc, 0, 0, sh, 0)
		p.Draw(draw.Crop(top, 0, -barW-vg.Millimeter*3, 0, 0))
		bar.Draw(draw.Crop(top, w-barW, -vg.Millimeter*2, 0.42*vg.Inch, -vg.Millimeter*1))
	})
}

// colorBox is a legend thumbnail filled with one colour.
type colorBox struct{ c color.Color }

func (b colorBox) Thumbnail(c *draw.Canvas) {
	pts := []vg.Point{
		{X: c.Min.X, Y: c.Min.Y}, {X: c.Min.X, Y: c.Max.Y},
		{X: c.Max.X, Y: c.Max.Y}, {X: c.Max.X, Y: c.Min.Y},
	}
	c.FillPolygon(b.c, c.ClipPolygonXY(pts))
}
