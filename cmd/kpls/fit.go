package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/cmd/cli"
	"github.com/kpls-go/kpls/cmd/cli/fitflags"
	"github.com/kpls-go/kpls/kpls"
)

// fitJSON is the document of `kpls fit --json` (docs/design.md §6).
type fitJSON struct {
	Data                string         `json:"data"`
	N                   int            `json:"n"`
	D                   int            `json:"d"`
	Target              string         `json:"target"`
	Features            []string       `json:"features"`
	Kernel              kernelJSON     `json:"kernel"`
	Standardize         bool           `json:"standardize"`
	DoFMethod           kpls.DoFMethod `json:"dof_method"`
	Lanczos             int            `json:"lanczos"`
	Components          int            `json:"components"` // M, the components fitted: the path runs over m = 0..M (valid_components, the same number, is kept for older readers)
	ComponentsRequested int            `json:"components_requested"`
	ValidComponents     int            `json:"valid_components"`
	Backend             string         `json:"backend"`
	Storage             storageJSON    `json:"storage"`
	Warnings            []kpls.Warning `json:"warnings"`
	Path                []pathRowJSON  `json:"path"`
	Selected            selectedJSON   `json:"selected"`
	Training            trainingJSON   `json:"training"`
	Weights             *weightsJSON   `json:"weights,omitempty"`
	Model               string         `json:"model,omitempty"`
}

// weightsJSON describes the frequency weights of a weighted fit.
type weightsJSON struct {
	Column string  `json:"column"`
	Total  float64 `json:"total"` // N = Σw, the rows the fit counts
	Zero   int     `json:"zero_rows"`
}

// weightsOf describes the weights w of --weights col, nil without.
func weightsOf(w []float64, col string) *weightsJSON {
	if w == nil {
		return nil
	}
	j := &weightsJSON{Column: col}
	for _, v := range w {
		j.Total += v
		if v == 0 {
			j.Zero++
		}
	}
	return j
}

// fitConfig is a checked `kpls fit` command line.
type fitConfig struct {
	mf       fitflags.Model
	c        fitflags.Common
	opts     kpls.Options
	res      kpls.Resources
	modelOut string
	keep     fitflags.Keep
}

// fitResult is a fit with the names it was given: one model per target.
type fitResult struct {
	ms       []*kpls.Model
	features []string
	targets  []string
	rows     int       // data rows read, those of weight 0 included
	weights  []float64 // --weights, nil without
}

func parseFitFlags(e *cli.Env, args []string) (*fitConfig, error) {
	fs := cli.NewFlagSet("fit", "--data F.csv [flags]",
		"Fits kernel PLS with up to --components components in one run and reports, for every m,\n"+
			"the residual sum of squares, degrees of freedom (including the intercept), σ̂, AIC, BIC and gMDL.\n"+
			"The RBF width can be given as --width w (k = exp(−‖x−z‖²/(2w))) or as --gamma g = 1/(2w);\n"+
			"--width is also the length scale of the laplacian and Matérn kernels.")
	cfg := &fitConfig{}
	cfg.mf.Register(fs, string(kpls.DoFApprox))
	width := fs.Float64("width", 0, "kernel width `w` (> 0): the RBF variance, the laplacian and Matérn length scale; 0 means d/2 for rbf (scikit-learn's gamma = 1/d) and √d for the others")
	gamma := fs.Float64("gamma", 0, "RBF `gamma` = 1/(2w), instead of --width; 0 means unset")
	fs.StringVar(&cfg.modelOut, "model", "", "save the fitted model to this `file` for kpls predict")
	cfg.keep.Register(fs)
	crit := fs.String("criterion", string(kpls.DefaultFitCriterion), "criterion for the m that the saved model predicts with: gcv, bic, aic or gmdl")
	relevance := fs.String("relevance", "", "comma-separated `weights` of the standardised features, one per feature, each > 0 (what kpls select learns; kpls inspect prints a model's); empty weighs every feature 1")
	cfg.c.Register(fs, true)
	if err := fs.Parse(e, args); err != nil {
		return nil, err
	}
	opts, res, err := cfg.mf.Options(fs, "exact", "lanczos", "approx", "none")
	if err != nil {
		return nil, err
	}
	var criterion kpls.Criterion
	if err := criterion.UnmarshalText([]byte(*crit)); err != nil || criterion == kpls.CV {
		return nil, cli.Usagef("--criterion: %q, want gcv, bic, aic or gmdl (cross-validation is kpls select --criterion cv)", *crit)
	}
	opts.Criterion = criterion
	if opts.Relevance, err = parseWeights(*relevance); err != nil {
		return nil, err
	}
	if opts.Kernel, err = fitKernel(fs, opts.Kernel, *width, *gamma); err != nil {
		return nil, err
	}
	if res.Backend, err = cfg.c.BLASBackend(); err != nil {
		return nil, err
	}
	if err := checkKeep(fs, &cfg.keep, cfg.modelOut, opts.Components); err != nil {
		return nil, err
	}
	if err := checkOutput("--model", cfg.modelOut, "--data", cfg.mf.Data); err != nil {
		return nil, err
	}
	res.Comm = ranks
	cfg.opts, cfg.res = opts, res
	return cfg, nil
}

