package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/cmd/cli"
	"github.com/kpls-go/kpls/cmd/cli/fitflags"
	"github.com/kpls-go/kpls/internal/dataset"
	"github.com/kpls-go/kpls/kpls"
	"github.com/kpls-go/kpls/lab/allm"
	"github.com/kpls-go/kpls/lab/panel"
)

// evalJSON is the document of `kpls-lab eval --json`.
type evalJSON struct {
	Data    string          `json:"data"`
	N       int             `json:"n"`
	D       int             `json:"d"`
	Target  string          `json:"target"`
	Splits  []evalSplitJSON `json:"splits"`
	Summary []evalSummary   `json:"summary"`
}

type evalSplitJSON struct {
	Split   int              `json:"split"`
	NTrain  int              `json:"n_train"`
	NTest   int              `json:"n_test"`
	Methods []evalMethodJSON `json:"methods"`
}

type evalMethodJSON struct {
	Method  string  `json:"method"`
	Kernel  string  `json:"kernel"`
	Width   float64 `json:"width"`
	M       int     `json:"m"`
	RMSE    cli.Num `json:"rmse"`
	Seconds float64 `json:"seconds"`
}

type evalSummary struct {
	Method        string  `json:"method"`
	MedianRMSE    cli.Num `json:"median_rmse"`
	MedianSeconds float64 `json:"median_seconds"`
	// RatioToOracle is the median over splits of RMSE / oracle RMSE.
	RatioToOracle cli.Num `json:"ratio_to_oracle"`
}

// evalConfig is a checked `kpls-lab eval` command line.
type evalConfig struct {
	mf         fitflags.Model
	c          fitflags.Common
	opts       kpls.Options // without a kernel: so holds the grid
	res        kpls.Resources
	repeats    int // --repeats of cross-validation
	so         kpls.SelectOptions
	crits      []kpls.Criterion
	splitDir   string
	splits     int
	testFrac   float64
	maxTrain   int
	oracleComp int
	average    []int     // cv-avgK: the mean prediction of the K best grid points by CV
	within     []float64 // cv-inD: the mean prediction of the grid points within (1+D)·the best RMSECV
}

func runEval(ctx context.Context, e *cli.Env, args []string) error {
	cfg, err := parseEvalFlags(e, args)
	if err != nil {
		return err
	}
	doc, err := cfg.run(ctx, e)
	if err != nil {
		return err
	}
	if cfg.c.JSON {
		return cli.WriteJSON(e.Stdout, doc)
	}
	return renderEval(cfg.c.Text(e), doc)
}

