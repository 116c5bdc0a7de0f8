package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/cmd/cli"
	"github.com/kpls-go/kpls/cmd/cli/fitflags"
	"github.com/kpls-go/kpls/kpls"
)

// selectJSON is the document of `kpls select --json` (docs/design.md §6).
type selectJSON struct {
	Data        string         `json:"data"`
	N           int            `json:"n"`
	D           int            `json:"d"`
	Target      string         `json:"target"`
	Kernels     []string       `json:"kernels"`
	Standardize bool           `json:"standardize"`
	DoFMethod   kpls.DoFMethod `json:"dof_method"`
	Lanczos     int            `json:"lanczos"`
	Components  int            `json:"components"` // M, the components the chosen fit to all rows holds (m = 0..M); the search may grow it past --components
	Criterion   kpls.Criterion `json:"criterion"`
	Folds       int            `json:"folds,omitempty"`
	Repeats     int            `json:"repeats,omitempty"`
	Widths      []float64      `json:"widths"`
	Skipped     []skippedJSON  `json:"skipped,omitempty"`
	Screen      *screenJSON    `json:"screen,omitempty"`
	Race        *raceJSON      `json:"race,omitempty"`
	Weighed     *weighedJSON   `json:"weighed,omitempty"`
	Passes      int            `json:"passes"`
	MaxPasses   int            `json:"max_passes"`
	Backend     string         `json:"backend"`
	Storage     storageJSON    `json:"storage"`
	Warnings    []kpls.Warning `json:"warnings"`
	Table       []rowJSON      `json:"table"`
	Choices     []rowJSON      `json:"choices"`
	Best        bestJSON       `json:"best"`
	Training    trainingJSON   `json:"training"`
	Average     *averageJSON   `json:"average,omitempty"`
	Weights     *weightsJSON   `json:"weights,omitempty"`
	Model       string         `json:"model,omitempty"`
}

// skippedJSON is a default grid point the search did not fit: a width
// past the turn of its kernel's score (kpls.Selection.Skipped).
type skippedJSON struct {
	Kernel string  `json:"kernel"`
	Width  float64 `json:"width"`
}

func skippedOf(sel *kpls.Selection) []skippedJSON { return gridPoints(sel.Skipped) }

// gridPoints are kernels as the document lists grid points (an empty
// list, not null, where there are none).
func gridPoints(ks []kpls.Kernel) []skippedJSON {
	out := []skippedJSON{}
	for _, k := range ks {
		w, _ := kpls.WidthOf(k)
		out = append(out, skippedJSON{Kernel: k.Name(), Width: w})
	}
	return out
}

// screenJSON is the first round that scored the grid on a sample of the
// rows (kpls.Selection.Screen): the table holds the kept points only.
type screenJSON struct {
	Rows    int           `json:"rows"`
	Passes  int           `json:"passes"`
	Kept    []skippedJSON `json:"kept"`
	Dropped []skippedJSON `json:"dropped"`
	// Relevance are the feature weights the sample learned (--relevance
	// auto), Scaled the grid points searched on all rows with them.
	Relevance []relevanceJSON `json:"relevance,omitempty"`
	Scaled    []skippedJSON   `json:"scaled,omitempty"`
	// Check is the weights' test on a second sample of rows
	// (kpls.RelevanceCheck), absent where the weighed grid scored no
	// better on the first.
	Check *checkJSON `json:"check,omitempty"`
}

// checkJSON is the test of the weights on a second sample: the first
// sample's best point unweighed and its best weighed, at their choices.
type checkJSON struct {
	Rows      int     `json:"rows"`
	Unweighed rowJSON `json:"unweighed"`
	Weighed   rowJSON `json:"weighed"`
}

// raceJSON is how the second round raced its points
// (kpls.Selection.RaceMargin): the margin, and the points it stopped.
type raceJSON struct {
	Margin  float64       `json:"margin"`
	Stopped []stoppedJSON `json:"stopped"`
}

// stoppedJSON is a point the race stopped: the last m fitted there
// (StoppedAt), and its choice among those m.
type stoppedJSON struct {
	Kernel    string  `json:"kernel"`
	Width     float64 `json:"width"`
	Scaled    bool    `json:"scaled,omitempty"`
	StoppedAt int     `json:"stopped_at"`
	M         int     `json:"m"`
	RMSECV    cli.Num `json:"rmsecv"`
}

// raceOf is sel's race, nil where it did not race.
func raceOf(sel *kpls.Selection) *raceJSON {
	if sel.RaceMargin == 0 {
		return nil
	}
	r := &raceJSON{Margin: sel.RaceMargin, Stopped: []stoppedJSON{}}
	for _, c := range sel.Choices {
		if !c.Raced {
			continue
		}
		last := c.M
		for _, row := range sel.Table {
			if gridLabel(row) == gridLabel(c) {
				last = max(last, row.M)
			}
		}
		r.Stopped = append(r.Stopped, stoppedJSON{Kernel: c.Kernel.Name(), Width: c.Width(), Scaled: c.Scaled, StoppedAt: last, M: c.M, RMSECV: cli.Num(c.RMSECV)})
	}
	return r
}

// relevanceJSON is one feature's weight.
type relevanceJSON struct {
	Feature string  `json:"feature"`
	Weight  float64 `json:"weight"`
}

