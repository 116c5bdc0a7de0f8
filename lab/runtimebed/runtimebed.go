package runtimebed

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"time"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/kpls-go/kpls/blas"
	"github.com/kpls-go/kpls/kpls"
	"github.com/kpls-go/kpls/lab/dofbed"
)

// Point is the median time of one fit (kernel, NIPALS and DoF) at size N.
type Point struct {
	Backend string
	Method  kpls.DoFMethod
	N       int
	Seconds float64
}

// Config sets up a run. Zero fields take the paper's values.
type Config struct {
	Sizes      []int          // sub-sample sizes; default 100…4000
	ExactMax   int            // largest n for the cubic exact DoF; default 2000
	Components int            // m; default 10
	Lanczos    int            // M; default 30
	Width      float64        // RBF width on standardised features; default 4
	Reps       int            // repetitions per point, the median is kept; default 3
	Probes     int            // probes behind the approx DoF; 0 means kpls's rule (64000/n within [16, 64])
	Backends   []blas.Float64 // default: blas.Default()
	Methods    []kpls.DoFMethod
	Progress   func(Point)
}

func (c *Config) defaults() {
	if len(c.Sizes) == 0 {
		c.Sizes = []int{100, 200, 500, 1000, 2000, 4000}
	}
	if c.ExactMax == 0 {
		c.ExactMax = 2000
	}
	if c.Components == 0 {
		c.Components = 10
	}
	if c.Lanczos == 0 {
		c.Lanczos = 30
	}
	if c.Width == 0 {
		c.Width = 4
	}
	if c.Reps == 0 {
		c.Reps = 3
	}
	if len(c.Backends) == 0 {
		c.Backends = []blas.Float64{blas.Default()}
	}
	if len(c.Methods) == 0 {
		c.Methods = []kpls.DoFMethod{kpls.DoFExact, kpls.DoFApprox, kpls.DoFLanczos}
	}
}

// Run times every size, backend and method on sub-samples of (x, y).
func Run(ctx context.Context, x *mat.Dense, y []float64, c Config) ([]Point, error) {
	c.defaults()
	var out []Point
	for _, n := range c.Sizes {
		sx, sy := dofbed.Subsample(x, y, n, 1)
		for _, bl := range c.Backends {
			for _, meth := range c.Methods {
				if meth == kpls.DoFExact && n > c.ExactMax {
					continue
				}
				o := kpls.Options{Width: c.Width, Components: c.Components, Lanczos: c.Lanczos, DoF: meth, Backend: bl, Probes: c.Probes}
				times := make([]float64, c.Reps)
				for r := range times {
					t0 := time.Now()
					if _, err := kpls.Fit(ctx, sx, sy, o); err != nil {
						return nil, fmt.Errorf("n=%d %s: %w", n, meth, err)
					}
					times[r] = time.Since(t0).Seconds()
				}
				sort.Float64s(times)
				p := Point{Backend: blas.Name(bl), Method: meth, N: len(sy), Seconds: times[len(times)/2]}
				out = append(out, p)
				if c.Progress != nil {
					c.Progress(p)
				}
			}
		}
	}
	return out, nil
}

// Exponent fits log t = a + b log n over the points of one backend and
// method with nMin ≤ n ≤ nMax and returns b (NaN with fewer than 2).
func Exponent(ps []Point, backend string, meth kpls.DoFMethod, nMin, nMax int) float64 {
	var lx, ly []float64
	for _, p := range ps {
		if p.Backend == backend && p.Method == meth && p.N >= nMin && p.N <= nMax {
			lx = append(lx, math.Log(float64(p.N)))
			ly = append(ly, math.Log(p.Seconds))
		}
	}
	if len(lx) < 2 {
		return math.NaN()
	}
	_, b := stat.LinearRegression(lx, ly, nil, false)
	return b
}

// WriteCSV writes backend, method, n, seconds.
func WriteCSV(w io.Writer, ps []Point) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"backend", "dof", "n", "seconds"})
	for _, p := range ps {
		_ = cw.Write([]string{p.Backend, string(p.Method), strconv.Itoa(p.N), strconv.FormatFloat(p.Seconds, 'g', 6, 64)})
	}
	cw.Flush()
	return cw.Error()
}

// Plot draws time against n on log–log axes, one line per backend and
// method, to a PNG or SVG file (by extension).
func Plot(path string, ps []Point) error {
	p := plot.New()
	p.Title.Text = "KPLS fit time: exact versus approximate degrees of freedom"
	p.X.Label.Text = "n (training points)"
	p.Y.Label.Text = "seconds"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	p.Legend.Top, p.Legend.Left = true, true
	type key struct {
		b string
		m kpls.DoFMethod
	}
	series := map[key]plotter.XYs{}
	var keys []key
	for _, pt := range ps {
		k := key{pt.Backend, pt.Method}
		if _, ok := series[k]; !ok {
			keys = append(keys, k)
		}
		series[k] = append(series[k], plotter.XY{X: float64(pt.N), Y: math.Max(pt.Seconds, 1e-6)})
	}
	if len(keys) == 0 {
		return fmt.Errorf("runtimebed: nothing to plot")
	}
	for i, k := range keys {
		l, s, err := plotter.NewLinePoints(series[k])
		if err != nil {
			return err
		}
		l.Color = plotutil.Color(i)
		s.Color = plotutil.Color(i)
		s.Shape = plotutil.Shape(i)
		p.Add(l, s)
		// The slope over n ≥ 1000 where there are two such sizes: below
		// that, fixed costs hide the asymptotic order.
		slope := Exponent(ps, k.b, k.m, 1000, math.MaxInt)
		if math.IsNaN(slope) {
			slope = Exponent(ps, k.b, k.m, 0, math.MaxInt)
		}
		p.Legend.Add(fmt.Sprintf("%s, %s (slope %.2f)", k.m, k.b, slope), l, s)
	}
	return p.Save(16*vg.Centimeter, 11*vg.Centimeter, path)
}