func parseEvalFlags(e *cli.Env, args []string) (*evalConfig, error) {
	fs := cli.NewFlagSet("eval", "--data F.csv [flags]",
		"Measures model selection on held-out data: over seeded random train/test splits (or the splits\n"+
			"in --split-dir), runs kpls select with each method (--methods), predicts the test rows with the\n"+
			"chosen model and reports its held-out RMSE and the wall time of the selection, next to the oracle:\n"+
			"the best (kernel, width, m) on the grid (the default widths d/16…4d) judged by the test rows\n"+
			"themselves. lab/peer runs scikit-learn's KernelRidge + GridSearchCV and GPR on the same split files.")
	cfg := &evalConfig{}
	cfg.mf.Register(fs, string(kpls.DoFApprox))
	fs.StringVar(&cfg.splitDir, "split-dir", "", "read the splits from `DIR`/split-K.train and split-K.test (0-based data-row indices, one per line)")
	fs.IntVar(&cfg.splits, "splits", 3, "number of random `splits` (without --split-dir)")
	fs.Float64Var(&cfg.testFrac, "test-fraction", 0.25, "share of rows held out per split (without --split-dir)")
	fs.IntVar(&cfg.maxTrain, "max-train", 0, "train on at most `N` random rows of each split's training part; 0 means all")
	methods := fs.String("methods", "cv,gcv,bic,aic,gmdl", "comma-separated selection `methods`: cv, gcv, bic, aic, gmdl")
	widthList := fs.String("widths", "", "comma-separated RBF `widths`; empty means d/8,d/4,d/2,d,2d")
	kernels := fs.String("kernels", fitflags.DefaultKernels(), "comma-separated `kernels` to search")
	fs.IntVar(&cfg.so.MaxComponents, "max-components", 0, "extend the components up to `M` (0: what the data allow)")
	fs.IntVar(&cfg.repeats, "repeats", 0, "repeats of cross-validation for the cv method (0: once)")
	fs.IntVar(&cfg.oracleComp, "oracle-components", 60, "the oracle scores m = 0..`M` at every grid point")
	within := fs.String("average-within", "", "also report cv-inD for each D of this comma-separated `list`: the mean of the predictions of the grid points whose RMSECV is at most (1+D) times the best one's (an experiment; needs cv in --methods)")
	averages := fs.String("average", "", "also report cv-avgK for each K of this comma-separated `list`: the mean of the predictions of the K grid points with the lowest RMSECV, each fitted to the training rows at its own m (an experiment; needs cv in --methods)")
	cfg.c.Register(fs, true)
	if err := fs.Parse(e, args); err != nil {
		return nil, err
	}
	for _, f := range strings.Split(*within, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		v, err := strconv.ParseFloat(f, 64)
		if err != nil || !(v >= 0) {
			return nil, cli.Usagef("--average-within: %q, want relative margins ≥ 0", f)
		}
		cfg.within = append(cfg.within, v)
	}
	for _, f := range strings.Split(*averages, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		k, err := strconv.Atoi(f)
		if err != nil || k < 2 {
			return nil, cli.Usagef("--average: %q, want whole numbers of grid points, at least 2", f)
		}
		cfg.average = append(cfg.average, k)
	}
	opts, res, err := cfg.mf.Options(fs, "exact", "lanczos", "approx")
	if err != nil {
		return nil, err
	}
	poly := opts.Kernel // --degree and --offset for a polynomial in --kernels
	opts.Kernel = nil
	switch {
	case cfg.splitDir == "" && cfg.splits < 1:
		return nil, cli.Usagef("--splits: %d, want at least 1", cfg.splits)
	case cfg.splitDir == "" && !(cfg.testFrac > 0 && cfg.testFrac < 1):
		return nil, cli.Usagef("--test-fraction: %g, want a number strictly between 0 and 1", cfg.testFrac)
	case cfg.maxTrain < 0:
		return nil, cli.Usagef("--max-train: %d, want 0 or more", cfg.maxTrain)
	case cfg.oracleComp < 1:
		return nil, cli.Usagef("--oracle-components: %d, want at least 1", cfg.oracleComp)
	}
	if cfg.crits, err = parseMethods(*methods); err != nil {
		return nil, err
	}
	cfg.so.Seed = cfg.mf.Seed
	if cfg.so.Kernels, err = fitflags.ParseKernels(*kernels, poly); err != nil {
		return nil, err
	}
	if fs.IsSet("widths") {
		if cfg.so.Widths, err = fitflags.ParseWidths(*widthList); err != nil {
			return nil, err
		}
	}
	if res.Backend, err = cfg.c.BLASBackend(); err != nil {
		return nil, err
	}
	cfg.opts, cfg.res = opts, res
	return cfg, nil
}

// parseMethods parses --methods, distinct selection criteria.
func parseMethods(methods string) ([]kpls.Criterion, error) {
	var crits []kpls.Criterion
	for _, s := range strings.Split(methods, ",") {
		var cr kpls.Criterion
		if err := cr.UnmarshalText([]byte(strings.TrimSpace(s))); err != nil || s == "" {
			return nil, cli.Usagef("--methods: unknown method %q (want cv, gcv, bic, aic or gmdl)", s)
		}
		if slices.Contains(crits, cr) {
			return nil, cli.Usagef("--methods: %s appears twice", cr)
		}
		crits = append(crits, cr)
	}
	return crits, nil
}

// run reads the data and the splits and evaluates every split.
func (cfg *evalConfig) run(ctx context.Context, e *cli.Env) (*evalJSON, error) {
	t, err := dataset.ReadFile(cfg.mf.Data)
	if err != nil {
		return nil, err
	}
	x, y, features, err := t.Split(cfg.mf.Target)
	if err != nil {
		return nil, err
	}
	n, d := t.Rows, len(features)
	parts, err := cfg.parts(n)
	if err != nil {
		return nil, err
	}
	// The oracle's grid: the given widths, or the default ones with one
	// more factor of 2 on each side (select extends them the same way).
	oracleWidths := cfg.so.Widths
	if oracleWidths == nil {
		fd := float64(d)
		oracleWidths = []float64{fd / 16, fd / 8, fd / 4, fd / 2, fd, 2 * fd, 4 * fd}
	}
	xm := mat.NewDense(n, d, x)
	doc := &evalJSON{Data: cfg.mf.Data, N: n, D: d, Target: fitflags.TargetName(t, cfg.mf.Target)}
	opts := cfg.opts
	for si, p := range parts {
		sp, err := cfg.runSplit(ctx, e, opts, si, p, xm, y, oracleWidths)
		if err != nil {
			return nil, err
		}
		doc.Splits = append(doc.Splits, sp)
	}
	doc.Summary = summarize(doc.Splits)
	return doc, nil
}

