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

// gridGroup is the rows of one grid point (kernel and width) of a
// selection table, sorted by m, with the index of its choice among them.
type gridGroup struct {
	kernel string  // the kernel's name
	width  float64 // 0 for kernels without one
	rows   []kpls.SelectionRow
	chosen int // index into rows of the grid point's choice; −1 if none
}

// label names the grid point as the figures do: "width w" for the RBF
// kernel, "laplacian width w" for the other kernels with a width, and the
// kernel's name for the others.
func (g gridGroup) label() string {
	switch {
	case g.kernel == "rbf":
		return "width " + fmtWidth(g.width)
	case g.width != 0:
		return g.kernel + " width " + fmtWidth(g.width)
	}
	return g.kernel
}

// tick is the grid point's label on the heat map's axis.
func (g gridGroup) tick() string {
	switch {
	case g.kernel == "rbf":
		return fmtWidth(g.width)
	case g.width != 0:
		return g.kernel + " " + fmtWidth(g.width)
	}
	return g.kernel
}

// score is the selection criterion of row i, ±Inf as NaN.
func (g gridGroup) score(c kpls.Criterion, i int) float64 { return scoreOrNaN(g.rows[i].Score(c)) }

// groupRows splits a selection's table by grid point, in order of first
// appearance, checks it, and attaches the choices and the winner that
// kpls.Select recorded (Selection.Choices, Selection.Best): plots marks
// them and computes no choice of its own. best is the index of the
// winner's group, −1 when the selection has no winner among its rows.
func groupRows(sel *kpls.Selection) (crit kpls.Criterion, groups []gridGroup, best int, err error) {
	if sel == nil || len(sel.Table) == 0 {
		return "", nil, -1, fmt.Errorf("%w: empty selection table", ErrInput)
	}
	if sel.Criterion == "" {
		// Not Select's output, which always names it.
		return "", nil, -1, fmt.Errorf("%w: the selection names no criterion", ErrInput)
	}
	if err = crit.UnmarshalText([]byte(sel.Criterion)); err != nil {
		return "", nil, -1, fmt.Errorf("%w: %w", ErrInput, err)
	}
	type key struct {
		k string
		w float64
	}
	index := map[key]int{}
	for i, r := range sel.Table {
		if r.Kernel == nil {
			return "", nil, -1, fmt.Errorf("%w: row %d has no kernel", ErrInput, i+1)
		}
		if !finite(r.Width()) {
			return "", nil, -1, fmt.Errorf("%w: row %d has width %v", ErrInput, i+1, r.Width())
		}
		if r.M < 0 {
			return "", nil, -1, fmt.Errorf("%w: row %d has m = %d", ErrInput, i+1, r.M)
		}
		g, ok := index[key{r.Kernel.Name(), r.Width()}]
		if !ok {
			g = len(groups)
			index[key{r.Kernel.Name(), r.Width()}] = g
			groups = append(groups, gridGroup{kernel: r.Kernel.Name(), width: r.Width(), chosen: -1})
		}
		groups[g].rows = append(groups[g].rows, r)
	}
	for _, g := range groups {
		sort.SliceStable(g.rows, func(i, j int) bool { return g.rows[i].M < g.rows[j].M })
		for i := 1; i < len(g.rows); i++ {
			if g.rows[i].M == g.rows[i-1].M {
				return "", nil, -1, fmt.Errorf("%w: %s has two rows for m = %d", ErrInput, g.label(), g.rows[i].M)
			}
		}
	}
	// find returns the group and row of r, or ok = false.
	find := func(r kpls.SelectionRow) (gi, ri int, ok bool) {
		if r.Kernel == nil {
			return 0, 0, false
		}
		gi, ok = index[key{r.Kernel.Name(), r.Width()}]
		if !ok {
			return 0, 0, false
		}
		rows := groups[gi].rows
		ri = sort.Search(len(rows), func(i int) bool { return rows[i].M >= r.M })
		return gi, ri, ri < len(rows) && rows[ri].M == r.M
	}
	for _, c := range sel.Choices {
		gi, ri, ok := find(c)
		if !ok {
			return "", nil, -1, fmt.Errorf("%w: the choice %s m = %d is not in the table", ErrInput, c.Kernel, c.M)
		}
		groups[gi].chosen = ri
	}
	best = -1
	if gi, ri, ok := find(sel.Best); ok && groups[gi].chosen == ri {
		best = gi
	}
	return crit, groups, best, nil
}

