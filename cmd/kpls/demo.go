package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"text/tabwriter"
	"time"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/kpls-go/kpls/blas"
	"github.com/kpls-go/kpls/kpls"
	"github.com/kpls-go/kpls/lab/demodata"
	"github.com/kpls-go/kpls/lab/sim"
)

// Demo settings: the paper's choices where it makes them.
var (
	demoKinWidths  = []float64{1, 2, 4, 8, 16}
	demoSincWidths = []float64{0.01, 0.1, 1}
)

const (
	demoComponents = 10
	// demoKinMaxComponents bounds the kin8nm selection's extension.
	demoKinMaxComponents = 40
	demoLanczos          = 30
	demoLevel            = 0.98
	demoSincN            = 100
	demoShow             = 6 // test predictions printed
)

type demoJSON struct {
	Kin8nm  kinJSON  `json:"kin8nm"`
	Sinc    sincJSON `json:"sinc"`
	Seconds float64  `json:"seconds"`
}

type kinJSON struct {
	Rows       int            `json:"rows"`
	TestRows   int            `json:"test_rows"`
	Seed       uint64         `json:"seed"`
	Widths     []float64      `json:"widths"`
	DoFMethod  kpls.DoFMethod `json:"dof_method"`
	Lanczos    int            `json:"lanczos"`
	Components int            `json:"components"`
	Table      []rowJSON      `json:"table"`
	Best       bestJSON       `json:"best"`
	Warnings   []string       `json:"warnings"`
	Test       testJSON       `json:"test"`
	Seconds    float64        `json:"seconds"`
}

type testJSON struct {
	M     int     `json:"m"` // the components the bands use (the chosen m unless its bands were refused)
	Level float64 `json:"level"`
	RMSE  float64 `json:"rmse"`
	// Coverage is the share of held-out targets inside the confidence band
	// for f(x); PredictionCoverage widens it by the noise, se² + σ̂².
	Coverage           float64     `json:"coverage"`
	PredictionCoverage float64     `json:"prediction_coverage"`
	Predictions        []pointJSON `json:"predictions"`
}

type pointJSON struct {
	Row   int `json:"row"` // 1-based row of kin8nm
	Y     num `json:"y"`
	Yhat  num `json:"yhat"`
	SE    num `json:"se"`
	Lower num `json:"lower"`
	Upper num `json:"upper"`
}

type sincJSON struct {
	N        int            `json:"n"`
	Seed     uint64         `json:"seed"`
	Widths   []float64      `json:"widths"`
	Table    []rowJSON      `json:"table"`
	Best     bestJSON       `json:"best"`
	DoF      []sincDoFJSON  `json:"dof"`
	Selected map[string]int `json:"selected_by_gmdl"`
	Warnings []string       `json:"warnings"`
	Band     []sincBandJSON `json:"band"`
}

type sincDoFJSON struct {
	M        int `json:"m"`
	Exact    num `json:"exact"`
	Lanczos  num `json:"lanczos"`
	Approx   num `json:"approx"`
	ApproxSE num `json:"approx_se"`
}

type sincBandJSON struct {
	X     float64 `json:"x"`
	Sinc  float64 `json:"sinc"`
	Yhat  num     `json:"yhat"`
	Lower num     `json:"lower"`
	Upper num     `json:"upper"`
}