// parts are the splits of n rows: read from --split-dir or drawn at
// random, each training part then cut to --max-train random rows.
func (cfg *evalConfig) parts(n int) ([]evalPart, error) {
	var parts []evalPart
	if cfg.splitDir != "" {
		var err error
		if parts, err = readSplits(cfg.splitDir, n); err != nil {
			return nil, err
		}
	} else {
		parts = randomSplits(n, cfg.splits, cfg.testFrac, cfg.mf.Seed)
	}
	if cfg.maxTrain > 0 {
		for i := range parts {
			if len(parts[i].train) > cfg.maxTrain {
				r := rand.New(rand.NewPCG(cfg.mf.Seed, uint64(i)+0x7472))
				r.Shuffle(len(parts[i].train), func(a, b int) { parts[i].train[a], parts[i].train[b] = parts[i].train[b], parts[i].train[a] })
				parts[i].train = parts[i].train[:cfg.maxTrain]
			}
		}
	}
	return parts, nil
}

// runSplit selects with each method on the training rows of split si and
// scores the choice on its test rows, then finds the oracle.
func (cfg *evalConfig) runSplit(ctx context.Context, e *cli.Env, opts kpls.Options, si int, p evalPart, xm *mat.Dense, y, oracleWidths []float64) (evalSplitJSON, error) {
	xtr, ytr := panel.Rows(xm, y, p.train)
	xte, yte := panel.Rows(xm, y, p.test)
	sp := evalSplitJSON{Split: si, NTrain: len(p.train), NTest: len(p.test)}
	for _, cr := range cfg.crits {
		fmt.Fprintf(e.Stderr, "%s eval: split %d, %s\n", e.Prog, si, cr)
		s := cfg.so
		s.Components, s.DoF, s.Lanczos, s.Probes, s.RawFeatures = opts.Components, opts.DoF, opts.Lanczos, opts.Probes, opts.RawFeatures
		s.By = cr
		if cr == kpls.CV {
			// The best point alone, as measured before Select averaged by default.
			s.By = kpls.CrossValidation{Repeats: cfg.repeats, AverageBy: kpls.AverageNone}
		}
		t0 := time.Now()
		sel, err := kpls.Select(ctx, kpls.Data{X: xtr, Y: mat.NewVecDense(len(ytr), ytr)}, s, &cfg.res)
		if err != nil {
			return sp, fitflags.DataErr(cfg.mf.Data, fmt.Errorf("split %d, %s: %w", si, cr, err))
		}
		secs := time.Since(t0).Seconds()
		pred, err := sel.Model.Predict(ctx, xte, kpls.PredictOptions{})
		if err != nil {
			return sp, err
		}
		sp.Methods = append(sp.Methods, evalMethodJSON{Method: string(cr), Kernel: sel.Best.Kernel.Name(), Width: sel.Best.Width(),
			M: sel.Best.M, RMSE: cli.Num(panel.RMSE(pred.Yhat, yte)), Seconds: secs})
		for _, dd := range cfg.within {
			k := 0
			for _, c := range sel.Choices {
				if c.RMSECV <= (1+dd)*sel.Best.RMSECV {
					k++
				}
			}
			avgs, err := averageBest(ctx, sel, opts, &cfg.res, xtr, ytr, xte, []int{k})
			if err != nil {
				return sp, fitflags.DataErr(cfg.mf.Data, fmt.Errorf("split %d, cv averages: %w", si, err))
			}
			sp.Methods = append(sp.Methods, evalMethodJSON{Method: fmt.Sprintf("cv-in%g", dd), Kernel: sel.Best.Kernel.Name(), Width: sel.Best.Width(),
				M: k, RMSE: cli.Num(panel.RMSE(avgs[0], yte)), Seconds: time.Since(t0).Seconds()})
		}
		if cr == kpls.CV && len(cfg.average) > 0 {
			avgs, err := averageBest(ctx, sel, opts, &cfg.res, xtr, ytr, xte, cfg.average)
			if err != nil {
				return sp, fitflags.DataErr(cfg.mf.Data, fmt.Errorf("split %d, cv averages: %w", si, err))
			}
			for i, k := range cfg.average {
				sp.Methods = append(sp.Methods, evalMethodJSON{Method: fmt.Sprintf("cv-avg%d", k), Kernel: sel.Best.Kernel.Name(), Width: sel.Best.Width(),
					M: sel.Best.M, RMSE: cli.Num(panel.RMSE(avgs[i], yte)), Seconds: time.Since(t0).Seconds()})
			}
		}
	}
	fmt.Fprintf(e.Stderr, "%s eval: split %d, oracle\n", e.Prog, si)
	grid := cfg.so
	grid.Widths = oracleWidths
	or, err := oracle(ctx, xtr, ytr, xte, yte, grid, opts, &cfg.res, cfg.oracleComp)
	if err != nil {
		return sp, fitflags.DataErr(cfg.mf.Data, fmt.Errorf("split %d, oracle: %w", si, err))
	}
	sp.Methods = append(sp.Methods, or)
	return sp, nil
}

