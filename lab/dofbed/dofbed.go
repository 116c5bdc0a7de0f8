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

	"github.com/kpls-go/kpls/internal/sim"
	"github.com/kpls-go/kpls/kpls"
)

// Case is one data set and kernel to compare the estimators on.
type Case struct {
	Name string
	// Regime is the spectral regime the case stands for: fast decay,
	// slow decay, near-identity, one feature or wide.
	Regime string
	X      *mat.Dense
	Y      []float64
	Opts   kpls.Options // Kernel, Width, RawFeatures; Components and DoF are set by Run
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
	// Covered counts the (m, seed) whose approx value lies within ±2
	// standard errors of exact; Valued those with an approx value.
	Covered, Valued int
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

// Run fits every case with every method for m up to components, approx
// with seed 1.
func Run(ctx context.Context, cases []Case, components int, progress func(string)) ([]Result, error) {
	return RunSeeds(ctx, cases, components, 1, progress)
}

// RunSeeds is Run with approx repeated for seeds 1..seeds: its errors,
// nulls and ±2·se coverage are over every (m, seed); DoF and DoFSE keep
// seed 1.
func RunSeeds(ctx context.Context, cases []Case, components, seeds int, progress func(string)) ([]Result, error) {
	var out []Result
	for _, c := range cases {
		if progress != nil {
			progress(c.Name)
		}
		r := Result{Case: c.Name, N: len(c.Y), DoF: map[kpls.DoFMethod][]float64{}, MaxRel: map[kpls.DoFMethod]float64{},
			MeanRel: map[kpls.DoFMethod]float64{}, Refused: map[kpls.DoFMethod]int{}, Selected: map[kpls.DoFMethod]map[kpls.Criterion]int{}, Seconds: map[kpls.DoFMethod]float64{}}
		r.Components = components
		fit := func(meth kpls.DoFMethod, seed uint64) (*kpls.Model, error) {
			o := c.Opts
			o.Components = min(components, len(c.Y)-1)
			if o.Kernel == (kpls.Linear{}) {
				_, d := c.X.Dims()
				o.Components = min(o.Components, d)
			}
			o.DoF, o.Seed = meth, seed
			m, err := kpls.Fit(ctx, kpls.Data{X: c.X, Y: mat.NewVecDense(len(c.Y), c.Y)}, o, nil)
			if err != nil {
				return nil, fmt.Errorf("%s (%s): %w", c.Name, meth, err)
			}
			return m, nil
		}
		var approxRuns [][]kpls.Stats
		for _, meth := range Methods {
			t0 := time.Now()
			m, err := fit(meth, 1)
			if err != nil {
				return nil, err
			}
			r.Seconds[meth] = time.Since(t0).Seconds()
			r.Components = min(r.Components, len(m.Stats())-1)
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
				r.Selected[meth][crit] = m.ComponentsBy(crit)
			}
			if meth == kpls.DoFApprox {
				approxRuns = append(approxRuns, st)
				for seed := 2; seed <= seeds; seed++ {
					m, err := fit(meth, uint64(seed))
					if err != nil {
						return nil, err
					}
					approxRuns = append(approxRuns, m.Stats())
				}
			}
		}
		ex := r.DoF[kpls.DoFExact]
		rel := func(v float64, k int) float64 { return math.Abs(v-ex[k]) / ex[k] }
		{ // lanczos: one deterministic run
			var worst, sum float64
			cnt := 0
			for k := 1; k <= r.Components; k++ {
				e := rel(r.DoF[kpls.DoFLanczos][k], k)
				if math.IsNaN(e) {
					r.Refused[kpls.DoFLanczos]++
					continue
				}
				worst = math.Max(worst, e)
				sum += e
				cnt++
			}
			r.MaxRel[kpls.DoFLanczos] = worst
			r.MeanRel[kpls.DoFLanczos] = sum / float64(max(cnt, 1))
		}
		var worst, sum float64
		for _, st := range approxRuns {
			for k := 1; k <= r.Components; k++ {
				e := rel(st[k].DoF, k)
				if math.IsNaN(e) {
					r.Refused[kpls.DoFApprox]++
					continue
				}
				r.Valued++
				if math.Abs(st[k].DoF-ex[k]) <= 2*st[k].DoFSE {
					r.Covered++
				}
				worst = math.Max(worst, e)
				sum += e
			}
		}
		r.MaxRel[kpls.DoFApprox] = worst
		r.MeanRel[kpls.DoFApprox] = sum / float64(max(r.Valued, 1))
		out = append(out, r)
	}
	return out, nil
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

// FirstRows returns the first n rows of (x, y).
func FirstRows(x *mat.Dense, y []float64, n int) (*mat.Dense, []float64) {
	_, d := x.Dims()
	return mat.DenseCopyOf(x.Slice(0, n, 0, d)), append([]float64(nil), y[:n]...)
}

// RegimeCases are the spectral regimes where the approximate DoF used to
// fail, at many components: near-identity kernels (a width far below the
// data's spacing, or raw features of very different scales: DoF → n
// after 1–3 components), one feature (fast decay to the breakdown edge),
// slow and fast decay on kin8nm's first nKin rows, wide data (d ≫ n,
// RBF and linear) and a small n. kin8nm cases are left out when kinX is
// nil.
func RegimeCases(kinX *mat.Dense, kinY []float64, nKin int) []Case {
	var cs []Case
	if kinX != nil {
		x, y := FirstRows(kinX, kinY, 300)
		cs = append(cs, Case{Name: "near-identity kin8nm n=300 w=0.05", Regime: "near-identity", X: x, Y: y, Opts: kpls.Options{Kernel: kpls.RBF{Width: 0.05}}})
	}
	p := sim.ScaledFeatures(300, 6, 5)
	px, py := p.Matrix(), p.Y
	cs = append(cs, Case{Name: "near-identity raw-scales n=300 w=4.5", Regime: "near-identity", X: px, Y: py, Opts: kpls.Options{Kernel: kpls.RBF{Width: 4.5}, RawFeatures: true}})
	s := sim.Sinc(400, 3)
	sx, sy := s.Matrix(), s.Y
	for _, w := range []float64{0.01, 1} {
		cs = append(cs, Case{Name: fmt.Sprintf("one-feature sinc n=400 w=%g", w), Regime: "one feature", X: sx, Y: sy, Opts: kpls.Options{Kernel: kpls.RBF{Width: w}, RawFeatures: true}})
	}
	if kinX != nil {
		x, y := FirstRows(kinX, kinY, nKin)
		cs = append(cs,
			Case{Name: fmt.Sprintf("slow-decay kin8nm n=%d w=1", nKin), Regime: "slow decay", X: x, Y: y, Opts: kpls.Options{Kernel: kpls.RBF{Width: 1}}},
			Case{Name: fmt.Sprintf("fast-decay kin8nm n=%d w=16", nKin), Regime: "fast decay", X: x, Y: y, Opts: kpls.Options{Kernel: kpls.RBF{Width: 16}}})
	}
	wd := sim.Wide(200, 400, 3)
	wx, wy := wd.Matrix(), wd.Y
	cs = append(cs,
		Case{Name: "wide d=400 n=200 w=200", Regime: "wide", X: wx, Y: wy, Opts: kpls.Options{Kernel: kpls.RBF{Width: 200}}},
		Case{Name: "wide-linear d=400 n=200", Regime: "wide", X: wx, Y: wy, Opts: kpls.Options{Kernel: kpls.Linear{}}})
	u := sim.Uniform(50, 3, 21)
	ux, uy := u.Matrix(), u.Y
	cs = append(cs, Case{Name: "small uniform3 n=50 w=2", Regime: "slow decay", X: ux, Y: uy, Opts: kpls.Options{Kernel: kpls.RBF{Width: 2}}})
	return cs
}

// StandardCases is the whole test bed: the paper's sinc (n = 100, widths
// 0.01, 0.1, 1, raw x); kin8nm sub-samples of n rows (standardised) with
// widths 0.5…8, when kin8nm is given; 8-D uniform data with a narrow
// width; and RegimeCases (with kin8nm's first n rows).
func StandardCases(kinX *mat.Dense, kinY []float64, n int) []Case {
	s := sim.Sinc(100, 1)
	sx, sy := s.Matrix(), s.Y
	var cs []Case
	for _, w := range []float64{0.01, 0.1, 1} {
		reg := "fast decay"
		if w == 0.01 {
			reg = "slow decay"
		}
		cs = append(cs, Case{Name: fmt.Sprintf("sinc n=100 w=%g", w), Regime: reg, X: sx, Y: sy, Opts: kpls.Options{Kernel: kpls.RBF{Width: w}, RawFeatures: true}})
	}
	if kinX != nil {
		kx, ky := Subsample(kinX, kinY, n, 1)
		for _, w := range []float64{0.5, 1, 2, 4, 8} {
			reg := "slow decay"
			if w >= 4 {
				reg = "fast decay"
			}
			cs = append(cs, Case{Name: fmt.Sprintf("kin8nm n=%d w=%g", len(ky), w), Regime: reg, X: kx, Y: ky, Opts: kpls.Options{Kernel: kpls.RBF{Width: w}}})
		}
	}
	u := sim.Uniform(n, 8, 1)
	ux, uy := u.Matrix(), u.Y
	cs = append(cs, Case{Name: fmt.Sprintf("uniform8 n=%d w=0.5", n), Regime: "slow decay", X: ux, Y: uy, Opts: kpls.Options{Kernel: kpls.RBF{Width: 0.5}}})
	return append(cs, RegimeCases(kinX, kinY, n)...)
}

// RegimeSummary is the approx estimator's record over one regime.
type RegimeSummary struct {
	Regime                 string
	Cases                  int
	MaxRel                 float64 // worst relative error against exact
	Values, Nulls, Covered int     // (case, m, seed) with a value, without, within ±2·se
}

// Summarize groups results by regime, in order of first appearance.
func Summarize(cases []Case, rs []Result) []RegimeSummary {
	var out []RegimeSummary
	idx := map[string]int{}
	for i, r := range rs {
		reg := cases[i].Regime
		j, ok := idx[reg]
		if !ok {
			j = len(out)
			idx[reg] = j
			out = append(out, RegimeSummary{Regime: reg})
		}
		s := &out[j]
		s.Cases++
		s.MaxRel = math.Max(s.MaxRel, r.MaxRel[kpls.DoFApprox])
		s.Values += r.Valued
		s.Nulls += r.Refused[kpls.DoFApprox]
		s.Covered += r.Covered
	}
	return out
}

// WriteSummary writes the per-regime table: worst error, null fraction
// and ±2·se coverage of approx.
func WriteSummary(w io.Writer, ss []RegimeSummary) error {
	if _, err := fmt.Fprintln(w, "| regime | cases | approx worst error | null | exact within ±2·se |\n|---|---|---|---|---|"); err != nil {
		return err
	}
	for _, s := range ss {
		tot := s.Values + s.Nulls
		if _, err := fmt.Fprintf(w, "| %s | %d | %.2f %% | %d of %d | %d of %d (%.0f %%) |\n", s.Regime, s.Cases, 100*s.MaxRel,
			s.Nulls, tot, s.Covered, s.Values, 100*float64(s.Covered)/float64(max(s.Values, 1))); err != nil {
			return err
		}
	}
	return nil
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