func runDemo(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("demo", "[flags]",
		"Runs the package on built-in data:\n"+
			"  kin8nm (8192×8, embedded): a seeded random subsample of --rows rows, selection over RBF widths\n"+
			"  1, 2, 4, 8, 16 (standardised features) by GCV with the approximate DoF (no refits; 10 components,\n"+
			"  extended up to 40 while the choice sits at the largest), the winning fit, and 98 % confidence\n"+
			"  bands on --test held-out rows;\n"+
			"  sinc (the paper's simulation, n = 100, raw x): selection over widths 0.01, 0.1, 1 by gMDL, and\n"+
			"  the exact, Lanczos and approximate DoF side by side for the chosen width.")
	var c common
	rows := fs.Int("rows", 2000, "kin8nm training rows, drawn at random (seeded) from the 8192")
	test := fs.Int("test", 500, "kin8nm held-out rows for the bands' coverage")
	seed := fs.Uint64("seed", 1, "seed of the kin8nm subsample, the sinc data and the DoF probes")
	c.register(fs, true)
	if err := fs.parse(e, args); err != nil {
		return err
	}
	backend, err := c.blasBackend()
	if err != nil {
		return err
	}
	x, n, d, y, names := demodata.Kin8nm()
	switch {
	case *rows < 10 || *rows > n-1:
		return usagef("--rows: %d, want 10..%d", *rows, n-1)
	case *test < 1 || *test > n-*rows:
		return usagef("--test: %d, want 1..%d (the rows not used for training)", *test, n-*rows)
	}
	w := c.text(e)
	prog := newProgress(c.progress, e.stderr)
	start := time.Now()
	var out demoJSON

	// kin8nm.
	rng := rand.New(rand.NewPCG(*seed, 0xd3_0d3))
	perm := rng.Perm(n)
	trainIdx, testIdx := perm[:*rows], perm[*rows:*rows+*test]
	xtr, ytr := pick(x, y, d, trainIdx)
	xte, yte := pick(x, y, d, testIdx)
	opts := kpls.Options{Components: demoComponents, DoF: kpls.DoFApprox, Lanczos: demoLanczos, Seed: *seed,
		FeatureNames: names[:d], TargetName: names[d], Backend: backend, Progress: prog.callback()}
	sel, err := kpls.Select(ctx, mat.NewDense(*rows, d, xtr), ytr,
		kpls.SelectOptions{Kernels: []kpls.Kernel{kpls.RBF{}}, Widths: demoKinWidths, Criterion: kpls.GCV, MaxComponents: demoKinMaxComponents}, opts)
	prog.done()
	if err != nil {
		return fmt.Errorf("demo kin8nm: %w", err)
	}
	best := sel.Best
	m := sel.Model
	// Bands at the chosen m; where they are not numerically reliable
	// (the library refuses rather than return them), at the largest
	// smaller m whose bands are, and the output says so.
	warns := kpls.Messages(sel.Warnings)
	bandsM := best.M
	bands, err := m.PredictBands(ctx, mat.NewDense(*test, d, xte), bandsM, kpls.BandOptions{Level: demoLevel})
	first := err
	for errors.Is(err, kpls.ErrUnreliable) && bandsM > 0 {
		bandsM--
		bands, err = m.PredictBands(ctx, mat.NewDense(*test, d, xte), bandsM, kpls.BandOptions{Level: demoLevel})
	}
	prog.done()
	if err != nil {
		return fmt.Errorf("demo kin8nm bands: %w", err)
	}
	if bandsM != best.M {
		warns = append(warns, fmt.Sprintf("bands for the chosen m = %d were refused (%v): shown for m = %d, the largest m below it whose bands are reliable", best.M, first, bandsM))
	}
	bandSigma := m.Stats()[bandsM].Sigma
	k := &out.Kin8nm
	*k = kinJSON{Rows: *rows, TestRows: *test, Seed: *seed, Widths: demoKinWidths, DoFMethod: kpls.DoFApprox,
		Lanczos: demoLanczos, Components: demoComponents, Table: tableJSON(sel.Table), Best: bestOf(sel),
		Warnings: nonNil(warns), Test: coverage(bands, yte, bandSigma, testIdx)}
	k.Test.M = bandsM
	k.Seconds = time.Since(start).Seconds()

	fmt.Fprintf(w, "kin8nm: %d of 8192 rows drawn at random (seed %d) for training, %d other rows held out\n", *rows, *seed, *test)
	fmt.Fprintf(w, "RBF kernel on standardised features, %d components (extended up to %d), approximate DoF (M = %d Lanczos steps), %s\n\n",
		demoComponents, demoKinMaxComponents, demoLanczos, sel.Criterion)
	widthSummary(w, sel)
	fmt.Fprintf(w, "\nwinner: width %g with m = %d (%s %s, DoF %s, σ̂ %s)\n\n", best.Width(), best.M, sel.Criterion, f(best.Score(sel.Criterion)), f(best.DoF), f(best.Sigma))
	statsTable(w, m.Stats(), best.M, false, 0)
	t := k.Test
	fmt.Fprintf(w, "\n%d held-out rows, %.0f %% bands with m = %d (se² = σ̂²(‖H_mᵀk_c(x)‖² + 1/n)), first %d:\n", *test, 100*demoLevel, bandsM, len(t.Predictions))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "row\ty\tyhat\tse\tlower\tupper\t\n")
	for _, p := range t.Predictions {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t\n", p.Row, f(float64(p.Y)), f(float64(p.Yhat)), f(float64(p.SE)), f(float64(p.Lower)), f(float64(p.Upper)))
	}
	tw.Flush()
	fmt.Fprintf(w, "test RMSE %.4g (training σ̂ %.4g); targets inside the confidence band for f(x): %.1f %%;\n", t.RMSE, bandSigma, 100*t.Coverage)
	fmt.Fprintf(w, "inside the prediction interval (se² + σ̂², adds the noise): %.1f %% (nominal %.0f %%)\n", 100*t.PredictionCoverage, 100*demoLevel)
	printWarnings(w, warns)
	fmt.Fprintf(w, "(%.1f s)\n\n", k.Seconds)

	// sinc.
	if err := demoSinc(ctx, w, &out.Sinc, *seed, backend, prog); err != nil {
		return err
	}
	out.Seconds = time.Since(start).Seconds()
	if c.json {
		return writeJSON(e.stdout, out)
	}
	fmt.Fprintf(w, "total %.1f s\n", out.Seconds)
	return nil
}