func renderEval(w io.Writer, doc *evalJSON) error {
	fmt.Fprintf(w, "data  %s: n = %d, d = %d, target %q; %d splits\n\n", doc.Data, doc.N, doc.D, doc.Target, len(doc.Splits))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "split\tmethod\tkernel\twidth\tm\tRMSE\tseconds\t\n")
	for _, sp := range doc.Splits {
		for _, m := range sp.Methods {
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\t%s\t%.2f\t\n", sp.Split, m.Method, m.Kernel, cli.Cell(m.Width), m.M, cli.Cell(float64(m.RMSE)), m.Seconds)
		}
	}
	tw.Flush()
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "method\tmedian RMSE\t/ oracle\tmedian seconds\t\n")
	for _, s := range doc.Summary {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.2f\t\n", s.Method, cli.Cell(float64(s.MedianRMSE)), cli.Cell(float64(s.RatioToOracle)), s.MedianSeconds)
	}
	return tw.Flush()
}

// evalPart is one train/test split by row index.
type evalPart struct{ train, test []int }

// randomSplits draws seeded random splits.
func randomSplits(n, splits int, testFrac float64, seed uint64) []evalPart {
	nTest := max(1, min(n-3, int(math.Round(testFrac*float64(n)))))
	var out []evalPart
	for s := 0; s < splits; s++ {
		perm := rand.New(rand.NewPCG(seed, uint64(s)+0x5eed)).Perm(n)
		out = append(out, evalPart{train: perm[nTest:], test: perm[:nTest]})
	}
	return out
}

// readSplits reads dir/split-K.train and split-K.test for K = 0, 1, …
func readSplits(dir string, n int) ([]evalPart, error) {
	var out []evalPart
	for k := 0; ; k++ {
		tr := filepath.Join(dir, fmt.Sprintf("split-%d.train", k))
		if _, err := os.Stat(tr); err != nil {
			if k == 0 {
				return nil, fmt.Errorf("--split-dir: %s: no split-0.train", dir)
			}
			return out, nil
		}
		train, err := panel.ReadIndices(tr, n)
		if err != nil {
			return nil, err
		}
		test, err := panel.ReadIndices(filepath.Join(dir, fmt.Sprintf("split-%d.test", k)), n)
		if err != nil {
			return nil, err
		}
		seen := make(map[int]bool, len(train))
		for _, i := range train {
			seen[i] = true
		}
		for _, i := range test {
			if seen[i] {
				return nil, fmt.Errorf("%s: row %d is in both the training and the test set", dir, i)
			}
		}
		if len(train) < 3 || len(test) < 1 {
			return nil, fmt.Errorf("%s: split %d has %d training and %d test rows", dir, k, len(train), len(test))
		}
		out = append(out, evalPart{train, test})
	}
}