func screenOf(sel *kpls.Selection) *screenJSON {
	sc := sel.Screen
	if sc == nil {
		return nil
	}
	var features []string
	if sel.Model != nil {
		features = sel.Model.Summary().FeatureNames
	}
	out := &screenJSON{Rows: sc.Rows, Passes: sc.Passes, Kept: gridPoints(sc.Kept), Dropped: gridPoints(sc.Dropped),
		Relevance: relevanceOf(sc.Relevance, features), Scaled: gridPoints(sc.Scaled)}
	if c := sc.Check; c != nil {
		out.Check = &checkJSON{Rows: c.Rows, Unweighed: rowOf(c.Unweighed), Weighed: rowOf(c.Weighed)}
	}
	return out
}

// weighedJSON is a small set's second search with the features weighed
// by a Gaussian process's length scales (kpls.WeighedSearch): the
// weights, the rows they were learned on, each search's best point and
// whether the weighed search was chosen.
type weighedJSON struct {
	Rows      int             `json:"rows"`
	Relevance []relevanceJSON `json:"relevance"`
	Unweighed rowJSON         `json:"unweighed"`
	Weighed   rowJSON         `json:"weighed"`
	Chosen    bool            `json:"chosen"`
}

func weighedOf(sel *kpls.Selection) *weighedJSON {
	ws := sel.Weighed
	if ws == nil {
		return nil
	}
	var features []string
	if sel.Model != nil {
		features = sel.Model.Summary().FeatureNames
	}
	return &weighedJSON{Rows: ws.Rows, Relevance: relevanceOf(ws.Relevance, features), Unweighed: rowOf(ws.Unweighed), Weighed: rowOf(ws.Weighed), Chosen: ws.Chosen}
}

// relevanceList reads weights as "name 0.66, ...".
func relevanceList(rs []relevanceJSON) string {
	var parts []string
	for _, r := range rs {
		parts = append(parts, fmt.Sprintf("%s %.2f", r.Feature, r.Weight))
	}
	return strings.Join(parts, ", ")
}

// briefFeatures is how many weights the summary lists by name: wider
// data lists its heaviest weights and the range of the rest.
const briefFeatures = 10

// relevanceBrief is relevanceList for the summary: every weight up to
// briefFeatures features, else the heaviest ones above the least weight,
// heaviest first, and the range of the others (a 255-feature list would
// bury the answer).
func relevanceBrief(rs []relevanceJSON) string {
	if len(rs) <= briefFeatures {
		return relevanceList(rs)
	}
	sorted := slices.Clone(rs)
	slices.SortStableFunc(sorted, func(a, b relevanceJSON) int { return cmp.Compare(b.Weight, a.Weight) })
	// The heaviest, but none of those at the least weight (the floor, on
	// wide data most of them).
	k := 0
	for k < briefFeatures-2 && sorted[k].Weight > sorted[len(sorted)-1].Weight {
		k++
	}
	top, rest := sorted[:k], sorted[k:]
	lo, hi := rest[len(rest)-1].Weight, rest[0].Weight
	others := fmt.Sprintf("%d more from %.2f to %.2f", len(rest), lo, hi)
	switch {
	case k == 0:
		others = fmt.Sprintf("all %d at %.2f", len(rest), lo)
	case fmt.Sprintf("%.2f", lo) == fmt.Sprintf("%.2f", hi):
		others = fmt.Sprintf("%d more at %.2f", len(rest), lo)
	}
	if len(top) > 0 {
		others = relevanceList(top) + " and " + others
	}
	return others + " (--json lists every weight)"
}

// scaledSearch says what the second round did with the weights.
func scaledSearch(sc *screenJSON) string {
	c := sc.Check
	if c == nil {
		return "the weighed grid did not score better there (or a warning says why it could not be tried), so all rows searched the points unweighed"
	}
	point := func(r rowJSON) string { return pointList([]skippedJSON{{Kernel: r.Kernel, Width: r.Width}}) }
	checked := fmt.Sprintf("checked on %d other rows, %s scored RMSECV %s weighed and %s %s unweighed", c.Rows, point(c.Weighed),
		cli.Round(float64(c.Weighed.RMSECV)), point(c.Unweighed), cli.Round(float64(c.Unweighed.RMSECV)))
	if len(sc.Scaled) == 0 {
		return checked + ", so all rows searched the points unweighed"
	}
	return checked + ", so all rows searched the points weighed"
}

// relevanceOf names the weights w by the features (F1, F2, ... where
// unnamed).
func relevanceOf(w []float64, features []string) []relevanceJSON {
	var out []relevanceJSON
	for j, v := range w {
		name := fmt.Sprintf("F%d", j+1)
		if j < len(features) {
			name = features[j]
		}
		out = append(out, relevanceJSON{Feature: name, Weight: v})
	}
	return out
}

// averageJSON is the mean of the grid points within --average-within of
// the best RMSECV that --average-by keeps (By: "stacked" or "all"): what
// the saved model predicts with.
type averageJSON struct {
	Within   float64        `json:"within"`
	By       string         `json:"by"`
	Members  []memberCVJSON `json:"members"`
	RSS      cli.Num        `json:"rss"`
	DoF      cli.Num        `json:"dof"`
	Sigma    cli.Num        `json:"sigma"`
	Training trainingJSON   `json:"training"`
}

// memberCVJSON is one model of the mean with its grid point's RMSECV.
type memberCVJSON struct {
	memberJSON
	RMSECV cli.Num `json:"rmsecv"`
	// Weight is its stacking weight (--average-by stacked; the mean
	// averages its members equally).
	Weight *float64 `json:"weight,omitempty"`
}

