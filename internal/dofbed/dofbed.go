package dofbed

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/kpls"
)

// Case is one data set and kernel to compare the estimators on.
type Case struct {
	Name string
	X    *mat.Dense
	Y    []float64
	Opts kpls.Options // Kernel, Width, RawFeatures; Components and DoF are set by Run
}

// Methods are the estimators compared, exact first.
var Methods = []kpls.DoFMethod{kpls.DoFExact, kpls.DoFLanczos, kpls.DoFApprox}

// Result holds one case's DoF per method and m, and the summary.
type Result struct {
	Case       string
	N          int
	Components int // valid components compared
	// DoF[method][m], m = 0..Components; NaN where a method refused.
	DoF   map[kpls.DoFMethod][]float64
	DoFSE []float64 // standard errors of approx
	// MaxRel and MeanRel are relative errors against exact over m = 1..Components.
	MaxRel, MeanRel map[kpls.DoFMethod]float64
	// Refused counts the m for which a method reported no value.
	Refused map[kpls.DoFMethod]int
	// Selected[method][criterion] is the m chosen with that method's DoF.
	Selected map[kpls.DoFMethod]map[kpls.Criterion]int
	Seconds  map[kpls.DoFMethod]float64
}

// SameSelection reports whether method selects the same m as exact for
// every criterion.
func (r *Result) SameSelection(method kpls.DoFMethod) bool {
	for c, m := range r.Selected[kpls.DoFExact] {
		if r.Selected[method][c] != m {
			return false
		}
	}
	return true
}

// Run fits every case with every method for m up to components.
func Run(ctx context.Context, cases []Case, components int, progress func(string)) ([]Result, error) {
	var out []Result
	for _, c := range cases {
		if progress != nil {
			progress(c.Name)
		}
		r := Result{Case: c.Name, N: len(c.Y), DoF: map[kpls.DoFMethod][]float64{}, MaxRel: map[kpls.DoFMethod]float64{},
			MeanRel: map[kpls.DoFMethod]float64{}, Refused: map[kpls.DoFMethod]int{}, Selected: map[kpls.DoFMethod]map[kpls.Criterion]int{}, Seconds: map[kpls.DoFMethod]float64{}}
		r.Components = components
		for _, meth := range Methods {
			o := c.Opts
			o.Components = components
			o.DoF = meth
			t0 := time.Now()
			m, err := kpls.Fit(ctx, c.X, c.Y, o)
			if err != nil {
				return nil, fmt.Errorf("%s (%s): %w", c.Name, meth, err)
			}
			r.Seconds[meth] = time.Since(t0).Seconds()
			r.Components = min(r.Components, m.Components())
			st := m.Stats()
			dof := make([]float64, len(st))
			for i, s := range st {
				dof[i] = s.DoF
				if meth == kpls.DoFApprox {
					r.DoFSE = append(r.DoFSE, s.DoFSE)
				}
			}
			r.DoF[meth] = dof
			r.Selected[meth] = map[kpls.Criterion]int{}
			for _, crit := range []kpls.Criterion{kpls.AIC, kpls.BIC, kpls.GMDL} {
				r.Selected[meth][crit] = m.Select(crit)
			}
		}
		ex := r.DoF[kpls.DoFExact]
		for _, meth := range Methods[1:] {
			var worst, sum float64
			cnt := 0
			for k := 1; k <= r.Components; k++ {
				e := math.Abs(r.DoF[meth][k]-ex[k]) / ex[k]
				if math.IsNaN(e) {
					r.Refused[meth]++
					continue
				}
				worst = math.Max(worst, e)
				sum += e
				cnt++
			}
			r.MaxRel[meth] = worst
			r.MeanRel[meth] = sum / float64(max(cnt, 1))
		}
		out = append(out, r)
	}
	return out, nil
}

// Sinc is the paper's simulation (x ~ U(−π,π), y = sin(x)/x + N(0, 0.1²)).
func Sinc(n int, seed uint64) (*mat.Dense, []float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	x := mat.NewDense(n, 1, nil)
	y := make([]float64, n)
	for i := range y {
		v := (2*rng.Float64() - 1) * math.Pi
		x.Set(i, 0, v)
		y[i] = math.Sin(v)/v + 0.1*rng.NormFloat64()
	}
	return x, y
}

// Uniform is a flat-spectrum case: d-dimensional uniform inputs,
// y = Σ sin(3x_j) + N(0, 0.3²).
func Uniform(n, d int, seed uint64) (*mat.Dense, []float64) {
	rng := rand.New(rand.NewPCG(seed, 2))
	x := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := range y {
		for j := 0; j < d; j++ {
			v := rng.Float64()
			x.Set(i, j, v)
			y[i] += math.Sin(3 * v)
		}
		y[i] += 0.3 * rng.NormFloat64()
	}
	return x, y
}