// fitKernel applies --width or --gamma to the kernel of --kernel.
func fitKernel(fs *cli.FlagSet, k kpls.Kernel, width, gamma float64) (kpls.Kernel, error) {
	switch {
	case fs.IsSet("width") && fs.IsSet("gamma"):
		return nil, cli.Usagef("--width and --gamma both set: give one of them (gamma = 1/(2·width))")
	case fs.IsSet("width") && !(width > 0 && !math.IsInf(width, 0)):
		return nil, cli.Usagef("--width: %g, want a positive finite number", width)
	case fs.IsSet("gamma") && !(gamma > 0 && !math.IsInf(gamma, 0)):
		return nil, cli.Usagef("--gamma: %g, want a positive finite number", gamma)
	case fs.IsSet("gamma") && k != (kpls.RBF{}):
		return nil, cli.Usagef("--gamma applies to --kernel rbf; give --width for %s", k.Name())
	}
	if _, ok := kpls.WidthOf(k); !ok && fs.IsSet("width") {
		return nil, cli.Usagef("--kernel %s takes no --width", k.Name())
	}
	switch {
	case fs.IsSet("gamma"):
		return kpls.RBF{Width: 1 / (2 * gamma)}, nil
	case fs.IsSet("width"):
		return kpls.WithWidth(k, width), nil
	}
	return k, nil
}

// run reads the data, fits and saves the model (one per target).
func (cfg *fitConfig) run(ctx context.Context, e *cli.Env) (*fitResult, error) {
	t, err := cfg.mf.ReadTraining(e)
	if err != nil {
		return nil, err
	}
	tr, err := cfg.mf.Split(t)
	if err != nil {
		return nil, err
	}
	opts, res := cfg.opts, cfg.res
	if opts.DoF == kpls.DoFExact && t.Rows > 3000 {
		// Cubic: 2·n³·M flops for the forward-mode Jacobian.
		n, comp := float64(t.Rows), float64(max(opts.Components, kpls.DefaultComponents))
		fmt.Fprintf(e.Stderr, "%s: the exact DoF is cubic in n: at n = %d with %g components expect about %.0f minutes (--dof approx is quadratic)\n",
			e.Prog, t.Rows, comp, 2*n*n*n*comp/10e9/60)
	}
	prog := cfg.c.NewProgress(e)
	res.Progress = prog.Callback()
	data := kpls.Data{X: mat.NewDense(tr.N, len(tr.Features), tr.X), Y: mat.NewDense(tr.N, len(tr.Targets), tr.Y),
		Weights: tr.W, FeatureNames: tr.Features, TargetNames: tr.Targets}
	var ms []*kpls.Model
	if len(tr.Targets) == 1 {
		var m *kpls.Model
		m, err = kpls.Fit(ctx, data, opts, &res)
		ms = []*kpls.Model{m}
	} else {
		ms, err = kpls.FitTargets(ctx, data, opts, &res)
	}
	prog.Done()
	if err != nil {
		return nil, fitflags.DataErr(cfg.mf.Data, err)
	}
	if cfg.modelOut != "" {
		if err := saveKept(e, &cfg.keep, ms, tr.Targets, cfg.modelOut); err != nil {
			return nil, err
		}
	}
	return &fitResult{ms: ms, features: tr.Features, targets: tr.Targets, rows: tr.N, weights: tr.W}, nil
}

