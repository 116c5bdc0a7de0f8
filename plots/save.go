package plots

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/kpls-go/kpls/internal/atomicfile"
)

// ErrInput is wrapped by every error about the data handed to a plotting
// function (empty, mismatched lengths, non-finite where a value is needed).
var ErrInput = errors.New("plots: bad input")

// ErrFormat is wrapped when the file extension names no supported format.
var ErrFormat = errors.New("plots: unsupported image format (want .png, .svg or .pdf)")

// DPI is the resolution of PNG output: an image of w×h inches has
// w·DPI × h·DPI pixels.
const DPI = 96

// formatOf returns the image format named by the extension of path.
func formatOf(path string) (string, error) {
	ext := strings.ToLower(strings.TrimPrefix(filepath.Ext(path), "."))
	switch ext {
	case "png", "svg", "pdf":
		return ext, nil
	}
	return "", fmt.Errorf("%w: %q", ErrFormat, path)
}

// render draws onto a canvas of w×h in the format of path and writes the
// file. A panic inside the plotting library (it panics on some degenerate
// ranges) becomes an error.
func render(path string, w, h vg.Length, drawFn func(dc draw.Canvas)) (err error) {
	format, err := formatOf(path)
	if err != nil {
		return err
	}
	c, err := draw.NewFormattedCanvas(w, h, format)
	if err != nil {
		return err
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("plots: drawing %s: %v", path, r)
		}
	}()
	drawFn(draw.New(c))
	// Through a temporary file renamed into place: a failed or interrupted
	// write leaves an old figure as it was (internal/atomicfile).
	if err := atomicfile.Write(path, figurePerm, func(w io.Writer) error {
		_, err := c.WriteTo(w)
		return err
	}); err != nil {
		return fmt.Errorf("plots: %w", err)
	}
	return nil
}

// figurePerm is the permission of a new figure, less the umask; a
// replaced figure keeps its mode.
const figurePerm = 0o666

// saveGrid lays out rows of plots in a grid of tiles with aligned axes.
func saveGrid(path string, w, h vg.Length, grid [][]*plot.Plot) error {
	return render(path, w, h, func(dc draw.Canvas) { drawGrid(dc, grid) })
}

// drawGrid draws rows of plots in tiles with aligned axes.
func drawGrid(dc draw.Canvas, grid [][]*plot.Plot) {
	{
		t := draw.Tiles{
			Rows: len(grid), Cols: len(grid[0]),
			PadX: vg.Millimeter * 4, PadY: vg.Millimeter * 4,
			PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2,
			PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 3,
		}
		canvases := plot.Align(grid, t, dc)
		for j := range grid {
			for i, p := range grid[j] {
				if p != nil {
					p.Draw(canvases[j][i])
				}
			}
		}
	}
}

// save writes a single plot.
func save(path string, w, h vg.Length, p *plot.Plot) error {
	return render(path, w, h, func(dc draw.Canvas) { p.Draw(dc) })
}

// newPlot returns a plot with the package's type sizes.
func newPlot(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = vg.Points(12)
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.X.Label.TextStyle.Font.Size = vg.Points(11)
	p.Y.Label.TextStyle.Font.Size = vg.Points(11)
	p.X.Tick.Label.Font.Size = vg.Points(9)
	p.Y.Tick.Label.Font.Size = vg.Points(9)
	p.Legend.TextStyle.Font.Size = vg.Points(9)
	p.Legend.ThumbnailWidth = vg.Points(24)
	p.Legend.Padding = vg.Points(3)
	p.X.Tick.Marker = niceTicks{}
	p.Y.Tick.Marker = niceTicks{}
	p.Add(plotter.NewGrid())
	return p
}

// Line colours and dashes, chosen to stay distinct in grey scale too.
var (
	seriesColors = []color.Color{
		color.RGBA{R: 0, G: 84, B: 180, A: 255},   // blue
		color.RGBA{R: 214, G: 39, B: 40, A: 255},  // red
		color.RGBA{R: 44, G: 140, B: 44, A: 255},  // green
		color.RGBA{R: 230, G: 120, B: 0, A: 255},  // orange
		color.RGBA{R: 128, G: 60, B: 170, A: 255}, // purple
		color.RGBA{R: 0, G: 150, B: 160, A: 255},  // teal
		color.RGBA{R: 140, G: 86, B: 75, A: 255},  // brown
		color.RGBA{R: 90, G: 90, B: 90, A: 255},   // grey
	}
	seriesDashes = [][]vg.Length{
		nil,
		{vg.Points(6), vg.Points(3)},
		{vg.Points(2), vg.Points(2)},
		{vg.Points(8), vg.Points(3), vg.Points(2), vg.Points(3)},
	}
	seriesGlyphs = []draw.GlyphDrawer{
		draw.CircleGlyph{}, draw.TriangleGlyph{}, draw.SquareGlyph{}, draw.CrossGlyph{},
		draw.PlusGlyph{}, draw.RingGlyph{}, draw.PyramidGlyph{}, draw.BoxGlyph{},
	}
)

