package main

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/cmd/cli"
	"github.com/kpls-go/kpls/cmd/cli/fitflags"
	"github.com/kpls-go/kpls/internal/atomicfile"
	"github.com/kpls-go/kpls/internal/dataset"
	"github.com/kpls-go/kpls/kpls"
)

// predictJSON is the document of `kpls predict --json` (docs/design.md §6).
type predictJSON struct {
	Model             string           `json:"model"`
	Data              string           `json:"data"`
	Rows              int              `json:"rows"`
	Dropped           int              `json:"dropped_rows"`
	ID                string           `json:"id,omitempty"`
	M                 *int             `json:"m,omitempty"` // the number of components the prediction uses; left out for a mean, whose members' m are in Mean
	Bands             bool             `json:"bands"`
	Intervals         bool             `json:"intervals"`
	Level             *float64         `json:"level,omitempty"`
	InterceptVariance *bool            `json:"intercept_variance,omitempty"`
	Extrapolation     extrapJSON       `json:"extrapolation"`
	Warnings          []kpls.Warning   `json:"warnings"`
	Predictions       []predictionJSON `json:"predictions"`
	Target            *targetJSON      `json:"target,omitempty"`
	// Mean lists the models a mean averages (kpls select
	// --average-within), each with the m it predicts with.
	Mean []memberJSON `json:"mean,omitempty"`
	// Noise is, with bands or intervals, the noise level s that scales the
	// band (and that the intervals add to its variance).
	Noise *noiseJSON `json:"noise,omitempty"`
}

// noiseJSON is the noise level s of bands and intervals: σ̂ of the m
// used, or the RMSECV of a cross-validated choice where σ̂ is smaller or
// unknown (kpls.Model.NoiseLevel, kpls.Mean.NoiseLevel).
type noiseJSON struct {
	S     cli.Num `json:"s"`
	From  string  `json:"from"` // "sigma" or "rmsecv"
	Sigma cli.Num `json:"sigma"`
}

// memberJSON is one model of a mean.
type memberJSON struct {
	Kernel string   `json:"kernel"`
	Width  *float64 `json:"width,omitempty"`
	M      int      `json:"m"`
	// Scaled says the member weighs its features (kpls.Options.Relevance).
	Scaled bool `json:"scaled,omitempty"`
}

// membersOf describes the models a predictor averages.
func membersOf(s kpls.Summary) []memberJSON {
	var out []memberJSON
	for _, m := range s.Members {
		mj := memberJSON{Kernel: m.Kernel.Name(), M: m.M, Scaled: m.Relevance != nil}
		if w, ok := kpls.WidthOf(m.Kernel); ok {
			mj.Width = &w
		}
		out = append(out, mj)
	}
	return out
}

// limits says whether the predictions carry se, lower and upper: of bands
// or of intervals.
func (d predictJSON) limits() bool { return d.Bands || d.Intervals }

// predictionJSON is one prediction; se, lower and upper only with bands.
type predictionJSON struct {
	// Row is the data row of the input file it predicts (1-based, the
	// header not counted), also where --drop-missing left rows out.
	Row     int      `json:"row"`
	ID      string   `json:"id,omitempty"`
	Yhat    cli.Num  `json:"yhat"`
	SE      *cli.Num `json:"se,omitempty"`
	Lower   *cli.Num `json:"lower,omitempty"`
	Upper   *cli.Num `json:"upper,omitempty"`
	Outside bool     `json:"outside"`
	// Leverage is the point's hat value in the score space (kpls.Model.Leverage).
	Leverage cli.Num `json:"leverage"`
}

// extrapJSON says how "outside" was decided.
type extrapJSON struct {
	Measure   string  `json:"measure"` // "max_k" (rbf) or "range_excess" (linear)
	Threshold float64 `json:"threshold"`
	// LeverageLimit is the leverage above which a point is flagged too,
	// and HighLeverage how many points are above it.
	LeverageLimit float64 `json:"leverage_limit"`
	HighLeverage  int     `json:"high_leverage"`
	Outside       int     `json:"outside"` // points flagged, by either rule
}