// pick gathers the rows idx of x (·×d) and y.
func pick(x, y []float64, d int, idx []int) ([]float64, []float64) {
	xs := make([]float64, 0, len(idx)*d)
	ys := make([]float64, 0, len(idx))
	for _, i := range idx {
		xs = append(xs, x[i*d:(i+1)*d]...)
		ys = append(ys, y[i])
	}
	return xs, ys
}

// coverage compares bands with held-out targets.
func coverage(bands []kpls.Band, y []float64, sigma float64, rows []int) testJSON {
	z := distuv.UnitNormal.Quantile(1 - (1-demoLevel)/2)
	t := testJSON{Level: demoLevel}
	var sse float64
	inConf, inPred := 0, 0
	for i, b := range bands {
		r := y[i] - b.Yhat
		sse += r * r
		if y[i] >= b.Lower && y[i] <= b.Upper {
			inConf++
		}
		if math.Abs(r) <= z*math.Hypot(b.SE, sigma) {
			inPred++
		}
		if i < demoShow {
			t.Predictions = append(t.Predictions, pointJSON{Row: rows[i] + 1, Y: num(y[i]), Yhat: num(b.Yhat),
				SE: num(b.SE), Lower: num(b.Lower), Upper: num(b.Upper)})
		}
	}
	n := float64(len(bands))
	t.RMSE = math.Sqrt(sse / n)
	t.Coverage = float64(inConf) / n
	t.PredictionCoverage = float64(inPred) / n
	return t
}

