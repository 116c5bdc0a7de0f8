package plots

import (
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// legendEntry is one line of a legend.
type legendEntry struct {
	label  string
	thumbs []plot.Thumbnailer
}

const (
	legendFont            = 9 // points
	legendThumb vg.Length = 24
	legendGap   vg.Length = 14
)

// newLegend returns a legend with the package's type size.
func newLegend() plot.Legend {
	l := plot.NewLegend()
	l.TextStyle.Font.Size = vg.Points(legendFont)
	l.ThumbnailWidth = legendThumb
	l.Padding = vg.Points(3)
	l.Left, l.Top = true, true
	return l
}

// entryWidth is the horizontal room one entry takes in a strip.
func entryWidth(l plot.Legend, e legendEntry) vg.Length {
	return l.ThumbnailWidth + l.TextStyle.Width(" "+e.label) + legendGap
}

// stripRows splits the entries into rows that fit in width w.
func stripRows(w vg.Length, entries []legendEntry) [][]legendEntry {
	l := newLegend()
	var rows [][]legendEntry
	var cur []legendEntry
	var used vg.Length
	for _, e := range entries {
		ew := entryWidth(l, e)
		if len(cur) > 0 && used+ew > w {
			rows = append(rows, cur)
			cur, used = nil, 0
		}
		cur = append(cur, e)
		used += ew
	}
	if len(cur) > 0 {
		rows = append(rows, cur)
	}
	return rows
}

// rowHeight is the height of one row of a legend strip.
func rowHeight() vg.Length {
	l := newLegend()
	return l.TextStyle.FontExtents().Height * 1.4
}

// stripHeight is the height a horizontal legend of the entries needs in
// width w (zero for no entries).
func stripHeight(w vg.Length, entries []legendEntry) vg.Length {
	if len(entries) == 0 {
		return 0
	}
	return vg.Length(len(stripRows(w, entries)))*rowHeight() + 2*vg.Millimeter
}

// drawStrip draws the entries as a horizontal legend, rows centred, from
// the top of c.
func drawStrip(c draw.Canvas, entries []legendEntry) {
	if len(entries) == 0 {
		return
	}
	w := c.Max.X - c.Min.X
	rh := rowHeight()
	y := c.Max.Y - vg.Millimeter
	for _, row := range stripRows(w, entries) {
		l := newLegend()
		var total vg.Length
		for _, e := range row {
			total += entryWidth(l, e)
		}
		x := c.Min.X + (w-total+legendGap)/2
		for _, e := range row {
			ew := entryWidth(l, e)
			one := newLegend()
			one.Add(e.label, e.thumbs...)
			sub := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
				Min: vg.Point{X: x, Y: y - rh},
				Max: vg.Point{X: x + ew, Y: y},
			}}
			one.Draw(sub)
			x += ew
		}
		y -= rh
	}
}

// saveWithStrip writes a single plot with a horizontal legend strip above
// (top) or below it; the strip adds to the height h.
func saveWithStrip(path string, w, h vg.Length, p *plot.Plot, entries []legendEntry, top bool) error {
	sh := stripHeight(w, entries)
	return render(path, w, h+sh, func(dc draw.Canvas) {
		if top {
			drawStrip(draw.Crop(dc, 0, 0, h, 0), entries)
			p.Draw(draw.Crop(dc, 0, 0, 0, -sh))
		} else {
			drawStrip(draw.Crop(dc, 0, 0, 0, -h), entries)
			p.Draw(draw.Crop(dc, 0, 0, sh, 0))
		}
	})
}

// addEntries puts the entries into the plot's own legend.
func addEntries(p *plot.Plot, entries []legendEntry) {
	for _, e := range entries {
		p.Legend.Add(e.label, e.thumbs...)
	}
}

// addLegend puts the entries into a legend.
func addLegend(l *plot.Legend, entries []legendEntry) {
	for _, e := range entries {
		l.Add(e.label, e.thumbs...)
	}
}
