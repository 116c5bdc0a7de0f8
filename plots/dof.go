package plots

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/kpls-go/kpls/kpls"
)

// Series is one line of a panel: the per-component statistics of one fit
// (Model.Stats, m = 0..Components) under a legend label such as "exact"
// or "lanczos, M = 30".
type Series struct {
	Label string
	Stats []kpls.Stats
}

// DoFPanel is one kernel width: its lines, typically one per DoF method.
type DoFPanel struct {
	// Title heads the panel; empty means "width W".
	Title string
	// Width is the RBF width, used for the default title.
	Width  float64
	Series []Series
}

func (p DoFPanel) title() string {
	if p.Title != "" {
		return p.Title
	}
	return "width " + fmtWidth(p.Width)
}

func checkPanels(panels []DoFPanel) error {
	if len(panels) == 0 {
		return fmt.Errorf("%w: no panels", ErrInput)
	}
	for i, p := range panels {
		if len(p.Series) == 0 {
			return fmt.Errorf("%w: panel %d (%s) has no series", ErrInput, i+1, p.title())
		}
		for _, s := range p.Series {
			if len(s.Stats) == 0 {
				return fmt.Errorf("%w: panel %d (%s), series %q has no statistics", ErrInput, i+1, p.title(), s.Label)
			}
		}
	}
	return nil
}

// statsPlot draws value(stats) against m for every series, returning the
// plot and its legend entries. A series without a single finite value is
// marked "(not reliable)" in its label.
func statsPlot(title, ylabel string, series []Series, value func(kpls.Stats) float64) (*plot.Plot, []legendEntry) {
	p := newPlot(title, "components m", ylabel)
	p.X.Tick.Marker = intTicks{}
	drawn := false
	var entries []legendEntry
	for i, s := range series {
		x := make([]float64, len(s.Stats))
		y := make([]float64, len(s.Stats))
		for j, st := range s.Stats {
			x[j], y[j] = float64(st.M), scoreOrNaN(value(st))
		}
		label := s.Label
		if !hasFinite(y) {
			label += " (not reliable)"
		}
		e, ok := addSeries(p, label, i, x, y)
		entries = append(entries, e)
		drawn = drawn || ok
	}
	if !drawn {
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
	}
	return p, entries
}

func hasFinite(v []float64) bool {
	for _, x := range v {
		if finite(x) {
			return true
		}
	}
	return false
}

// dofPlot is one panel of degrees of freedom against m, with the naive
// count m+1 as a thin grey reference.
func dofPlot(panel DoFPanel) (*plot.Plot, []legendEntry) {
	p, entries := statsPlot(panel.title(), "degrees of freedom", panel.Series, func(s kpls.Stats) float64 { return s.DoF })
	maxM := 0
	for _, s := range panel.Series {
		for _, st := range s.Stats {
			maxM = max(maxM, st.M)
		}
	}
	ref := plotter.XYs{{X: 0, Y: 1}, {X: float64(maxM), Y: float64(maxM + 1)}}
	if l, err := plotter.NewLine(ref); err == nil {
		l.LineStyle = draw.LineStyle{Color: seriesColors[7], Width: vg.Points(0.8), Dashes: []vg.Length{vg.Points(1), vg.Points(2)}}
		p.Add(l)
		entries = append(entries, legendEntry{label: "m + 1", thumbs: []plot.Thumbnailer{l}})
	}
	return p, entries
}

// sameLabels reports whether every panel's legend reads the same, so
// that one legend serves them all.
func sameLabels(all [][]legendEntry) bool {
	for _, es := range all[1:] {
		if len(es) != len(all[0]) {
			return false
		}
		for i, e := range es {
			if e.label != all[0][i].label {
				return false
			}
		}
	}
	return true
}

// saveRows writes rows of panels with one legend strip on top when the
// first row's legends agree, and a legend inside each panel otherwise.
func saveRows(path string, panelW, panelH vg.Length, rows [][]*plot.Plot, legends [][]legendEntry) error {
	w := vg.Length(len(rows[0])) * panelW
	h := vg.Length(len(rows)) * panelH
	if !sameLabels(legends) {
		for i, p := range rows[0] {
			addEntries(p, legends[i])
			p.Legend.Top, p.Legend.Left = true, true
		}
		return saveGrid(path, w, h, rows)
	}
	entries := legends[0]
	sh := stripHeight(w, entries)
	return render(path, w, h+sh, func(dc draw.Canvas) {
		drawStrip(draw.Crop(dc, 0, 0, h, 0), entries)
		drawGrid(draw.Crop(dc, 0, 0, 0, -sh), rows)
	})
}

// DoFVersusM writes the top row of the paper's Figure 1: for each panel
// (kernel width), side by side, the degrees of freedom against the number
// of components m, one line per series (DoF method), with the naive count
// m + 1 for reference. NaN degrees of freedom are gaps. Each panel is
// 3.4 × 3.6 in; a shared legend strip goes on top when every panel has
// the same series labels.
func DoFVersusM(path string, panels []DoFPanel) error {
	if err := checkPanels(panels); err != nil {
		return err
	}
	if _, err := formatOf(path); err != nil {
		return err
	}
	row := make([]*plot.Plot, len(panels))
	legends := make([][]legendEntry, len(panels))
	for i, pn := range panels {
		row[i], legends[i] = dofPlot(pn)
	}
	return saveRows(path, 3.4*vg.Inch, 3.6*vg.Inch, [][]*plot.Plot{row}, legends)
}

// DoFAndCriterionVersusM writes the whole of the paper's Figure 1: the
// row of DoFVersusM above a row with the criterion (gmdl, aic or bic)
// computed from each series' degrees of freedom. Each panel is 3.4 ×
// 3.4 in.
func DoFAndCriterionVersusM(path, criterion string, panels []DoFPanel) error {
	var crit kpls.Criterion
	if err := crit.UnmarshalText([]byte(criterion)); err != nil {
		return fmt.Errorf("%w: %w", ErrInput, err)
	}
	if crit == "" {
		crit = kpls.GMDL // the paper's Figure 1
	}
	if err := checkPanels(panels); err != nil {
		return err
	}
	if _, err := formatOf(path); err != nil {
		return err
	}
	top := make([]*plot.Plot, len(panels))
	bottom := make([]*plot.Plot, len(panels))
	legends := make([][]legendEntry, len(panels))
	for i, pn := range panels {
		top[i], legends[i] = dofPlot(pn)
		bottom[i], _ = statsPlot(critName(crit)+", "+pn.title(), critName(crit), pn.Series, func(s kpls.Stats) float64 { return s.Score(crit) })
	}
	return saveRows(path, 3.4*vg.Inch, 3.4*vg.Inch, [][]*plot.Plot{top, bottom}, legends)
}

// critName is the criterion as the paper writes it.
func critName(c kpls.Criterion) string {
	switch c {
	case kpls.GMDL:
		return "gMDL"
	case kpls.CV:
		return "RMSECV"
	}
	return strings.ToUpper(string(c))
}

// scoreOrNaN maps ±Inf (gMDL with no signal) to NaN so it becomes a gap.
func scoreOrNaN(v float64) float64 {
	if math.IsInf(v, 0) {
		return math.NaN()
	}
	return v
}
