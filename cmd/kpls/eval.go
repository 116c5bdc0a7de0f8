package main

import (
	"bufio"
	"context"
	"fmt"
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

	"github.com/kpls-go/kpls/cmd/kpls/internal/dataset"
	"github.com/kpls-go/kpls/kpls"
)

// evalJSON is the document of `kpls eval --json`.
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
	RMSE    num     `json:"rmse"`
	Seconds float64 `json:"seconds"`
}

type evalSummary struct {
	Method        string  `json:"method"`
	MedianRMSE    num     `json:"median_rmse"`
	MedianSeconds float64 `json:"median_seconds"`
	// RatioToOracle is the median over splits of RMSE / oracle RMSE.
	RatioToOracle num `json:"ratio_to_oracle"`
}

func runEval(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("eval", "--data F.csv [flags]",
		"Measures model selection on held-out data: over seeded random train/test splits (or the splits\n"+
			"in --split-dir), runs kpls select with each method (--methods), predicts the test rows with the\n"+
			"chosen model and reports its held-out RMSE and the wall time of the selection, next to the oracle:\n"+
			"the best (kernel, width, m) on the grid (the default widths d/16…4d) judged by the test rows\n"+
			"themselves. bench/peer runs scikit-learn's KernelRidge + GridSearchCV and GPR on the same split files.")
	var mf modelFlags
	mf.register(fs, string(kpls.DoFApprox))
	var c common
	splitDir := fs.String("split-dir", "", "read the splits from `DIR`/split-K.train and split-K.test (0-based data-row indices, one per line)")
	splits := fs.Int("splits", 3, "number of random `splits` (without --split-dir)")
	testFrac := fs.Float64("test-fraction", 0.25, "share of rows held out per split (without --split-dir)")
	maxTrain := fs.Int("max-train", 0, "train on at most `N` random rows of each split's training part; 0 means all")
	methods := fs.String("methods", "cv,gcv,bic,aic,gmdl", "comma-separated selection `methods`: cv, gcv, bic, aic, gmdl")
	widthList := fs.String("widths", "", "comma-separated RBF `widths`; empty means d/8,d/4,d/2,d,2d")
	kernels := fs.String("kernels", "rbf,linear", "comma-separated `kernels` to search")
	maxComp := fs.Int("max-components", kpls.DefaultMaxComponents, "extend the components up to `M`")
	oracleComp := fs.Int("oracle-components", 60, "the oracle scores m = 0..`M` at every grid point")
	c.register(fs, true)
	if err := fs.parse(e, args); err != nil {
		return err
	}
	opts, err := mf.options(fs, "exact", "lanczos", "approx")
	if err != nil {
		return err
	}
	poly := opts.Kernel // --degree and --offset for a polynomial in --kernels
	opts.Kernel = nil
	switch {
	case *splitDir == "" && *splits < 1:
		return usagef("--splits: %d, want at least 1", *splits)
	case *splitDir == "" && !(*testFrac > 0 && *testFrac < 1):
		return usagef("--test-fraction: %g, want a number strictly between 0 and 1", *testFrac)
	case *maxTrain < 0:
		return usagef("--max-train: %d, want 0 or more", *maxTrain)
	case *oracleComp < 1:
		return usagef("--oracle-components: %d, want at least 1", *oracleComp)
	}
	var crits []kpls.Criterion
	for _, s := range strings.Split(*methods, ",") {
		cr, err := kpls.ParseCriterion(strings.TrimSpace(s))
		if err != nil || s == "" {
			return usagef("--methods: unknown method %q (want cv, gcv, bic, aic or gmdl)", s)
		}
		if slices.Contains(crits, cr) {
			return usagef("--methods: %s appears twice", cr)
		}
		crits = append(crits, cr)
	}
	so := kpls.SelectOptions{MaxComponents: *maxComp, Seed: mf.seed}
	if so.Kernels, err = parseKernels(*kernels, poly); err != nil {
		return err
	}
	if fs.isSet("widths") {
		if so.Widths, err = parseWidths(*widthList); err != nil {
			return err
		}
	}
	if opts.Backend, err = c.blasBackend(); err != nil {
		return err
	}
	t, err := dataset.ReadFile(mf.data)
	if err != nil {
		return err
	}
	x, y, features, err := t.Split(mf.target)
	if err != nil {
		return err
	}
	n, d := t.Rows, len(features)
	// The oracle's grid: the given widths, or the default ones with one
	// more factor of 2 on each side (select extends them the same way).
	oracleWidths := so.Widths
	if oracleWidths == nil {
		fd := float64(d)
		oracleWidths = []float64{fd / 16, fd / 8, fd / 4, fd / 2, fd, 2 * fd, 4 * fd}
	}
	var parts []evalPart
	if *splitDir != "" {
		if parts, err = readSplits(*splitDir, n); err != nil {
			return err
		}
	} else {
		parts = randomSplits(n, *splits, *testFrac, mf.seed)
	}
	if *maxTrain > 0 {
		for i := range parts {
			if len(parts[i].train) > *maxTrain {
				r := rand.New(rand.NewPCG(mf.seed, uint64(i)+0x7472))
				r.Shuffle(len(parts[i].train), func(a, b int) { parts[i].train[a], parts[i].train[b] = parts[i].train[b], parts[i].train[a] })
				parts[i].train = parts[i].train[:*maxTrain]
			}
		}
	}
	xm := mat.NewDense(n, d, x)
	doc := evalJSON{Data: mf.data, N: n, D: d, Target: targetName(t, mf.target)}
	opts.FeatureNames = features
	for si, p := range parts {
		xtr, ytr := pickRows(xm, y, p.train)
		xte, yte := pickRows(xm, y, p.test)
		sp := evalSplitJSON{Split: si, NTrain: len(p.train), NTest: len(p.test)}
		for _, cr := range crits {
			fmt.Fprintf(e.stderr, "kpls eval: split %d, %s\n", si, cr)
			s := so
			s.Criterion = cr
			t0 := time.Now()
			sel, err := kpls.Select(ctx, xtr, ytr, s, opts)
			if err != nil {
				return dataErr(mf.data, fmt.Errorf("split %d, %s: %w", si, cr, err))
			}
			secs := time.Since(t0).Seconds()
			pred, err := sel.Model.Predict(ctx, xte, sel.Best.M)
			if err != nil {
				return err
			}
			sp.Methods = append(sp.Methods, evalMethodJSON{Method: string(cr), Kernel: sel.Best.Kernel.Name(), Width: sel.Best.Width(),
				M: sel.Best.M, RMSE: num(rmseOf(pred, yte)), Seconds: secs})
		}
		fmt.Fprintf(e.stderr, "kpls eval: split %d, oracle\n", si)
		os := so
		os.Widths = oracleWidths
		or, err := oracle(ctx, xtr, ytr, xte, yte, os, opts, *oracleComp)
		if err != nil {
			return dataErr(mf.data, fmt.Errorf("split %d, oracle: %w", si, err))
		}
		sp.Methods = append(sp.Methods, or)
		doc.Splits = append(doc.Splits, sp)
	}
	doc.Summary = summarize(doc.Splits)
	if c.json {
		return writeJSON(e.stdout, doc)
	}
	w := c.text(e)
	fmt.Fprintf(w, "data  %s: n = %d, d = %d, target %q; %d splits\n\n", mf.data, n, d, doc.Target, len(parts))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "split\tmethod\tkernel\twidth\tm\tRMSE\tseconds\t\n")
	for _, sp := range doc.Splits {
		for _, m := range sp.Methods {
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\t%s\t%.2f\t\n", sp.Split, m.Method, m.Kernel, f(m.Width), m.M, f(float64(m.RMSE)), m.Seconds)
		}
	}
	tw.Flush()
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "method\tmedian RMSE\t/ oracle\tmedian seconds\t\n")
	for _, s := range doc.Summary {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.2f\t\n", s.Method, f(float64(s.MedianRMSE)), f(float64(s.RatioToOracle)), s.MedianSeconds)
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
		train, err := readIndices(tr, n)
		if err != nil {
			return nil, err
		}
		test, err := readIndices(filepath.Join(dir, fmt.Sprintf("split-%d.test", k)), n)
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

func readIndices(path string, n int) ([]int, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	var out []int
	sc := bufio.NewScanner(fh)
	for line := 1; sc.Scan(); line++ {
		s := strings.TrimSpace(sc.Text())
		if s == "" {
			continue
		}
		i, err := strconv.Atoi(s)
		if err != nil || i < 0 || i >= n {
			return nil, fmt.Errorf("%s: line %d: %q is not a row index in 0..%d", path, line, s, n-1)
		}
		out = append(out, i)
	}
	return out, sc.Err()
}

func pickRows(x *mat.Dense, y []float64, idx []int) (*mat.Dense, []float64) {
	_, d := x.Dims()
	out := mat.NewDense(len(idx), d, nil)
	yo := make([]float64, len(idx))
	for i, r := range idx {
		out.SetRow(i, x.RawRowView(r))
		yo[i] = y[r]
	}
	return out, yo
}

func rmseOf(pred, y []float64) float64 {
	var s float64
	for i, v := range y {
		s += (v - pred[i]) * (v - pred[i])
	}
	return math.Sqrt(s / float64(len(y)))
}

// oracle is the best (kernel, width, m) of the grid judged by the test
// rows: what a perfect selection could reach.
func oracle(ctx context.Context, xtr *mat.Dense, ytr []float64, xte *mat.Dense, yte []float64, so kpls.SelectOptions, opts kpls.Options, comp int) (evalMethodJSON, error) {
	best := evalMethodJSON{Method: "oracle", RMSE: num(math.Inf(1))}
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
		o.Components = min(comp, kpls.MaxComponents(g, ntr, d))
		m, err := kpls.Fit(ctx, xtr, ytr, o)
		if err != nil {
			return best, err
		}
		pred, err := m.PredictEvery(ctx, xte)
		if err != nil {
			return best, err
		}
		for c := 0; c <= m.Components(); c++ {
			if r := rmseOf(mat.Col(nil, c, pred), yte); r < float64(best.RMSE) {
				best.Kernel, best.M, best.RMSE = g.Name(), c, num(r)
				best.Width, _ = kpls.WidthOf(g)
			}
		}
	}
	best.Seconds = time.Since(t0).Seconds()
	return best, nil
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
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
		out = append(out, evalSummary{Method: m, MedianRMSE: num(median(rm[m])), MedianSeconds: median(secs[m]), RatioToOracle: num(median(ratio[m]))})
	}
	return out
}