// widthSummary writes one line per width with a choice: its valid
// components and the row kpls.Select chose there (Selection.Choices).
func widthSummary(w io.Writer, sel *kpls.Selection) {
	valid := map[float64]int{}
	for _, r := range sel.Table {
		valid[r.Width()] = max(valid[r.Width()], r.M)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "width\tvalid m\tchosen m\t%s\tRSS\tDoF\tsigma\t\n", sel.Criterion)
	for _, r := range sel.Choices {
		mark := ""
		if r.Width() == sel.Best.Width() {
			mark = " <= best"
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\n", f(r.Width()), valid[r.Width()], r.M, f(r.Score(sel.Criterion)), f(r.RSS), f(r.DoF), f(r.Sigma), mark)
	}
	tw.Flush()
}

// demoSinc runs the paper's simulation: selection over widths, then the
// three DoF methods side by side for the chosen width, and the band.
func demoSinc(ctx context.Context, w io.Writer, s *sincJSON, seed uint64, backend blas.Float64, prog *progress) error {
	sd := sim.Sinc(demoSincN, seed)
	x, ys := sd.Matrix(), sd.Y
	base := kpls.Options{Components: demoComponents, Lanczos: demoLanczos, RawFeatures: true, Seed: seed,
		FeatureNames: []string{"x"}, TargetName: "y", Backend: backend, Progress: prog.callback()}
	o := base
	o.DoF = kpls.DoFApprox
	sel, err := kpls.Select(ctx, x, ys, demoSelect(demoSincWidths), o)
	prog.done()
	if err != nil {
		return fmt.Errorf("demo sinc: %w", err)
	}
	width := sel.Best.Width()
	fits := map[kpls.DoFMethod]*kpls.Model{kpls.DoFApprox: sel.Model}
	for _, method := range []kpls.DoFMethod{kpls.DoFExact, kpls.DoFLanczos} {
		o := base
		o.DoF, o.Kernel = method, kpls.RBF{Width: width}
		m, err := kpls.Fit(ctx, x, ys, o)
		prog.done()
		if err != nil {
			return fmt.Errorf("demo sinc, %s DoF: %w", method, err)
		}
		fits[method] = m
	}
	*s = sincJSON{N: demoSincN, Seed: seed, Widths: demoSincWidths, Table: tableJSON(sel.Table), Best: bestOf(sel),
		Selected: map[string]int{}, Warnings: nonNil(kpls.Messages(sel.Warnings))}
	ex, lz, ap := fits[kpls.DoFExact].Stats(), fits[kpls.DoFLanczos].Stats(), fits[kpls.DoFApprox].Stats()
	for i := 0; i < min(len(ex), len(lz), len(ap)); i++ {
		s.DoF = append(s.DoF, sincDoFJSON{M: i, Exact: num(ex[i].DoF), Lanczos: num(lz[i].DoF), Approx: num(ap[i].DoF), ApproxSE: num(ap[i].DoFSE)})
	}
	for method, m := range fits {
		s.Selected[string(method)] = m.ComponentsBy(kpls.GMDL)
		for _, wn := range m.Warnings() {
			if method != kpls.DoFApprox {
				s.Warnings = append(s.Warnings, fmt.Sprintf("width %g, %s DoF: %s", width, method, wn))
			}
		}
	}
	grid := []float64{-3, -2, -1, -0.5, 0.5, 1, 2, 3}
	bands, err := sel.Model.PredictBands(ctx, mat.NewDense(len(grid), 1, grid), sel.Best.M, kpls.BandOptions{Level: demoLevel})
	if err != nil {
		return fmt.Errorf("demo sinc bands: %w", err)
	}
	for i, b := range bands {
		s.Band = append(s.Band, sincBandJSON{X: grid[i], Sinc: math.Sin(grid[i]) / grid[i], Yhat: num(b.Yhat), Lower: num(b.Lower), Upper: num(b.Upper)})
	}

	fmt.Fprintf(w, "sinc: the paper's simulation, n = %d (seed %d): x ~ U(−π, π), y = sin(x)/x + N(0, 0.1²), raw x\n", demoSincN, seed)
	fmt.Fprintf(w, "RBF widths %v, %d components, approximate DoF (M = %d), gMDL\n\n", demoSincWidths, demoComponents, demoLanczos)
	widthSummary(w, sel)
	fmt.Fprintf(w, "\nwinner: width %g with m = %d; DoF of that width by method (including the intercept):\n", width, sel.Best.M)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "m\texact\tlanczos\tapprox\t± se\t\n")
	for _, r := range s.DoF {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t\n", r.M, f(float64(r.Exact)), f(float64(r.Lanczos)), f(float64(r.Approx)), f(float64(r.ApproxSE)))
	}
	tw.Flush()
	fmt.Fprintf(w, "gMDL picks m = %d with exact DoF, %d with lanczos, %d with approx\n",
		s.Selected[string(kpls.DoFExact)], s.Selected[string(kpls.DoFLanczos)], s.Selected[string(kpls.DoFApprox)])
	for _, r := range s.DoF {
		if float64(r.Exact) < 1 {
			fmt.Fprintln(w, "(PLS is not linear in y: its DoF need not grow with m and can fall below 1; σ̂ and the\n criteria use the DoF clipped to [1, n−1])")
			break
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%.0f %% confidence band of the chosen fit:\n", 100*demoLevel)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "x\tsin(x)/x\tyhat\tlower\tupper\t\n")
	for _, b := range s.Band {
		fmt.Fprintf(tw, "%g\t%s\t%s\t%s\t%s\t\n", b.X, f(b.Sinc), f(float64(b.Yhat)), f(float64(b.Lower)), f(float64(b.Upper)))
	}
	tw.Flush()
	printWarnings(w, s.Warnings)
	return nil
}

// demoSelect is the demo's search: the RBF widths by gMDL over the
// approximate DoF, as in the paper's experiments.
func demoSelect(widths []float64) kpls.SelectOptions {
	return kpls.SelectOptions{Kernels: []kpls.Kernel{kpls.RBF{}}, Widths: widths, Criterion: kpls.GMDL, MaxComponents: demoComponents}
}