// averageOf describes sel's mean, nil where it did not average.
func averageOf(sel *kpls.Selection, within float64) *averageJSON {
	if sel.MeanBy == "" || sel.MeanBy == kpls.AverageNone {
		return nil
	}
	s := sel.Predictor.Summary()
	a := &averageJSON{Within: within, By: string(sel.MeanBy), RSS: cli.Num(s.Stats.RSS), DoF: cli.Num(s.Stats.DoF), Sigma: cli.Num(s.Stats.Sigma),
		Training: trainingJSON{RMSE: cli.Num(s.TrainingRMSE), R2: cli.Num(s.TrainingR2)}}
	for i, mj := range membersOf(s) {
		row := memberCVJSON{memberJSON: mj, RMSECV: cli.Num(math.NaN())}
		if i < len(sel.MeanWeights) {
			row.Weight = &sel.MeanWeights[i]
		}
		for _, c := range sel.Choices {
			if c.Kernel == s.Members[i].Kernel && c.Scaled == row.Scaled {
				row.RMSECV = cli.Num(c.RMSECV)
			}
		}
		a.Members = append(a.Members, row)
	}
	return a
}

// rowJSON is one (kernel, width, m) cell of the selection grid.
type rowJSON struct {
	Kernel     string  `json:"kernel"`
	Width      float64 `json:"width"`
	M          int     `json:"m"`
	RSS        cli.Num `json:"rss"`
	DoF        cli.Num `json:"dof"`
	DoFClipped cli.Num `json:"dof_clipped"`
	Sigma      cli.Num `json:"sigma"`
	AIC        cli.Num `json:"aic"`
	BIC        cli.Num `json:"bic"`
	GMDL       cli.Num `json:"gmdl"`
	GCV        cli.Num `json:"gcv"`
	RMSECV     cli.Num `json:"rmsecv"`
	Q2         cli.Num `json:"q2"`
	// Scaled: the features weighed by the learned relevances (the
	// screen's, or a small set's weighed search's).
	Scaled bool `json:"scaled,omitempty"`
	// Raced: the race stopped the point here (on its choice row).
	Raced bool `json:"raced,omitempty"`
}

type bestJSON struct {
	Kernel    string         `json:"kernel"`
	Width     float64        `json:"width"`
	M         int            `json:"m"`
	Criterion kpls.Criterion `json:"criterion"`
	Score     cli.Num        `json:"score"`
	RSS       cli.Num        `json:"rss"`
	DoF       cli.Num        `json:"dof"`
	Sigma     cli.Num        `json:"sigma"`
	Scaled    bool           `json:"scaled,omitempty"`
}

// trainingJSON is the chosen model's fit to its training data.
type trainingJSON struct {
	RMSE cli.Num `json:"rmse"`
	R2   cli.Num `json:"r2"`
}

func rowOf(r kpls.SelectionRow) rowJSON {
	return rowJSON{Kernel: r.Kernel.Name(), Width: r.Width(), M: r.M, RSS: cli.Num(r.RSS), DoF: cli.Num(r.DoF), DoFClipped: cli.Num(r.DoFClipped),
		Sigma: cli.Num(r.Sigma), AIC: cli.Num(r.AIC), BIC: cli.Num(r.BIC), GMDL: cli.Num(r.GMDL), GCV: cli.Num(r.GCV), RMSECV: cli.Num(r.RMSECV), Q2: cli.Num(r.Q2), Scaled: r.Scaled, Raced: r.Raced}
}

func tableJSON(rows []kpls.SelectionRow) []rowJSON {
	out := make([]rowJSON, len(rows))
	for i, r := range rows {
		out[i] = rowOf(r)
	}
	return out
}

func bestOf(s *kpls.Selection) bestJSON {
	b := s.Best
	return bestJSON{Kernel: b.Kernel.Name(), Width: b.Width(), M: b.M, Criterion: s.Criterion, Score: cli.Num(b.Score(s.Criterion)),
		RSS: cli.Num(b.RSS), DoF: cli.Num(b.DoF), Sigma: cli.Num(b.Sigma), Scaled: b.Scaled}
}

// trainingOf is the fit of m with comp components to its training rows.
func trainingOf(m *kpls.Model, comp int) trainingJSON {
	mc, err := m.At(comp)
	if err != nil {
		return trainingJSON{RMSE: cli.Num(math.NaN()), R2: cli.Num(math.NaN())}
	}
	s := mc.Summary()
	return trainingJSON{RMSE: cli.Num(s.TrainingRMSE), R2: cli.Num(s.TrainingR2)}
}

// selectConfig is a checked `kpls select` command line.
type selectConfig struct {
	mf       fitflags.Model
	c        fitflags.Common
	so       kpls.SelectOptions
	cv       kpls.CrossValidation // --folds, --repeats, --average-*, --shared-kernel
	crit     kpls.Criterion
	res      kpls.Resources
	modelOut string
	keep     fitflags.Keep
	grid     bool // --grid: the search's details and whole table in the text
}

// selectResult is a selection per target with the names and the widths
// each searched.
type selectResult struct {
	sels    []*kpls.Selection
	n, d    int
	targets []string
	widths  [][]float64 // every width searched, the default grid as extended
	weights []float64   // --weights, nil without
}