// targetJSON compares the predictions with a target column in the file:
// over the rows that have a target value (Scored); the rows without one
// (Missing) are predicted all the same.
type targetJSON struct {
	Name     string   `json:"name"`
	RMSE     cli.Num  `json:"rmse"`
	R2       cli.Num  `json:"r2"`
	Coverage *cli.Num `json:"coverage,omitempty"` // share of targets inside the band; with bands only
	Scored   int      `json:"scored"`
	Missing  int      `json:"missing"`
}

// predictConfig is a checked `kpls predict` command line.
type predictConfig struct {
	c           fitflags.Common
	df          fitflags.Input
	modelPath   string
	data        string
	target      string // --target: the columns to score against
	comp        int    // -1: the model's recorded choice
	withBands   bool   // bands or intervals: se, lower and upper
	intervals   bool   // prediction intervals for a new y instead of bands for f(x)
	level       float64
	noIntercept bool
	output      string
	form        string // csv, json or table
}

// predictResult is the predictions of the rows of t by each model of the
// file (one per target), with the target columns the file has.
type predictResult struct {
	t     *dataset.Table
	parts []predictPart
}

// predictPart is one predictor's predictions (one per target): its
// target's name, its target column y when the file has it, and its
// document.
type predictPart struct {
	p    kpls.Predictor
	name string
	y    []float64
	doc  predictJSON
}

// noise is the noise level of the bands and intervals of pred.
func noise(pred *kpls.Prediction, s kpls.Summary) *noiseJSON {
	from := "sigma"
	if pred.NoiseFromRMSECV {
		from = "rmsecv"
	}
	return &noiseJSON{S: cli.Num(pred.Noise), From: from, Sigma: cli.Num(s.Stats.Sigma)}
}

func parsePredictFlags(e *cli.Env, args []string) (*predictConfig, error) {
	fs := cli.NewFlagSet("predict", "--model MODEL --data F.csv [flags]",
		"Predicts every row of F.csv with a model saved by kpls fit --model (or select --model). Feature\n"+
			"columns are matched by name; other columns are ignored unread. A target column in F.csv (the\n"+
			"model's, or --target) is not used for prediction: RMSE and R² (and with bands the coverage) are\n"+
			"reported against it, over the rows that have a value there; a row without one is predicted all\n"+
			"the same. Output rows are numbered by their data row in F.csv (or named by --id, or by a first\n"+
			"column of row names as R's write.csv writes them).\n"+
			"With --bands or --level, pointwise confidence bands yhat ± z·se, se² = s²(‖H_mᵀk_c(x)‖² + 1/n),\n"+
			"s = σ̂ of the m used, or its RMSECV where select's cross-validation chose m and σ̂ is smaller\n"+
			"(they need the n×n kernel matrix and m products with it per block of points; plain predictions\n"+
			"cost O(n·d) per point). The bands measure variance only: they do not cover bias, nor\n"+
			"extrapolation. Points outside the training data's reach are flagged (\"outside\") and counted\n"+
			"in a warning: far from every training row (rbf: max_i k(x, x_i) < 0.05; linear: beyond a\n"+
			"feature's range), or with a leverage in the model's score space above 1, which no training\n"+
			"row can have (the JSON gives every point's leverage).")
	cfg := &predictConfig{}
	fs.StringVar(&cfg.modelPath, "model", "", "model `file` written by kpls fit --model (required)")
	fs.StringVar(&cfg.data, "data", "", "CSV `file` of points to predict, with a header naming the model's features (required); - reads standard input")
	fs.StringVar(&cfg.target, "target", "", "target `columns` of F.csv to score the predictions against, one per target of the model; empty means the model's target names, where F.csv has them")
	fs.IntVar(&cfg.comp, "components", -1, "number of components `m` to predict with; -1 means the model's recorded choice (how kpls select or fit chose it)")
	bands := fs.Bool("bands", false, "compute confidence bands (se, lower, upper) at --level")
	fs.BoolVar(&cfg.intervals, "intervals", false, "compute prediction intervals for a new observation y at --level instead of bands for f(x): the band's variance plus s² (s as for the bands)")
	fs.Float64Var(&cfg.level, "level", 0.98, "level of the bands or intervals, in (0, 1); setting it alone implies --bands")
	fs.BoolVar(&cfg.noIntercept, "no-intercept-variance", false, "leave the intercept's σ̂²/n out of the band variance, as the paper does (needs --bands)")
	fs.StringVar(&cfg.output, "output", "", "write the predictions to this `file` instead of stdout (format from --format, else the extension: .csv, .json, otherwise table)")
	format := fs.String("format", "", "predictions format: csv, json or table; empty means json with --json, else from --output's extension, else table")
	cfg.df.Register(fs, false)
	cfg.c.Register(fs, false)
	if err := fs.Parse(e, args); err != nil {
		return nil, err
	}
	cfg.withBands = *bands || cfg.intervals || fs.IsSet("level")
	switch {
	case cfg.modelPath == "":
		return nil, cli.Usagef("predict: --model is required")
	case cfg.data == "":
		return nil, cli.Usagef("predict: --data is required")
	case !(cfg.level > 0 && cfg.level < 1):
		return nil, cli.Usagef("--level: %g, want a number strictly between 0 and 1", cfg.level)
	case fs.IsSet("components") && cfg.comp < 0:
		return nil, cli.Usagef("--components: %d, want at least 0", cfg.comp)
	case *bands && cfg.intervals:
		return nil, cli.Usagef("--bands and --intervals: give one (bands cover f(x), intervals a new y)")
	case cfg.noIntercept && !cfg.withBands:
		return nil, cli.Usagef("--no-intercept-variance applies to bands: add --bands or --level")
	}
	var err error
	if cfg.form, err = outputFormat(*format, cfg.output, cfg.c.JSON); err != nil {
		return nil, err
	}
	if err := checkOutput("--output", cfg.output, "--model", cfg.modelPath, "--data", cfg.data); err != nil {
		return nil, err
	}
	return cfg, nil
}