// focusRange returns the range of the finite scores, its lower end cut
// when some scores lie far below every width's selected minimum (an
// interpolating fit with its DoF clipped at n − 1 drives gMDL towards
// −∞): more than half the span above that minimum. Then lo is the minimum
// less 15 % of that span, and cut is true.
func focusRange(c kpls.Criterion, groups []gridGroup) (lo, hi float64, cut bool) {
	lo, hi = math.Inf(1), math.Inf(-1)
	sel := math.Inf(1)
	for _, g := range groups {
		for i := range g.rows {
			if v := g.score(c, i); finite(v) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
		if j := g.chosen; j >= 0 {
			if v := g.score(c, j); finite(v) {
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

// CriterionVersusM writes the criterion of a selection (sel.Criterion:
// RMSECV for cv, else GCV, AIC, BIC or gMDL) against the number of
// components m, one line per grid point of sel.Table (each RBF width, and
// the linear kernel), with each grid point's choice (sel.Choices) ringed
// and the winner (sel.Best) named in the title: the marks are kpls.Select's
// own choices, not recomputed here. Rows may come in any order; NaN
// scores are gaps. Scores far below every chosen minimum (typically
// interpolating fits whose DoF is clipped at n − 1, or fits close to the
// Krylov breakdown) run off the bottom of the axis, which the title then
// says. The image is 7.5 × 4.5 in with the legend on the right.
func CriterionVersusM(path string, sel *kpls.Selection) error {
	crit, groups, best, err := groupRows(sel)
	if err != nil {
		return err
	}
	if _, err := formatOf(path); err != nil {
		return err
	}
	name := critName(crit)
	title := name + " against components"
	if best >= 0 {
		g := groups[best]
		title += fmt.Sprintf(": best %s, m = %d", g.label(), g.rows[g.chosen].M)
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
		x := make([]float64, len(g.rows))
		y := make([]float64, len(g.rows))
		for j, r := range g.rows {
			x[j], y[j] = float64(r.M), g.score(crit, j)
		}
		label := g.label()
		if !hasFinite(y) {
			label += " (not reliable)"
		}
		e, ok := addSeriesAbove(p, label, i, x, y, lo)
		entries = append(entries, e)
		drawn = drawn || ok
		if j := g.chosen; j >= 0 && finite(y[j]) {
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

// CriterionHeatmap writes the criterion of a selection (as
// CriterionVersusM) over its grid points (rows, in the order of the table)
// × components m (columns) as a heat map (plotter.HeatMap, Kindlmann
// palette: darker is lower, i.e. better) with a colour bar. Each grid
// point's choice (sel.Choices) is ringed in cyan, the winner (sel.Best)
// marked with a large yellow cross and named in the legend below the map;
// cells with no reliable value (or not fitted) are grey. Scores far below
// every chosen minimum (see CriterionVersusM) are drawn orange, outside
// the colour scale, so that they do not flatten the region around the
// minimum. The image is 7 in wide and 4.5 in high plus the legend.
func CriterionHeatmap(path string, sel *kpls.Selection) error {
	crit, groups, best, err := groupRows(sel)
	if err != nil {
		return err
	}
	if _, err := formatOf(path); err != nil {
		return err
	}
	maxM := 0
	for _, g := range groups {
		maxM = max(maxM, g.rows[len(g.rows)-1].M)
	}
	grid := heatGrid{cols: maxM + 1, rows: len(groups), z: make([][]float64, len(groups))}
	var all []float64
	for r, g := range groups {
		grid.z[r] = make([]float64, maxM+1)
		for c := range grid.z[r] {
			grid.z[r][c] = math.NaN()
		}
		for i, row := range g.rows {
			v := g.score(crit, i)
			grid.z[r][row.M] = v
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
		labels[i] = g.tick()
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
		if j := g.chosen; j >= 0 {
			chosen = append(chosen, plotter.XY{X: float64(g.rows[j].M), Y: float64(r)})
		}
	}
	if len(chosen) > 0 {
		if sc, err := plotter.NewScatter(chosen); err == nil {
			sc.GlyphStyle = draw.GlyphStyle{Color: color.RGBA{R: 0, G: 210, B: 255, A: 255}, Radius: vg.Points(4.5), Shape: draw.RingGlyph{}}
			p.Add(sc)
			entries = append(entries, legendEntry{label: "selected m of each width", thumbs: []plot.Thumbnailer{sc}})
		}
	}
	if best >= 0 {
		g := groups[best]
		b := g.rows[g.chosen]
		if sc, err := plotter.NewScatter(plotter.XYs{{X: float64(b.M), Y: float64(best)}}); err == nil {
			sc.GlyphStyle = draw.GlyphStyle{Color: color.RGBA{R: 255, G: 225, B: 0, A: 255}, Radius: vg.Points(8), Shape: draw.CrossGlyph{}}
			p.Add(sc)
			entries = append(entries, legendEntry{label: fmt.Sprintf("best: %s, m = %d (%s %.4g)", g.label(), b.M, name, b.Score(crit)), thumbs: []plot.Thumbnailer{sc}})
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