// oracle is the best (kernel, width, m) of the grid judged by the test
// rows: what a perfect selection could reach.
func oracle(ctx context.Context, xtr *mat.Dense, ytr []float64, xte *mat.Dense, yte []float64, so kpls.SelectOptions, opts kpls.Options, res *kpls.Resources, comp int) (evalMethodJSON, error) {
	best := evalMethodJSON{Method: "oracle", RMSE: cli.Num(math.Inf(1))}
	t0 := time.Now()
	var grid []kpls.Kernel
	for _, k := range so.Kernels {
		if _, ok := kpls.WidthOf(k); !ok {
			grid = append(grid, k)
			continue
		}
		for _, w := range so.Widths {
			grid = append(grid, kpls.WithWidth(k, w))
		}
	}
	ntr, d := xtr.Dims()
	for _, g := range grid {
		o := opts
		o.Kernel, o.DoF = g, kpls.DoFNone
		o.Components = min(comp, kpls.Options{Kernel: g}.MaxComponents(ntr, d))
		m, err := kpls.Fit(ctx, kpls.Data{X: xtr, Y: mat.NewVecDense(len(ytr), ytr)}, o, res)
		if err != nil {
			return best, err
		}
		pred, err := allm.Predict(ctx, m, xte)
		if err != nil {
			return best, err
		}
		for c := range len(m.Stats()) {
			if r := panel.RMSE(mat.Col(nil, c, pred), yte); r < float64(best.RMSE) {
				best.Kernel, best.M, best.RMSE = g.Name(), c, cli.Num(r)
				best.Width, _ = kpls.WidthOf(g)
			}
		}
	}
	best.Seconds = time.Since(t0).Seconds()
	return best, nil
}

func summarize(splits []evalSplitJSON) []evalSummary {
	var order []string
	rm, secs, ratio := map[string][]float64{}, map[string][]float64{}, map[string][]float64{}
	for _, sp := range splits {
		var or float64
		for _, m := range sp.Methods {
			if m.Method == "oracle" {
				or = float64(m.RMSE)
			}
		}
		for _, m := range sp.Methods {
			if _, ok := rm[m.Method]; !ok {
				order = append(order, m.Method)
			}
			rm[m.Method] = append(rm[m.Method], float64(m.RMSE))
			secs[m.Method] = append(secs[m.Method], m.Seconds)
			ratio[m.Method] = append(ratio[m.Method], float64(m.RMSE)/or)
		}
	}
	var out []evalSummary
	for _, m := range order {
		out = append(out, evalSummary{Method: m, MedianRMSE: cli.Num(panel.Median(rm[m])), MedianSeconds: panel.Median(secs[m]), RatioToOracle: cli.Num(panel.Median(ratio[m]))})
	}
	return out
}

// averageBest returns, for each k of ks, the mean prediction of the k grid
// points of sel with the lowest RMSECV, each fitted once to the training
// rows at its own chosen m.
func averageBest(ctx context.Context, sel *kpls.Selection, opts kpls.Options, res *kpls.Resources, xtr *mat.Dense, ytr []float64, xte *mat.Dense, ks []int) ([][]float64, error) {
	choices := slices.Clone(sel.Choices)
	slices.SortStableFunc(choices, func(a, b kpls.SelectionRow) int { return cmp.Compare(a.RMSECV, b.RMSECV) })
	choices = choices[:min(slices.Max(ks), len(choices))]
	r, _ := xte.Dims()
	sum := make([]float64, r)
	avgs := make([][]float64, len(ks))
	for j, c := range choices {
		o := opts
		o.Kernel, o.Components, o.DoF, o.Criterion = c.Kernel, max(c.M, 1), kpls.DoFNone, ""
		if c.Scaled {
			o.Relevance = weightsOf(sel)
		}
		m, err := kpls.Fit(ctx, kpls.Data{X: xtr, Y: mat.NewVecDense(len(ytr), ytr)}, o, res)
		if err != nil {
			return nil, err
		}
		mc, err := m.At(min(c.M, len(m.Stats())-1))
		if err != nil {
			return nil, err
		}
		p, err := mc.Predict(ctx, xte, kpls.PredictOptions{})
		if err != nil {
			return nil, err
		}
		for i, v := range p.Yhat {
			sum[i] += v
		}
		for i, k := range ks {
			if min(k, len(choices)) == j+1 {
				avgs[i] = make([]float64, r)
				for q, v := range sum {
					avgs[i][q] = v / float64(j+1)
				}
			}
		}
	}
	return avgs, nil
}

// weightsOf are the feature weights sel's scaled grid points weigh by:
// a small set's weighed search's, or the screen's.
func weightsOf(sel *kpls.Selection) []float64 {
	if sel.Weighed != nil {
		return sel.Weighed.Relevance
	}
	if sel.Screen != nil {
		return sel.Screen.Relevance
	}
	return nil
}