// run loads the model file, reads the points and predicts them with each
// of its predictors (one, or one per target).
func (cfg *predictConfig) run(ctx context.Context, e *cli.Env) (*predictResult, error) {
	ps, err := loadPredictors(cfg.modelPath)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.Summary().TargetName
		if ps[i], err = cfg.atComponents(p, names, i); err != nil {
			return nil, err
		}
	}
	scoreAgainst := names
	if cfg.target != "" {
		if scoreAgainst, err = cfg.targets(len(ps)); err != nil {
			return nil, err
		}
	}
	// The predictors of one file share their inputs (kpls.Save), so the
	// first one's feature names serve all.
	s := ps[0].Summary()
	features := s.FeatureNames
	if len(features) != s.D {
		features = nil
	}
	t, present, err := cfg.df.ReadPrediction(e, cfg.data, features, scoreAgainst...)
	if err != nil {
		return nil, err
	}
	for i, c := range scoreAgainst {
		if cfg.target != "" && !present[i] {
			if slices.Contains(features, c) {
				return nil, cli.Usagef("--target %q is one of the model's features", c)
			}
			return nil, fmt.Errorf("--target: %s has no column %q", t.File, c)
		}
	}
	cfg.df.Note(e, t)
	x, err := modelColumns(t, features, s.D)
	if err != nil {
		return nil, err
	}
	xm := mat.NewDense(t.Rows, s.D, x)
	r := &predictResult{t: t}
	for i, p := range ps {
		part, pred, err := cfg.predictOne(ctx, e, p, xm, t)
		if err != nil {
			return nil, err
		}
		part.name = names[i]
		if present[i] {
			if part.y, err = t.Select([]string{scoreAgainst[i]}); err != nil {
				return nil, err
			}
			part.doc.Target = compare(scoreAgainst[i], pred, part.y, cfg.withBands)
		}
		r.parts = append(r.parts, part)
	}
	return r, nil
}