func parseSelectFlags(e *cli.Env, args []string) (*selectConfig, error) {
	fs := cli.NewFlagSet("select", "--data F.csv [flags]",
		"Chooses the kernel, its width and the number of components. Each grid point (the rbf and\n"+
			"laplacian widths and the linear kernel, by default) is fitted once per fold (--criterion cv, the\n"+
			"default: k-fold cross-validation, all folds in one product per step) or once to all rows (gcv,\n"+
			"bic, aic, gmdl: from the DoF, no refits), and every m is read from that run; while a choice is\n"+
			"not clearly behind the largest m fitted, the components grow (cross-validation on 2,048 rows or\n"+
			"more: as far as the choice needs; otherwise doubled), up to what the data allow, --max-components\n"+
			"or --max-passes. Prints the whole table and saves the chosen model with its choice, which kpls\n"+
			"predict then uses. Without --widths the grid is each kernel's default width times 1/4 … 4: rbf\n"+
			"d/8, d/4, d/2, d, 2d for d features (on standardised features w = d/2 is scikit-learn's default\n"+
			"gamma = 1/d), laplacian √d/4 … 4√d.")
	cfg := &selectConfig{}
	f := cfg.register(fs)
	cfg.c.Register(fs, true)
	if err := fs.Parse(e, args); err != nil {
		return nil, err
	}
	opts, res, err := cfg.mf.Options(fs, "exact", "lanczos", "approx")
	if err != nil {
		return nil, err
	}
	if !fs.IsSet("dof") && !fs.IsSet("lanczos") {
		// Left at its default, the library fits the DoF where they are
		// used: not for the members of a mean, the best included.
		opts.DoF = ""
	}
	so := &cfg.so
	so.Components, so.DoF, so.Lanczos, so.Seed, so.RawFeatures = opts.Components, opts.DoF, opts.Lanczos, opts.Seed, opts.RawFeatures
	if err := cfg.checkSearch(fs, f); err != nil {
		return nil, err
	}
	if err := selectGrid(fs, so, opts.Kernel, res.Storage, *f.kernels, *f.widths); err != nil {
		return nil, err
	}
	if err := checkKeep(fs, &cfg.keep, cfg.modelOut, so.MaxComponents); err != nil {
		return nil, err
	}
	if err := checkOutput("--model", cfg.modelOut, "--data", cfg.mf.Data); err != nil {
		return nil, err
	}
	if res.Backend, err = cfg.c.BLASBackend(); err != nil {
		return nil, err
	}
	res.Comm = ranks
	cfg.res = res
	return cfg, nil
}

// selectFlags are select's flags read after parsing.
type selectFlags struct{ widths, kernels, crit, averageBy, screen, relevance, race *string }

// register adds select's flags to fs.
func (cfg *selectConfig) register(fs *cli.FlagSet) selectFlags {
	var f selectFlags
	cfg.mf.Register(fs, string(kpls.DoFApprox))
	f.widths = fs.String("widths", "", "comma-separated kernel `widths` w1,w2,... for rbf, laplacian and the Matérn kernels; empty means each kernel's default width times 1/4, 1/2, 1, 2, 4 (rbf: d/8,...,2d), extended by factors of 2 while the best sits at an edge and improves there")
	f.kernels = fs.String("kernels", fitflags.DefaultKernels(), "comma-separated `kernels` to search: rbf, laplacian, matern32, matern52, linear, polynomial (--kernel K alone searches K only)")
	f.crit = fs.String("criterion", string(kpls.DefaultCriterion), "how to choose: cv (k-fold cross-validation), gcv, bic, aic or gmdl (from the DoF)")
	fs.IntVar(&cfg.cv.Folds, "folds", kpls.DefaultFolds, "cross-validation `folds` (--criterion cv)")
	fs.IntVar(&cfg.cv.Repeats, "repeats", 0, "repeat cross-validation `R` times over new fold assignments (seeds (--seed, r)) and pool their held-out errors; 0 means once")
	fs.Float64Var(&cfg.cv.AverageWithin, "average-within", kpls.DefaultAverageWithin, "predict with the mean of grid points whose RMSECV is within this `fraction` of the best one's (0.1: within 10 %), chosen by --average-by, each fitted to all rows at its own m without DoF (the best with them if --dof is given); 0 means the best point alone (--criterion cv; the DoF criteria choose one point)")
	f.averageBy = fs.String("average-by", string(kpls.AverageStacked), "which grid points within --average-within the mean averages, besides the best: `stacked` (those that stacked regression, non-negative weights summing to one fitted to the folds' predictions, weighs by half a percent or more) or all; none is --average-within 0")
	fs.IntVar(&cfg.so.MaxComponents, "max-components", 0, "extend the components up to `M` (0: what the data allow)")
	f.screen = fs.String("screen", "auto", "score the grid first on a seeded sample of rows and search on all rows only its best points (the two best and each other kernel's best, within 15 % of the best RMSECV on the sample): `auto|off|ROWS`, auto being n/8 rows (at least 2048) from 6144 rows on with --criterion cv, not with --weights")
	f.relevance = fs.String("relevance", "auto", "`auto|off`: auto learns a weight per feature (one target, standardised features, rbf among --kernels, cross-validation). Below 6,144 rows (from 50, up to 256 features, without --weights, one process) a Gaussian process with a length scale per feature learns them on at most 1,000 rows, the grid is searched again with the features weighed, the search with the smaller best RMSECV is kept, and its mean may take points of both. A screen whose sample is at most a third of the rows learns them there (the gradient of its best rbf fit) and, if the weighed grid scores better there and its best point scores better weighed on as many other rows, searches the weighed points on all rows instead of the unweighed ones; off weighs every feature alike")
	f.race = fs.String("race", "auto", "`auto|off`: auto races the points a screen keeps on all rows, the sample's best first, and stops a point once its least RMSECV is more than 15 % above the best point's over the same m (once that m is half the best's choice, and the gap not closing since half the m); off searches each to its own choice of m")
	fs.IntVar(&cfg.so.MaxPasses, "max-passes", kpls.DefaultMaxPasses, "the search's budget of `passes` over the kernel matrix (a build, or one product with a block of vectors)")
	fs.StringVar(&cfg.modelOut, "model", "", "save the chosen model to this `file` for kpls predict")
	cfg.keep.Register(fs)
	fs.BoolVar(&cfg.grid, "grid", false, "print how the search ran and its whole table (every kernel, width and m) before the summary")
	fs.BoolVar(&cfg.cv.SharedKernel, "shared-kernel", false, "with several --target columns, choose one kernel and width for all of them (by the mean of 1 − Q²; each target keeps its own m); --criterion cv only")
	return f
}