// render writes the result as JSON (--json) or as text, one document or
// section per target.
func (cfg *fitConfig) render(e *cli.Env, r *fitResult) error {
	if cfg.c.JSON {
		docs := make([]fitJSON, len(r.ms))
		for i := range r.ms {
			docs[i] = cfg.document(e, r, i)
		}
		return writeTargets(e.Stdout, docs)
	}
	w := cfg.c.Text(e)
	for i := range r.ms {
		targetHeading(w, r.targets, i)
		cfg.renderText(w, r, i)
	}
	return nil
}

func (cfg *fitConfig) document(e *cli.Env, r *fitResult, i int) fitJSON {
	m := r.ms[i]
	o, sel, s := m.Options(), selectedOf(m), m.Summary()
	warnLines(e.Stderr, targetPrefixed(r.targets, i, messages(m.Warnings())))
	return fitJSON{
		Data: cfg.mf.Data, N: s.N, D: s.D, Target: r.targets[i], Features: r.features,
		Kernel: kernelOf(o.Kernel), Standardize: !o.RawFeatures, DoFMethod: o.DoF, Lanczos: s.LanczosSteps,
		Components: s.Members[0].MaxComponents, ComponentsRequested: o.Components, ValidComponents: s.Members[0].MaxComponents, Backend: backendName(cfg.res),
		Storage: storageOf(m, cfg.res), Warnings: warningsJSON(m.Warnings()), Path: pathJSON(m.Stats(), o.DoF), Selected: sel,
		Training: trainingOf(m, sel.M), Weights: weightsOf(r.weights, cfg.mf.Weights), Model: cfg.modelOut,
	}
}

func (cfg *fitConfig) renderText(w io.Writer, r *fitResult, i int) {
	m := r.ms[i]
	o, sel, s := m.Options(), selectedOf(m), m.Summary()
	fmt.Fprintf(w, "data       %s: n = %d, d = %d, target %q\n", cfg.mf.Data, s.N, s.D, r.targets[i])
	fmt.Fprintf(w, "kernel     %s, features %s\n", describeKernel(o.Kernel), standardized(o))
	fmt.Fprintf(w, "DoF        %s%s; %d of %d components valid; backend %s\n", o.DoF, lanczosNote(o.DoF, s.LanczosSteps), s.Members[0].MaxComponents, o.Components, backendName(cfg.res))
	fmt.Fprintf(w, "storage    %s\n", describeStorage(storageOf(m, cfg.res)))
	if wj := weightsOf(r.weights, cfg.mf.Weights); wj != nil {
		fmt.Fprintf(w, "weights    column %q: the fit counts N = %s rows (%d of weight 0 left out)\n", wj.Column, cli.Cell(wj.Total), wj.Zero)
	}
	fmt.Fprintln(w)
	statsTable(w, m.Stats(), sel.M, false, 0)
	tr := trainingOf(m, sel.M)
	fmt.Fprintf(w, "\nselected   m = %d by %s (gcv %d, bic %d, aic %d, gmdl %d); DoF include the intercept\n",
		sel.M, sel.Criterion, sel.ByCriterion[kpls.GCV], sel.ByCriterion[kpls.BIC], sel.ByCriterion[kpls.AIC], sel.ByCriterion[kpls.GMDL])
	fmt.Fprintf(w, "training   RMSE %s, R² %s with m = %d\n", cli.Cell(float64(tr.RMSE)), cli.Cell(float64(tr.R2)), sel.M)
	if cfg.modelOut != "" {
		fmt.Fprintf(w, "model      saved to %s (predicts with m = %d unless told otherwise)\n", cfg.modelOut, sel.M)
	}
	printWarnings(w, messages(m.Warnings()))
}

// parseWeights reads --relevance: comma-separated numbers, nil if empty
// (the library checks their count and values).
func parseWeights(s string) ([]float64, error) {
	if s == "" {
		return nil, nil
	}
	var w []float64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil {
			return nil, cli.Usagef("--relevance: %q is not a number", f)
		}
		w = append(w, v)
	}
	return w, nil
}