// targets is --target for a model file of q predictors.
func (cfg *predictConfig) targets(q int) ([]string, error) {
	var out []string
	for _, c := range strings.Split(cfg.target, ",") {
		if c = strings.TrimSpace(c); c == "" {
			return nil, cli.Usagef("--target: empty column name in %q", cfg.target)
		}
		out = append(out, c)
	}
	if len(out) != q {
		return nil, cli.Usagef("--target: %d columns for a model file of %d targets: give one column per target", len(out), q)
	}
	return out, nil
}

// atComponents is p with --components, when given: a mean of several
// models has no one m to change.
func (cfg *predictConfig) atComponents(p kpls.Predictor, names []string, i int) (kpls.Predictor, error) {
	if cfg.comp < 0 {
		return p, nil
	}
	s := p.Summary()
	m, ok := p.(*kpls.Model)
	switch {
	case !ok:
		return nil, cli.Usagef("--components: the model%s is the mean of %d models, each with its own m (kpls select --average-within): there is no one m to change", modelOf(names, i), len(s.Members))
	case cfg.comp > s.Members[0].MaxComponents:
		return nil, cli.Usagef("--components: %d, the model%s has 0..%d valid components", cfg.comp, modelOf(names, i), s.Members[0].MaxComponents)
	}
	return m.At(cfg.comp)
}

// modelOf names model i of a file of several in a message.
func modelOf(names []string, i int) string {
	if len(names) < 2 {
		return ""
	}
	return fmt.Sprintf(" of target %q", names[i])
}

// predictOne predicts the rows of x with p, with bands or intervals when
// asked for, and flags extrapolation, all in one call.
func (cfg *predictConfig) predictOne(ctx context.Context, e *cli.Env, p kpls.Predictor, x *mat.Dense, t *dataset.Table) (predictPart, *kpls.Prediction, error) {
	opt := kpls.PredictOptions{Diagnostics: true, Level: cfg.level, NoIntercept: cfg.noIntercept}
	switch {
	case cfg.intervals:
		opt.Uncertainty = kpls.PredictionInterval
	case cfg.withBands:
		opt.Uncertainty = kpls.ConfidenceBand
	}
	if cfg.withBands {
		prog := cfg.c.NewProgress(e)
		defer prog.Done()
		opt.Progress = prog.Callback()
		if prog != nil {
			rows, _ := x.Dims()
			bandCost(e, p.Summary(), rows, cfg.intervals)
		}
	}
	pred, err := p.Predict(ctx, x, opt)
	if err != nil {
		return predictPart{}, nil, fitflags.DataErr(t.File, err)
	}
	part := predictPart{p: p}
	part.doc = cfg.document(p.Summary(), t, pred)
	return part, pred, nil
}

// longBands is the work past which the command says, before it starts,
// what bands or intervals cost: 2·10¹¹ floating-point operations, some
// seconds on two cores.
const longBands = 2e11

// bandCost prints what the bands or intervals of points rows will cost
// when that is long: each model of the predictor multiplies its n×n
// kernel matrix by the points m times (2·m·n² operations a point), where
// predictions alone take one product with n·d kernel evaluations.
func bandCost(e *cli.Env, s kpls.Summary, points int, intervals bool) {
	lo, hi, sum, models := math.MaxInt, 0, 0, 0
	for _, mb := range s.Members {
		if _, linear := mb.Kernel.(kpls.Linear); linear {
			continue // its products go through the features: O(n·d)
		}
		lo, hi, sum, models = min(lo, mb.M), max(hi, mb.M), sum+mb.M, models+1
	}
	flops := 2 * float64(sum) * float64(s.N) * float64(s.N) * float64(points)
	if flops < longBands {
		return
	}
	what, ms := "bands", fmt.Sprintf("m = %d", lo)
	if intervals {
		what = "intervals"
	}
	if hi > lo {
		ms = fmt.Sprintf("m = %d–%d", lo, hi)
	}
	who := "the model"
	if models > 1 {
		who = fmt.Sprintf("each of %d models", models)
	}
	fmt.Fprintf(e.Stderr, "%s: %s for %d points: %s (%s) multiplies its %d×%d kernel matrix by the points m times, about %.1e floating-point operations in all; the progress shows the time left\n",
		e.Prog, what, points, who, ms, s.N, s.N, flops)
}