// checkSearch sets how cfg.so scores the grid from the flags and checks
// the search's flags against each other.
func (cfg *selectConfig) checkSearch(fs *cli.FlagSet, f selectFlags) error {
	so, cv := &cfg.so, &cfg.cv
	if err := cfg.crit.UnmarshalText([]byte(*f.crit)); err != nil {
		return cli.Usagef("--criterion: unknown criterion %q (want cv, gcv, bic, aic or gmdl)", *f.crit)
	}
	cfg.crit = cmp.Or(cfg.crit, kpls.DefaultCriterion)
	isCV := cfg.crit == kpls.CV
	// The values themselves are the library's to check (its errors name
	// the field, DataErr the flag); here only what the flags mean
	// together, the values a flag gives another meaning than the library
	// (--folds 0 is no default here), and flags the library never sees
	// (the averaging margin without cross-validation).
	switch {
	case isCV && cv.Folds < 2:
		return cli.Usagef("--folds: %d, want at least 2", cv.Folds)
	case !(cv.AverageWithin >= 0) || math.IsInf(cv.AverageWithin, 0):
		return cli.Usagef("--average-within: %g, want a fraction ≥ 0", cv.AverageWithin)
	case fs.IsSet("repeats") && !isCV:
		return cli.Usagef("--repeats applies to cross-validation: --criterion cv")
	case fs.IsSet("average-within") && cv.AverageWithin > 0 && !isCV:
		return cli.Usagef("--average-within averages the grid points cross-validation scored: --criterion cv")
	case so.MaxPasses < 1:
		return cli.Usagef("--max-passes: %d, want at least 1", so.MaxPasses)
	case cv.SharedKernel && !isCV:
		return cli.Usagef("--shared-kernel needs --criterion cv (the DoF criteria of different targets do not add up to one score)")
	case fs.IsSet("components") && so.MaxComponents > 0 && so.MaxComponents < cfg.mf.Components:
		return cli.Usagef("--max-components %d is below --components %d", so.MaxComponents, cfg.mf.Components)
	}
	if err := cv.AverageBy.UnmarshalText([]byte(*f.averageBy)); err != nil {
		return cli.Usagef("--average-by: %q, want stacked, all or none", *f.averageBy)
	}
	switch strings.ToLower(*f.screen) {
	case "auto":
	case "off":
		so.ScreenRows = -1
	default:
		rows, err := strconv.Atoi(*f.screen)
		if err != nil || rows < 2 {
			return cli.Usagef("--screen: %q, want auto, off or a number of rows (at least 2)", *f.screen)
		}
		so.ScreenRows = rows
	}
	switch strings.ToLower(*f.relevance) {
	case "auto":
	case "off":
		so.Isotropic = true
	default:
		return cli.Usagef("--relevance: %q, want auto or off", *f.relevance)
	}
	switch strings.ToLower(*f.race) {
	case "auto":
	case "off":
		so.Exhaustive = true
	default:
		return cli.Usagef("--race: %q, want auto or off", *f.race)
	}
	if !isCV {
		cv.AverageWithin = 0 // the default margin is cross-validation's
		so.By = cfg.crit
		return nil
	}
	if cv.AverageWithin == 0 {
		cv.AverageBy = kpls.AverageNone // 0: the best point alone
	}
	so.By = *cv
	return nil
}

// bestSoFar tells, on stderr, the best grid point an interrupted search
// had scored for each target: nothing was fitted to all rows, so nothing
// is saved.
func bestSoFar(e *cli.Env, sels []*kpls.Selection, targets []string) {
	for i, sel := range sels {
		b := sel.Best
		points := fmt.Sprintf("%d grid points", len(sel.Choices))
		if len(sel.Choices) == 1 {
			points = "1 grid point"
		}
		fmt.Fprintf(e.Stderr, "%s: interrupted after %s; the best so far%s: %s, m = %d, %s %s (not saved: rerun to fit it)\n",
			e.Prog, points, modelOf(targets, i), gridLabel(b), b.M, sel.Criterion, cli.Round(b.Score(sel.Criterion)))
	}
}

// selectGrid sets the kernels and widths of so from --kernel, --kernels
// and --widths.
func selectGrid(fs *cli.FlagSet, so *kpls.SelectOptions, kernel kpls.Kernel, storage kpls.Storage, kernels, widthList string) error {
	if fs.IsSet("kernel") && fs.IsSet("kernels") {
		return cli.Usagef("give --kernel or --kernels, not both")
	}
	var err error
	if fs.IsSet("kernel") {
		so.Kernels = []kpls.Kernel{kernel}
	} else if so.Kernels, err = fitflags.ParseKernels(kernels, kernel); err != nil {
		return err
	}
	if err := fitflags.FeaturesOnlyLinear(storage, so.Kernels...); err != nil {
		return err
	}
	if fs.IsSet("widths") {
		if !slices.ContainsFunc(so.Kernels, func(k kpls.Kernel) bool { _, ok := kpls.WidthOf(k); return ok }) {
			return cli.Usagef("--widths: none of the kernels (%s) has a width", kernelList(so.Kernels))
		}
		if so.Widths, err = fitflags.ParseWidths(widthList); err != nil {
			return err
		}
	}
	return nil
}