func lineStyle(i int) draw.LineStyle {
	return draw.LineStyle{
		Color:  seriesColors[i%len(seriesColors)],
		Width:  vg.Points(1.6),
		Dashes: seriesDashes[i%len(seriesDashes)],
	}
}

func glyphStyle(i int) draw.GlyphStyle {
	return draw.GlyphStyle{
		Color:  seriesColors[i%len(seriesColors)],
		Radius: vg.Points(2),
		Shape:  seriesGlyphs[i%len(seriesGlyphs)],
	}
}

// segments splits the points (x_i, y_i) at every non-finite coordinate,
// so that unreliable values become gaps.
func segments(x, y []float64) []plotter.XYs {
	var out []plotter.XYs
	var cur plotter.XYs
	for i := range x {
		if !finite(x[i]) || !finite(y[i]) {
			if len(cur) > 0 {
				out = append(out, cur)
				cur = nil
			}
			continue
		}
		cur = append(cur, plotter.XY{X: x[i], Y: y[i]})
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// addSeries draws a line with point markers, broken at non-finite values,
// and returns its legend entry and whether any point was finite.
func addSeries(p *plot.Plot, label string, i int, x, y []float64) (legendEntry, bool) {
	return addSeriesAbove(p, label, i, x, y, math.Inf(-1))
}

// addSeriesAbove is addSeries with markers only for points with y ≥ ylo
// (the lines run on below the axis and are clipped there).
func addSeriesAbove(p *plot.Plot, label string, i int, x, y []float64, ylo float64) (legendEntry, bool) {
	segs := segments(x, y)
	ls, gs := lineStyle(i), glyphStyle(i)
	for _, s := range segs {
		if len(s) > 1 {
			if l, err := plotter.NewLine(s); err == nil {
				l.LineStyle = ls
				p.Add(l)
			}
		}
		var shown plotter.XYs
		for _, pt := range s {
			if pt.Y >= ylo {
				shown = append(shown, pt)
			}
		}
		if len(shown) > 0 {
			if sc, err := plotter.NewScatter(shown); err == nil {
				sc.GlyphStyle = gs
				p.Add(sc)
			}
		}
	}
	e := legendEntry{label: label, thumbs: []plot.Thumbnailer{&plotter.Line{LineStyle: ls}, &plotter.Scatter{GlyphStyle: gs}}}
	return e, len(segs) > 0
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// intTicks puts major ticks on integers only (numbers of components).
type intTicks struct{}

func (intTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi >= lo) || !finite(lo) || !finite(hi) {
		return nil
	}
	step := 1.0
	for _, s := range []float64{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000} {
		step = s
		if (hi-lo)/s <= 10 {
			break
		}
	}
	var ticks []plot.Tick
	for v := math.Ceil(lo/step) * step; v <= hi+1e-9; v += step {
		if v == 0 {
			v = 0 // not −0
		}
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', 0, 64)})
	}
	return ticks
}

// fmtWidth formats a kernel width compactly.
func fmtWidth(w float64) string { return strconv.FormatFloat(w, 'g', 4, 64) }

// niceTicks puts 4 to 8 labelled ticks on round numbers (1, 2, 2.5 or 5
// times a power of ten) and unlabelled minor ticks between them.
type niceTicks struct{}

func (niceTicks) Ticks(lo, hi float64) []plot.Tick {
	if !finite(lo) || !finite(hi) || !(hi > lo) {
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	span := hi - lo
	mag := math.Pow(10, math.Floor(math.Log10(span/6)))
	step := mag
	for _, f := range []float64{1, 2, 2.5, 5, 10} {
		step = f * mag
		if span/step <= 7 {
			break
		}
	}
	prec := max(0, -int(math.Floor(math.Log10(step)+1e-9)))
	if f := step / math.Pow(10, math.Floor(math.Log10(step)+1e-9)); math.Abs(f-2.5) < 1e-9 {
		prec++
	}
	var ticks []plot.Tick
	start := math.Ceil(lo/step-1e-9) * step
	for i := 0; ; i++ {
		v := start + float64(i)*step
		if v > hi+1e-9*span {
			break
		}
		if math.Abs(v) < 1e-12*span {
			v = 0
		}
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', prec, 64)})
		if mv := v + step/2; mv < hi {
			ticks = append(ticks, plot.Tick{Value: mv})
		}
	}
	if mv := start - step/2; mv > lo {
		ticks = append(ticks, plot.Tick{Value: mv})
	}
	return ticks
}