// document gathers the predictions and the warnings about them.
func (cfg *predictConfig) document(s kpls.Summary, t *dataset.Table, pred *kpls.Prediction) predictJSON {
	e := pred.Extrapolation
	ex := extrapJSON{Measure: e.Measure, Threshold: e.Threshold, LeverageLimit: kpls.LeverageLimit, HighLeverage: e.HighLeverage, Outside: e.Count}
	doc := predictJSON{Model: cfg.modelPath, Data: t.File, Rows: t.Rows, Dropped: len(t.Dropped), ID: cfg.df.ID,
		Bands: cfg.withBands && !cfg.intervals, Intervals: cfg.intervals, Extrapolation: ex, Warnings: cfg.warnings(s, t, pred, ex),
		Predictions: make([]predictionJSON, len(pred.Yhat))}
	if len(s.Members) > 1 {
		doc.Mean = membersOf(s)
	} else {
		doc.M = &s.Members[0].M
	}
	if cfg.withBands {
		iv := !cfg.noIntercept
		doc.Noise, doc.Level, doc.InterceptVariance = noise(pred, s), &pred.Level, &iv
	}
	for i, yhat := range pred.Yhat {
		p := predictionJSON{Row: rowNumber(t, i), Yhat: cli.Num(yhat), Outside: e.Outside[i], Leverage: cli.Num(e.Leverage[i])}
		if t.IDs != nil {
			p.ID = t.IDs[i]
		}
		if cfg.withBands {
			se, lo, up := cli.Num(pred.SE[i]), cli.Num(pred.Lower[i]), cli.Num(pred.Upper[i])
			p.SE, p.Lower, p.Upper = &se, &lo, &up
		}
		doc.Predictions[i] = p
	}
	return doc
}

// warnings are the model's warnings and those about the predictions.
func (cfg *predictConfig) warnings(s kpls.Summary, t *dataset.Table, pred *kpls.Prediction, ex extrapJSON) []kpls.Warning {
	warns := warningsJSON(s.Warnings)
	if cfg.withBands && math.IsNaN(pred.Noise) {
		warns = append(warns, kpls.Warning{Code: warnNoiseUnknown, Message: fmt.Sprintf("σ̂ for m = %d is unknown (its DoF could not be computed reliably) and no RMSECV stands in: no bands, se and limits are null", s.Members[0].M)})
	}
	if ex.Outside > 0 {
		first := 0
		for !pred.Extrapolation.Outside[first] {
			first++
		}
		warns = append(warns, kpls.Warning{Code: warnOutside, Message: fmt.Sprintf("%d of %d points lie outside the training data's reach (%s; first: %s): their predictions are extrapolations%s",
			ex.Outside, t.Rows, describeExtrap(ex), rowName(t, first), bandsCaveat(cfg.withBands))})
	}
	return warns
}

// render writes the predictions to --output or stdout, then the summary:
// to the text stream (stderr with --json) or, when stdout holds a CSV or
// JSON document, to stderr.
func (cfg *predictConfig) render(e *cli.Env, r *predictResult) (err error) {
	w, summary := e.Stdout, cfg.c.Text(e)
	var file *atomicfile.File // a temporary file renamed into place by Commit
	if cfg.output != "" && !primary {
		w = io.Discard
	} else if cfg.output != "" {
		if file, err = atomicfile.Create(cfg.output, outputPerm); err != nil {
			return fmt.Errorf("--output: %w", err)
		}
		defer file.Abort() // the old file stays unless Commit succeeds
		w = file
	} else if cfg.form != "table" {
		summary = e.Stderr
	}
	switch {
	case cfg.form == "json":
		docs := make([]predictJSON, len(r.parts))
		for i, p := range r.parts {
			warnLines(e.Stderr, targetPrefixed(r.names(), i, messages(p.doc.Warnings)))
			docs[i] = p.doc
		}
		err = writeTargets(w, docs)
	case cfg.form == "csv":
		err = writeCSV(w, r)
	default:
		for i, p := range r.parts {
			targetHeading(w, r.names(), i)
			if err = writeTable(w, p.doc, r.t, p.y, p.name); err != nil {
				break
			}
		}
	}
	if err != nil {
		return fmt.Errorf("writing predictions: %w", err)
	}
	if file != nil {
		if err := file.Commit(); err != nil {
			return fmt.Errorf("--output: %w", err)
		}
	}
	if cfg.form == "table" && cfg.output == "" {
		summary = e.Stdout
		fmt.Fprintln(summary)
	}
	cfg.summary(summary, r)
	return nil
}