// Subsample returns n rows of (x, y) chosen with a seeded permutation.
func Subsample(x *mat.Dense, y []float64, n int, seed uint64) (*mat.Dense, []float64) {
	rows, d := x.Dims()
	n = min(n, rows)
	perm := rand.New(rand.NewPCG(seed, 3)).Perm(rows)[:n]
	sx := mat.NewDense(n, d, nil)
	sy := make([]float64, n)
	for i, p := range perm {
		sx.SetRow(i, x.RawRowView(p))
		sy[i] = y[p]
	}
	return sx, sy
}

// StandardCases is the test bed: sinc n = 100 with widths 0.01,
// 0.1, 1 (raw x); kin8nm sub-samples of n rows (standardised) with widths
// 0.5…8, when kin8nm is given; and 8-D uniform data with a narrow width.
func StandardCases(kinX *mat.Dense, kinY []float64, n int) []Case {
	sx, sy := Sinc(100, 1)
	var cs []Case
	for _, w := range []float64{0.01, 0.1, 1} {
		cs = append(cs, Case{Name: fmt.Sprintf("sinc n=100 w=%g", w), X: sx, Y: sy, Opts: kpls.Options{Width: w, RawFeatures: true}})
	}
	if kinX != nil {
		kx, ky := Subsample(kinX, kinY, n, 1)
		for _, w := range []float64{0.5, 1, 2, 4, 8} {
			cs = append(cs, Case{Name: fmt.Sprintf("kin8nm n=%d w=%g", len(ky), w), X: kx, Y: ky, Opts: kpls.Options{Width: w}})
		}
	}
	ux, uy := Uniform(n, 8, 1)
	cs = append(cs, Case{Name: fmt.Sprintf("uniform8 n=%d w=0.5", n), X: ux, Y: uy, Opts: kpls.Options{Width: 0.5}})
	return cs
}

// WriteReport writes a Markdown table: per case the maximum and mean
// relative error of lanczos and approx against exact, whether the
// criteria select the same m, and the time of each method.
func WriteReport(w io.Writer, rs []Result) error {
	pct := func(v float64) string { return fmt.Sprintf("%.2f %%", 100*v) }
	refused := func(r *Result, m kpls.DoFMethod) string {
		if k := r.Refused[m]; k > 0 {
			return fmt.Sprintf(" (%d refused)", k)
		}
		return ""
	}
	same := func(r *Result, m kpls.DoFMethod) string {
		if r.SameSelection(m) {
			return "yes"
		}
		s := ""
		for _, c := range []kpls.Criterion{kpls.AIC, kpls.BIC, kpls.GMDL} {
			s += fmt.Sprintf("%s %d/%d ", c, r.Selected[m][c], r.Selected[kpls.DoFExact][c])
		}
		return "no: " + s
	}
	if _, err := fmt.Fprintln(w, "| case | m | lanczos max | lanczos mean | approx max | approx mean | same m (lanczos) | same m (approx) | s exact | s lanczos | s approx |\n|---|---|---|---|---|---|---|---|---|---|---|"); err != nil {
		return err
	}
	for i := range rs {
		r := &rs[i]
		_, err := fmt.Fprintf(w, "| %s | 1..%d | %s | %s | %s | %s | %s | %s | %.3f | %.3f | %.3f |\n", r.Case, r.Components,
			pct(r.MaxRel[kpls.DoFLanczos])+refused(r, kpls.DoFLanczos), pct(r.MeanRel[kpls.DoFLanczos]),
			pct(r.MaxRel[kpls.DoFApprox])+refused(r, kpls.DoFApprox), pct(r.MeanRel[kpls.DoFApprox]),
			same(r, kpls.DoFLanczos), same(r, kpls.DoFApprox), r.Seconds[kpls.DoFExact], r.Seconds[kpls.DoFLanczos], r.Seconds[kpls.DoFApprox])
		if err != nil {
			return err
		}
	}
	return nil
}

// WriteCSV writes one row per case, method and m.
func WriteCSV(w io.Writer, rs []Result) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"case", "method", "m", "dof", "dof_se", "exact"}); err != nil {
		return err
	}
	for _, r := range rs {
		for _, meth := range Methods {
			for k := 0; k <= r.Components; k++ {
				se := 0.0
				if meth == kpls.DoFApprox && k < len(r.DoFSE) {
					se = r.DoFSE[k]
				}
				if err := cw.Write([]string{r.Case, string(meth), strconv.Itoa(k), fmtF(r.DoF[meth][k]), fmtF(se), fmtF(r.DoF[kpls.DoFExact][k])}); err != nil {
					return err
				}
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

func fmtF(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return strconv.FormatFloat(v, 'g', 10, 64)
}
