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

	"github.com/kpls-go/kpls/blas"
	"github.com/kpls-go/kpls/kpls"
	"github.com/kpls-go/kpls/lab/dofbed"
	"github.com/kpls-go/kpls/plots"
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
				o := kpls.Options{Kernel: kpls.RBF{Width: c.Width}, Components: c.Components, Lanczos: c.Lanczos, DoF: meth, Probes: c.Probes}
				times := make([]float64, c.Reps)
				for r := range times {
					t0 := time.Now()
					if _, err := kpls.Fit(ctx, kpls.Data{X: sx, Y: mat.NewVecDense(len(sy), sy)}, o, &kpls.Resources{Backend: bl}); err != nil {
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

// Slope is the fitted exponent b of time ∝ n^b for one backend and
// method over NMin ≤ n ≤ NMax.
type Slope struct {
	Backend    string
	Method     kpls.DoFMethod
	NMin, NMax int
	Exponent   float64
}

// Slopes fits time ∝ n^b per backend and method, in order of first
// appearance, over n ≥ 1000 (all sizes when fewer than two reach 1000):
// below that, fixed costs hide the asymptotic order.
func Slopes(ps []Point) []Slope {
	type key struct {
		b string
		m kpls.DoFMethod
	}
	seen := map[key][]int{}
	var keys []key
	for _, p := range ps {
		k := key{p.Backend, p.Method}
		if _, ok := seen[k]; !ok {
			keys = append(keys, k)
		}
		seen[k] = append(seen[k], p.N)
	}
	var out []Slope
	for _, k := range keys {
		ns := seen[k]
		sort.Ints(ns)
		lo := 1000
		if big := sort.SearchInts(ns, lo); len(ns)-big < 2 {
			lo = ns[0]
		}
		hi := ns[len(ns)-1]
		out = append(out, Slope{Backend: k.b, Method: k.m, NMin: lo, NMax: hi, Exponent: Exponent(ps, k.b, k.m, lo, hi)})
	}
	return out
}

// Series returns the points as plots.RuntimeVersusN draws them: one line
// per backend and method, labelled with its slope.
func Series(ps []Point) []plots.TimeSeries {
	var out []plots.TimeSeries
	for _, sl := range Slopes(ps) {
		s := plots.TimeSeries{Label: fmt.Sprintf("%s, %s (slope %.2f)", sl.Method, sl.Backend, sl.Exponent)}
		for _, p := range ps {
			if p.Backend == sl.Backend && p.Method == sl.Method {
				s.N = append(s.N, p.N)
				s.Seconds = append(s.Seconds, p.Seconds)
			}
		}
		out = append(out, s)
	}
	return out
}