// outputPerm is the permission of a new --output file, less the umask; a
// replaced file keeps its mode.
const outputPerm = 0o666

// names is the target of each part.
func (r *predictResult) names() []string {
	out := make([]string, len(r.parts))
	for i, p := range r.parts {
		out[i] = p.name
	}
	return out
}

// summary writes, for each model, the model, the bands, the output file,
// the comparison with the target and the warnings.
func (cfg *predictConfig) summary(w io.Writer, r *predictResult) {
	for i, p := range r.parts {
		targetHeading(w, r.names(), i)
		s, doc := p.p.Summary(), p.doc
		if len(s.Members) > 1 {
			fmt.Fprintf(w, "model      %s: n = %d, d = %d, the mean of %d models: %s\n", cfg.modelPath, s.N, s.D, len(doc.Mean), describeMembers(doc.Mean))
		} else {
			fmt.Fprintf(w, "model      %s: n = %d, d = %d, %s, m = %d of %d\n", cfg.modelPath, s.N, s.D, scaledName(describeKernel(s.Members[0].Kernel), s.Members[0].Relevance != nil), s.Members[0].M, s.Members[0].MaxComponents)
		}
		var noise string
		if n := doc.Noise; n != nil {
			noise = fmt.Sprintf("s = σ̂ = %s", cli.Cell(float64(n.S)))
			if n.From == "rmsecv" {
				noise = fmt.Sprintf("s = RMSECV = %s of the cross-validated choice, as σ̂ = %s falls short of the error on new data", cli.Cell(float64(n.S)), cli.Cell(float64(n.Sigma)))
				if math.IsNaN(float64(n.Sigma)) {
					noise = fmt.Sprintf("s = RMSECV = %s of the cross-validated choices (the mean's σ̂ is not computed)", cli.Cell(float64(n.S)))
				}
			}
		}
		switch {
		case cfg.intervals:
			fmt.Fprintf(w, "intervals  %.4g %% prediction intervals for a new y (the band's variance plus s²; %s), %s\n", 100*cfg.level, noise, interceptNote(cfg.noIntercept))
		case cfg.withBands:
			fmt.Fprintf(w, "bands      %.4g %% confidence for f(x) (%s), %s\n", 100*cfg.level, noise, interceptNote(cfg.noIntercept))
		}
		if cfg.output != "" && i == len(r.parts)-1 {
			fmt.Fprintf(w, "output     %s (%s) written to %s\n", count(r.t.Rows, "prediction"), cfg.form, cfg.output)
		}
		if len(r.t.Dropped) > 0 && i == len(r.parts)-1 {
			fmt.Fprintf(w, "missing    %s not predicted: a feature is missing (--drop-missing); rows keep their numbers in %s\n", count(len(r.t.Dropped), "row"), r.t.File)
		}
		if tg := doc.Target; tg != nil {
			fmt.Fprintf(w, "target     %q: ", tg.Name)
			switch {
			case tg.Scored == 0:
				fmt.Fprintf(w, "no row has a value, nothing to score")
			default:
				fmt.Fprintf(w, "RMSE %s, R² %s", cli.Round(float64(tg.RMSE)), cli.Round(float64(tg.R2)))
				if tg.Coverage != nil {
					fmt.Fprintf(w, ", %.1f %% inside the %s", 100*float64(*tg.Coverage), map[bool]string{false: "confidence bands", true: "prediction intervals"}[cfg.intervals])
				}
			}
			if tg.Missing > 0 {
				verb := "are"
				if tg.Missing == 1 {
					verb = "is"
				}
				fmt.Fprintf(w, " (scored on %d of %d rows: %d without a target value %s predicted, not scored)", tg.Scored, tg.Scored+tg.Missing, tg.Missing, verb)
			}
			fmt.Fprintln(w)
		}
		if cfg.form != "json" {
			printWarnings(w, messages(doc.Warnings))
		}
	}
}