// run reads the data, selects and saves the chosen model (one per
// target).
func (cfg *selectConfig) run(ctx context.Context, e *cli.Env) (*selectResult, error) {
	t, err := cfg.mf.ReadTraining(e)
	if err != nil {
		return nil, err
	}
	tr, err := cfg.mf.Split(t)
	if err != nil {
		return nil, err
	}
	if cfg.cv.SharedKernel && len(tr.Targets) == 1 {
		fmt.Fprintf(e.Stderr, "%s: warning: --shared-kernel with one target changes nothing\n", e.Prog)
	}
	prog := cfg.c.NewProgress(e)
	res := cfg.res
	res.Progress = prog.Callback()
	data := kpls.Data{X: mat.NewDense(tr.N, len(tr.Features), tr.X), Y: mat.NewDense(tr.N, len(tr.Targets), tr.Y),
		Weights: tr.W, FeatureNames: tr.Features, TargetNames: tr.Targets}
	var sels []*kpls.Selection
	if len(tr.Targets) == 1 {
		var sel *kpls.Selection
		sel, err = kpls.Select(ctx, data, cfg.so, &res)
		sels = []*kpls.Selection{sel}
	} else {
		sels, err = kpls.SelectTargets(ctx, data, cfg.so, &res)
	}
	prog.Done()
	if err != nil {
		if sels != nil && ctx.Err() != nil {
			bestSoFar(e, sels, tr.Targets)
		}
		return nil, fitflags.DataErr(cfg.mf.Data, err)
	}
	r := &selectResult{sels: sels, n: tr.N, d: len(tr.Features), targets: tr.Targets, weights: tr.W}
	for _, sel := range sels {
		r.widths = append(r.widths, searchedWidths(sel, cfg.so.Widths))
	}
	if cfg.modelOut != "" {
		if err := saveSelected(e, &cfg.keep, sels, tr.Targets, cfg.modelOut); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// searchedWidths is every width a selection searched: the given ones, or
// the library's default grid as extended (on the screen's sample too).
func searchedWidths(sel *kpls.Selection, given []float64) []float64 {
	if given != nil {
		return given
	}
	var widths []float64
	seen := map[float64]bool{}
	ks := make([]kpls.Kernel, 0, len(sel.Choices))
	for _, c := range sel.Choices {
		ks = append(ks, c.Kernel)
	}
	if sc := sel.Screen; sc != nil {
		ks = append(ks, sc.Dropped...) // the sample searched them
	}
	for _, k := range ks {
		if w, ok := kpls.WidthOf(k); ok && !seen[w] {
			seen[w] = true
			widths = append(widths, w)
		}
	}
	slices.Sort(widths)
	return widths
}

func (cfg *selectConfig) kernelNames() []string {
	names := make([]string, len(cfg.so.Kernels))
	for i, k := range cfg.so.Kernels {
		names[i] = k.Name()
	}
	return names
}

// render writes the result as JSON (--json) or as text, one document or
// section per target.
func (cfg *selectConfig) render(e *cli.Env, r *selectResult) error {
	if cfg.c.JSON {
		docs := make([]selectJSON, len(r.sels))
		for i := range r.sels {
			docs[i] = cfg.document(e, r, i)
		}
		return writeTargets(e.Stdout, docs)
	}
	w := cfg.c.Text(e)
	for i := range r.sels {
		targetHeading(w, r.targets, i)
		cfg.renderText(w, r, i)
	}
	return nil
}

func (cfg *selectConfig) document(e *cli.Env, r *selectResult, i int) selectJSON {
	sel := r.sels[i]
	o := sel.Model.Options()
	warnLines(e.Stderr, targetPrefixed(r.targets, i, messages(sel.Warnings)))
	doc := selectJSON{
		Data: cfg.mf.Data, N: r.n, D: r.d, Target: r.targets[i], Kernels: cfg.kernelNames(),
		Standardize: !o.RawFeatures, DoFMethod: o.DoF, Lanczos: o.Lanczos, Components: sel.Model.Summary().Members[0].MaxComponents,
		Criterion: sel.Criterion, Widths: r.widths[i], Skipped: skippedOf(sel), Screen: screenOf(sel), Race: raceOf(sel), Weighed: weighedOf(sel), Passes: sel.Passes, MaxPasses: cfg.so.MaxPasses, Backend: backendName(cfg.res), Storage: storageOf(sel.Model, cfg.res), Warnings: warningsJSON(sel.Warnings),
		Table: tableJSON(sel.Table), Choices: tableJSON(sel.Choices), Best: bestOf(sel),
		Training: trainingOf(sel.Model, sel.Best.M), Average: averageOf(sel, cfg.cv.AverageWithin), Weights: weightsOf(r.weights, cfg.mf.Weights), Model: cfg.modelOut,
	}
	if sel.Criterion == kpls.CV {
		doc.Folds, doc.Repeats = cfg.cv.Folds, sel.Repeats
	}
	return doc
}

// renderText writes a short summary of selection i: what was searched,
// what was chosen, the mean's members, the cross-validated scores and
// where the model went; with --grid first the search's details and every
// row of its table. Numbers are rounded for reading (--json keeps them
// whole).
func (cfg *selectConfig) renderText(w io.Writer, r *selectResult, i int) {
	sel := r.sels[i]
	o := sel.Model.Options()
	cv := sel.Criterion == kpls.CV
	if cfg.grid {
		cfg.gridDetails(w, sel)
	}
	fmt.Fprintf(w, "data       %s: n = %d, d = %d, target %q, features %s\n", cfg.mf.Data, r.n, r.d, r.targets[i], standardized(o))
	how := string(sel.Criterion)
	if cv {
		how = fmt.Sprintf("%d-fold cross-validation", cfg.cv.Folds)
		if sel.Repeats > 1 {
			how += fmt.Sprintf(" repeated %d times", sel.Repeats)
		}
	}
	if sc := screenOf(sel); sc != nil {
		searched := pointList(sc.Kept)
		if len(sc.Scaled) > 0 {
			searched = pointList(sc.Scaled) + ", the features weighed"
		}
		fmt.Fprintf(w, "screened   the grid on a sample of %d rows first (%s): all rows searched its best points, %s, and dropped %s (--screen off searches every point on all rows)\n",
			sc.Rows, count(sc.Passes, "pass"), searched, count(len(sc.Dropped), "other point"))
		if sc.Relevance != nil {
			fmt.Fprintf(w, "relevance  learned on the sample: %s; %s (--relevance off weighs every feature alike)\n", relevanceBrief(sc.Relevance), scaledSearch(sc))
		}
	}
	if ws := weighedOf(sel); ws != nil {
		which := "unweighed"
		if ws.Chosen {
			which = "weighed"
		}
		mixed := ""
		if m, ok := sel.Predictor.(*kpls.Mean); ok {
			weighed := 0
			for _, mm := range m.Members() {
				if mm.Options().Relevance != nil {
					weighed++
				}
			}
			if n := len(m.Members()); weighed > 0 && weighed < n {
				mixed = fmt.Sprintf(", and the mean takes points of both searches (%d of %d weighed)", weighed, n)
			}
		}
		fmt.Fprintf(w, "relevance  learned by a Gaussian process with a length scale per feature on %d rows (a weight follows how fast y varies along the feature, not how much of y it explains): %s; the grid searched again weighed, best RMSECV %s weighed against %s unweighed, so the best point is %s%s (--relevance off weighs every feature alike)\n",
			ws.Rows, relevanceBrief(ws.Relevance), cli.Round(float64(ws.Weighed.RMSECV)), cli.Round(float64(ws.Unweighed.RMSECV)), which, mixed)
	}
	if rc := raceOf(sel); rc != nil && len(rc.Stopped) > 0 {
		var parts []string
		for _, r := range rc.Stopped {
			parts = append(parts, fmt.Sprintf("%s at m = %d", scaledName(pointList([]skippedJSON{{Kernel: r.Kernel, Width: r.Width}}), r.Scaled), r.StoppedAt))
		}
		fmt.Fprintf(w, "raced      stopped %s, more than %.4g %% behind the best point's RMSECV over the same m (--race off searches each to its own choice)\n", strings.Join(parts, ", "), 100*rc.Margin)
	}
	fmt.Fprintf(w, "searched   %s; m up to %d; by %s\n", searchedKernels(sel), maxM(sel), how)
	b := sel.Best
	if cv {
		fmt.Fprintf(w, "best       %s, m = %d: RMSECV %s, Q² %s\n", gridLabel(b), b.M, cli.Round(b.RMSECV), cli.Round(b.Q2))
	} else {
		fmt.Fprintf(w, "best       %s, m = %d: %s %s, DoF %s, σ̂ %s\n", gridLabel(b), b.M, sel.Criterion, cli.Round(b.Score(sel.Criterion)), cli.Round(b.DoF), cli.Round(b.Sigma))
	}
	a := averageOf(sel, cfg.cv.AverageWithin)
	train := trainingOf(sel.Model, b.M)
	whose := "the best"
	if a != nil && len(a.Members) > 1 {
		how := fmt.Sprintf("within %.4g %% of the best RMSECV", 100*a.Within)
		if a.By == string(kpls.AverageStacked) {
			how = fmt.Sprintf("that stacking weighs among those %s", how)
		}
		fmt.Fprintf(w, "chosen     the mean of %d models %s:\n", len(a.Members), how)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprint(tw, "\tkernel\twidth\tm\tRMSECV\tQ²\tweight\t\n")
		for _, m := range a.Members {
			width, q2, weight := "-", "—", "-"
			if m.Width != nil {
				width = cli.Round(*m.Width)
			}
			for _, c := range sel.Choices {
				if c.Kernel.Name() == m.Kernel && (m.Width == nil || c.Width() == *m.Width) && c.Scaled == m.Scaled {
					q2 = cli.Round(c.Q2)
				}
			}
			if m.Weight != nil {
				weight = fmt.Sprintf("%.2f", *m.Weight)
			}
			fmt.Fprintf(tw, "          \t%s\t%s\t%d\t%s\t%s\t%s\t\n", scaledName(m.Kernel, m.Scaled), width, m.M, cli.Round(float64(m.RMSECV)), q2, weight)
		}
		tw.Flush()
		train, whose = a.Training, "the mean"
	} else {
		fmt.Fprintf(w, "chosen     the best\n")
	}
	fmt.Fprintf(w, "training   RMSE %s, R² %s (%s, on the rows it was fitted to)\n", cli.Round(float64(train.RMSE)), cli.Round(float64(train.R2)), whose)
	if cfg.modelOut != "" {
		fmt.Fprintf(w, "model      saved to %s (kpls predict --model %s --data NEW.csv)\n", cfg.modelOut, cfg.modelOut)
	} else {
		fmt.Fprintf(w, "model      not saved (--model FILE saves it for kpls predict)\n")
	}
	if !cfg.grid {
		fmt.Fprintf(w, "grid       %d rows over %s: --grid prints them, --json gives every number in full\n", len(sel.Table), count(len(sel.Choices), "grid point"))
	}
	printWarnings(w, messages(sel.Warnings))
}

// gridDetails writes how the search ran and its whole table (--grid).
func (cfg *selectConfig) gridDetails(w io.Writer, sel *kpls.Selection) {
	o := sel.Model.Options()
	dofNote := ""
	if o.DoF == kpls.DoFNone && len(sel.Predictor.Summary().Members) > 1 {
		dofNote = " (the mean's members; --dof approx computes the best's)"
	}
	seed := ""
	if sel.Criterion == kpls.CV {
		seed = fmt.Sprintf("; folds seeded by --seed %d", cfg.so.Seed)
	}
	fmt.Fprintf(w, "criterion  %s%s; DoF %s%s%s; backend %s\n", sel.Criterion, seed, o.DoF, dofNote, lanczosNote(o.DoF, o.Lanczos), backendName(cfg.res))
	fmt.Fprintf(w, "storage    %s (the fit to all rows)\n", describeStorage(storageOf(sel.Model, cfg.res)))
	fmt.Fprintf(w, "search     %s over the kernel matrix (budget %d)\n", count(sel.Passes, "pass"), cfg.so.MaxPasses)
	if sk := skippedOf(sel); sk != nil {
		fmt.Fprintf(w, "skipped    %s: wider than where the score turned worse, by more than %g %% of the best\n", pointList(sk), 100*max(cfg.cv.AverageWithin, kpls.DefaultAverageWithin))
	}
	fmt.Fprintln(w)
	selectionTable(w, sel)
	fmt.Fprintln(w)
}

// pointList lists grid points as "rbf 2, laplacian 11.3".
func pointList(ps []skippedJSON) string {
	var parts []string
	for _, g := range ps {
		if g.Width == 0 {
			parts = append(parts, g.Kernel)
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %s", g.Kernel, cli.Round(g.Width)))
	}
	if parts == nil {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// searchedKernels describes the grid: each kernel with the range of its
// widths.
func searchedKernels(sel *kpls.Selection) string {
	type span struct {
		lo, hi float64
		n      int
	}
	var names []string
	spans := map[string]*span{}
	for _, c := range sel.Choices {
		name := scaledName(c.Kernel.Name(), c.Scaled)
		sp, ok := spans[name]
		if !ok {
			sp = &span{lo: math.Inf(1), hi: math.Inf(-1)}
			spans[name] = sp
			names = append(names, name)
		}
		if w, ok := kpls.WidthOf(c.Kernel); ok {
			sp.lo, sp.hi, sp.n = min(sp.lo, w), max(sp.hi, w), sp.n+1
		}
	}
	parts := make([]string, len(names))
	for i, name := range names {
		parts[i] = name
		switch sp := spans[name]; {
		case sp.n == 1:
			parts[i] += " width " + cli.Round(sp.lo)
		case sp.n > 1:
			parts[i] += fmt.Sprintf(" (%d widths %s–%s)", sp.n, cli.Round(sp.lo), cli.Round(sp.hi))
		}
	}
	return strings.Join(parts, ", ")
}

// maxM is the largest m the search's table holds.
func maxM(sel *kpls.Selection) int {
	m := 0
	for _, r := range sel.Table {
		m = max(m, r.M)
	}
	return m
}

func kernelList(ks []kpls.Kernel) string {
	names := make([]string, len(ks))
	for i, k := range ks {
		names[i] = k.Name()
	}
	return strings.Join(names, ", ")
}

// gridLabel names a row's grid point as the library labels it (its
// warnings begin with the label).
func gridLabel(r kpls.SelectionRow) string {
	name := r.Kernel.Name()
	if w, ok := kpls.WidthOf(r.Kernel); ok {
		name += " width " + cli.Cell(w)
	}
	return scaledName(name, r.Scaled)
}

// scaledName marks a kernel's name or label where its features are
// weighed by the relevances the screen learned.
func scaledName(name string, scaled bool) string {
	if scaled {
		return name + " scaled"
	}
	return name
}

// selectionTable writes every row of the grid; "*" marks each grid
// point's choice and "<= best" the winner.
func selectionTable(w io.Writer, sel *kpls.Selection) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	cv := sel.Criterion == kpls.CV
	cols := 10
	if cv {
		cols = 7
		fmt.Fprint(tw, "kernel\twidth\tm\tRMSECV\tQ²\tRSS\tDoF\t\n")
	} else {
		fmt.Fprint(tw, "kernel\twidth\tm\tRSS\tDoF\tsigma\tGCV\tAIC\tBIC\tgMDL\t\n")
	}
	chosen := map[string]int{}
	for _, c := range sel.Choices {
		chosen[gridLabel(c)] = c.M
	}
	for i, r := range sel.Table {
		if i > 0 && gridLabel(r) != gridLabel(sel.Table[i-1]) {
			// A line of empty cells, so that the columns stay aligned
			// across the grid points.
			fmt.Fprint(tw, strings.Repeat("\t", cols)+"\n")
		}
		mark := ""
		if m, ok := chosen[gridLabel(r)]; ok && m == r.M {
			mark = " *"
			if gridLabel(r) == gridLabel(sel.Best) && r.M == sel.Best.M {
				mark = " * <= best"
			}
		}
		width := "-"
		if w, ok := kpls.WidthOf(r.Kernel); ok {
			width = cli.Round(w)
		}
		v := cli.Round
		if cv {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\n", scaledName(r.Kernel.Name(), r.Scaled), width, r.M, v(r.RMSECV), v(r.Q2), v(r.RSS), v(r.DoF), mark)
		} else {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", scaledName(r.Kernel.Name(), r.Scaled), width, r.M, v(r.RSS), v(r.DoF), v(r.Sigma), v(r.GCV), v(r.AIC), v(r.BIC), v(r.GMDL), mark)
		}
	}
	tw.Flush()
}