// outputFormat resolves --format, --output and --json.
func outputFormat(format, output string, asJSON bool) (string, error) {
	form := strings.ToLower(format)
	switch form {
	case "", "csv", "json", "table":
	default:
		return "", cli.Usagef("--format: %q, want csv, json or table", format)
	}
	switch {
	case asJSON && form != "" && form != "json":
		return "", cli.Usagef("--json and --format %s disagree: give one of them", form)
	case asJSON:
		return "json", nil
	case form != "":
		return form, nil
	}
	switch strings.ToLower(filepath.Ext(strings.TrimSuffix(output, ".gz"))) {
	case ".csv":
		return "csv", nil
	case ".json":
		return "json", nil
	}
	return "table", nil
}

// describeMembers lists the models of a mean.
func describeMembers(ms []memberJSON) string {
	parts := make([]string, len(ms))
	for i, mj := range ms {
		parts[i] = mj.Kernel
		if mj.Width != nil {
			parts[i] += " width " + cli.Cell(*mj.Width)
		}
		parts[i] = scaledName(parts[i], mj.Scaled) + fmt.Sprintf(" (m = %d)", mj.M)
	}
	return strings.Join(parts, ", ")
}

func describeExtrap(ex extrapJSON) string {
	far := fmt.Sprintf("a feature beyond its training range by more than %g of that range", ex.Threshold)
	if ex.Measure == "max_k" {
		far = fmt.Sprintf("max_i k(x, x_i) < %g", ex.Threshold)
	}
	return fmt.Sprintf("%s, or a leverage above %g, which no training row has: %s", far, ex.LeverageLimit, count(ex.HighLeverage, "point"))
}

func bandsCaveat(withBands bool) string {
	if withBands {
		return ", and the bands do not cover their bias"
	}
	return ""
}

// rowName names row i (0-based) of t by its ID or data row number.
func rowName(t *dataset.Table, i int) string {
	if t.IDs != nil {
		return fmt.Sprintf("id %q", t.IDs[i])
	}
	return fmt.Sprintf("row %d", rowNumber(t, i))
}

// rowNumber is the data row of the file (1-based) row i of t came from.
func rowNumber(t *dataset.Table, i int) int {
	if t.RowNumbers != nil {
		return t.RowNumbers[i]
	}
	return i + 1
}

// idColumn is the heading of the output's first column: the --id column,
// "id" for a first column of row names, else "row".
func idColumn(doc predictJSON, t *dataset.Table) string {
	switch {
	case doc.ID != "":
		return doc.ID
	case t.IDs != nil:
		return "id"
	}
	return "row"
}

// count is n with its noun, in the plural unless n is 1.
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if strings.HasSuffix(noun, "s") {
		return fmt.Sprintf("%d %ses", n, noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func interceptNote(noIntercept bool) string {
	if noIntercept {
		return "se² = s²‖H_mᵀk_c(x)‖² (without the intercept's 1/n, as the paper)"
	}
	return "se² = s²(‖H_mᵀk_c(x)‖² + 1/n)"
}

// modelColumns is the model's features of what ReadPrediction read. A
// model saved without names takes a file with exactly its number of
// columns (besides --id).
func modelColumns(t *dataset.Table, features []string, d int) (x []float64, err error) {
	if features == nil {
		if t.Cols != d {
			return nil, fmt.Errorf("%s: %d columns, the model (saved without feature names) has %d features", t.File, t.Cols, d)
		}
		return t.Data, nil
	}
	return t.Select(features)
}

// compare measures predictions against known targets, over the rows
// that have one (a missing target reads as NaN): RMSE, R² against the
// targets' own mean (null for a constant target) and, with bands, the
// share inside them. With no target at all they are null.
func compare(name string, pred *kpls.Prediction, y []float64, withBands bool) *targetJSON {
	var sse, mean, sst float64
	in, scored := 0, 0
	for i, yhat := range pred.Yhat {
		if math.IsNaN(y[i]) {
			continue
		}
		scored++
		r := y[i] - yhat
		sse += r * r
		mean += y[i]
		if withBands && y[i] >= pred.Lower[i] && y[i] <= pred.Upper[i] {
			in++
		}
	}
	n := float64(scored)
	mean /= n
	for _, v := range y {
		if !math.IsNaN(v) {
			sst += (v - mean) * (v - mean)
		}
	}
	t := &targetJSON{Name: name, RMSE: cli.Num(math.Sqrt(sse / n)), R2: cli.Num(1 - sse/sst), Scored: scored, Missing: len(y) - scored}
	if sst == 0 {
		t.R2 = cli.Num(math.NaN())
	}
	if withBands {
		c := cli.Num(float64(in) / n)
		t.Coverage = &c
	}
	return t
}

// writeCSV writes the predictions as CSV: the row number or --id, then
// for each model yhat (se, lower, upper with bands), outside and the
// target column when the file has it. With several models (one per
// target) every column but the first is named TARGET:yhat, TARGET:se, …,
// TARGET:outside and TARGET.
func writeCSV(w io.Writer, r *predictResult) error {
	cw := csv.NewWriter(w)
	first := r.parts[0].doc
	hdr := []string{idColumn(first, r.t)}
	for _, p := range r.parts {
		pre := ""
		if len(r.parts) > 1 {
			pre = p.name + ":"
		}
		hdr = append(hdr, pre+"yhat")
		if p.doc.limits() {
			hdr = append(hdr, pre+"se", pre+"lower", pre+"upper")
		}
		hdr = append(hdr, pre+"outside")
		if p.doc.Target != nil {
			hdr = append(hdr, p.doc.Target.Name)
		}
	}
	cw.Write(hdr)
	g := func(v *cli.Num) string {
		if v == nil || math.IsNaN(float64(*v)) {
			return ""
		}
		return strconv.FormatFloat(float64(*v), 'g', -1, 64)
	}
	for i := range first.Predictions {
		id := first.Predictions[i].ID
		if r.t.IDs == nil {
			id = strconv.Itoa(first.Predictions[i].Row)
		}
		rec := []string{id}
		for _, part := range r.parts {
			p := part.doc.Predictions[i]
			rec = append(rec, g(&p.Yhat))
			if part.doc.limits() {
				rec = append(rec, g(p.SE), g(p.Lower), g(p.Upper))
			}
			rec = append(rec, strconv.FormatBool(p.Outside))
			if part.y != nil {
				rec = append(rec, g((*cli.Num)(&part.y[i])))
			}
		}
		cw.Write(rec)
	}
	cw.Flush()
	return cw.Error()
}

// writeTable writes the predictions as an aligned table; "!" marks points
// outside the training data's reach.
func writeTable(w io.Writer, doc predictJSON, t *dataset.Table, y []float64, target string) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%s\tyhat\t", idColumn(doc, t))
	if doc.limits() {
		fmt.Fprint(tw, "se\tlower\tupper\t")
	}
	if y != nil {
		fmt.Fprintf(tw, "%s\t", target)
	}
	fmt.Fprintln(tw)
	v := func(p *cli.Num) string { return cli.Cell(float64(*p)) }
	for i, p := range doc.Predictions {
		id := p.ID
		if t.IDs == nil {
			id = strconv.Itoa(p.Row)
		}
		fmt.Fprintf(tw, "%s\t%s\t", id, v(&p.Yhat))
		if doc.limits() {
			fmt.Fprintf(tw, "%s\t%s\t%s\t", v(p.SE), v(p.Lower), v(p.Upper))
		}
		if y != nil {
			fmt.Fprintf(tw, "%s\t", cli.Cell(y[i]))
		}
		if p.Outside {
			fmt.Fprint(tw, " ! outside")
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}
