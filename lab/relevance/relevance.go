package relevance

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/cmd/cli"
	"github.com/kpls-go/kpls/kpls"
	"github.com/kpls-go/kpls/lab/panel"
)

// Run is `kpls-lab relevance gen|run|table`.
func Run(ctx context.Context, e *cli.Env, args []string) error {
	if len(args) > 0 && slices.Contains([]string{"-h", "-help", "--help"}, args[0]) {
		fs := cli.NewFlagSet("relevance", "gen|run|default|table|sample [flags]",
			"Measures per-feature scales (lab/relevance/doc.go): gen writes the constructed sets into a\n"+
				"panel directory, run runs the isotropic and scaled selects on every split, table prints the\n"+
				"summary. 'kpls-lab relevance run --help' gives run's flags.")
		return fs.Parse(e, args)
	}
	if len(args) == 0 {
		return cli.Usagef("relevance: the commands are gen (--panel DIR), run (--panel DIR --sets A,B --out F.jsonl [--ard ard.jsonl]), default (--panel DIR --sets A,B --out F.jsonl), table (--in F.jsonl [--ard ard.jsonl]) and sample (--train F --test F)")
	}
	switch args[0] {
	case "gen":
		fs := cli.NewFlagSet("relevance gen", "--panel DIR",
			"Writes the constructed sets of lab/relevance (kin8nm3000, concrete_noise5, concrete_rescaled)\n"+
				"and their splits into a panel directory that already holds kin8nm.csv and concrete.csv.")
		dir := fs.String("panel", "", "panel `directory` (required)")
		seed := fs.Uint64("seed", 1, "base seed")
		if err := fs.Parse(e, args[1:]); err != nil {
			return err
		}
		if *dir == "" {
			return cli.Usagef("--panel is required")
		}
		return gen(*dir, *seed)
	case "run":
		fs := cli.NewFlagSet("relevance run", "--panel DIR --sets A,B --out F.jsonl [flags]",
			"For every split of every set: the default select (isotropic), then the default select on\n"+
				"standardised features multiplied by per-feature scales from each rule (lab/relevance/doc.go),\n"+
				"with their held-out RMSE and the CV error of their predictors. One JSON line per split is\n"+
				"appended to --out; splits already there are skipped.")
		dir := fs.String("panel", "", "panel `directory` (required)")
		sets := fs.String("sets", "", "comma-separated data `sets` (required)")
		out := fs.String("out", "", "JSON-lines `file` to append to (required)")
		ard := fs.String("ard", "", "JSON lines of lab/relevance/ardgp.py: the ARD GP's length scales (optional)")
		maxSplits := fs.Int("max-splits", 0, "at most `N` splits per set (0: all)")
		nested := fs.Bool("nested", false, "also score iso and gop by cross-validation with the GOP scales learned inside each fold (nested-iso, nested-gop)")
		if err := fs.Parse(e, args[1:]); err != nil {
			return err
		}
		if *dir == "" || *sets == "" || *out == "" {
			return cli.Usagef("--panel, --sets and --out are required")
		}
		return run(ctx, e, *dir, strings.Split(*sets, ","), *out, *ard, *maxSplits, *nested)
	case "sample":
		fs := cli.NewFlagSet("relevance sample", "--train F.csv --test F.csv [flags]",
			"GOP scales learned on a seeded sample of the training rows (the isotropic select's best RBF\n"+
				"point on the sample, refitted there), then the default select on all training rows with\n"+
				"the standardised features times the scales, scored on the test rows; each round after the\n"+
				"first relearns the scales on the scaled sample. The isotropic select runs first.")
		train := fs.String("train", "", "training CSV `file` (required)")
		test := fs.String("test", "", "test CSV `file` (required)")
		target := fs.String("target", "", "target `column`; empty means the last")
		rows := fs.Int("rows", 0, "the sample's `rows`; 0 means n/8, at least 2048 (a screened select's)")
		rounds := fs.Int("rounds", 1, "`rounds` of scales")
		seed := fs.Uint64("seed", 1, "the sample's seed")
		if err := fs.Parse(e, args[1:]); err != nil {
			return err
		}
		if *train == "" || *test == "" || *rows < 0 || *rounds < 1 {
			return cli.Usagef("--train and --test are required, --rows ≥ 0 and --rounds ≥ 1")
		}
		return runSample(ctx, e, *train, *test, *target, *rows, *rounds, *seed)
	case "default":
		fs := cli.NewFlagSet("relevance default", "--panel DIR --sets A,B --out F.jsonl",
			"For every split of every set: the default select (variant default, which learns feature\n"+
				"weights where kpls.SelectOptions.Isotropic says it does) and the same with Isotropic (iso),\n"+
				"in turn, with their held-out RMSE and wall seconds. One JSON line per split is appended to\n"+
				"--out; lab/peer/panelpeers.py table --kpls-variant default sets it beside the peers.")
		dir := fs.String("panel", "", "panel `directory` (required)")
		sets := fs.String("sets", "", "comma-separated data `sets` (required)")
		out := fs.String("out", "", "JSON-lines `file` to append to (required)")
		if err := fs.Parse(e, args[1:]); err != nil {
			return err
		}
		if *dir == "" || *sets == "" || *out == "" {
			return cli.Usagef("--panel, --sets and --out are required")
		}
		return runDefault(ctx, e, *dir, strings.Split(*sets, ","), *out)
	case "table":
		fs := cli.NewFlagSet("relevance table", "--in F.jsonl [--ard ard.jsonl]",
			"Prints the markdown table of lab/relevance: per set the median held-out RMSE of each variant\n"+
				"and the ratios to the isotropic select (median and worst split).")
		in := fs.String("in", "", "JSON lines of relevance run (required)")
		ard := fs.String("ard", "", "JSON lines of ardgp.py: adds the ARD GP's own RMSE")
		only := fs.String("sets", "", "comma-separated `sets` to tabulate (default all)")
		if err := fs.Parse(e, args[1:]); err != nil {
			return err
		}
		if *in == "" {
			return cli.Usagef("--in is required")
		}
		var keep []string
		if *only != "" {
			keep = strings.Split(*only, ",")
		}
		return summary(e.Stdout, *in, *ard, keep)
	}
	return cli.Usagef("relevance: unknown command %q (gen, run, default, table, sample)", args[0])
}

// Record is one split's line of `relevance run`.
type Record struct {
	Set      string    `json:"set"`
	Split    int       `json:"split"`
	NTrain   int       `json:"n_train"`
	NTest    int       `json:"n_test"`
	D        int       `json:"d"`
	Features []string  `json:"features"`
	Variants []Variant `json:"variants"`
}

// Variant is one selection: its rule, the scales it ran with, the
// selection's best grid point, the CV error of its predictor and the
// held-out RMSE.
type Variant struct {
	Name   string    `json:"name"`
	Scales []float64 `json:"scales,omitempty"`
	// Gradient is the raw relevance the scales came from (GOP: the root
	// mean squared partial derivatives; kta: the alignments).
	Raw    []float64 `json:"raw,omitempty"`
	Kernel string    `json:"kernel"`
	Width  float64   `json:"width"`
	M      int       `json:"m"`
	CV     float64   `json:"cv"`
	RMSE   float64   `json:"rmse"`
	// Seconds is the select's wall time (relevance default only).
	Seconds float64 `json:"seconds,omitempty"`
}

type ardLine struct {
	Set          string    `json:"set"`
	Split        int       `json:"split"`
	RMSE         float64   `json:"rmse"`
	LengthScales []float64 `json:"length_scales"`
}

func readARD(path string) (map[string]ardLine, error) {
	out := map[string]ardLine{}
	if path == "" {
		return out, nil
	}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var a ardLine
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			return nil, err
		}
		out[fmt.Sprintf("%s/%d", a.Set, a.Split)] = a
	}
	return out, sc.Err()
}

func readRecords(path string) ([]Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// A later line of the same split adds its variants (run's ARD pass).
	var out []Record
	at := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var r Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, err
		}
		key := fmt.Sprintf("%s/%d", r.Set, r.Split)
		if i, ok := at[key]; ok {
			out[i].Variants = append(out[i].Variants, r.Variants...)
			continue
		}
		at[key] = len(out)
		out = append(out, r)
	}
	return out, sc.Err()
}

func run(ctx context.Context, e *cli.Env, dir string, sets []string, out, ardPath string, maxSplits int, nested bool) error {
	ard, err := readARD(ardPath)
	if err != nil {
		return err
	}
	// has: the variants each split already has.
	has := map[string]map[string]bool{}
	if old, err := readRecords(out); err == nil {
		for _, r := range old {
			key := fmt.Sprintf("%s/%d", r.Set, r.Split)
			has[key] = map[string]bool{}
			for _, v := range r.Variants {
				has[key][v.Name] = true
			}
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	for _, name := range sets {
		t, x, y, err := readSet(dir, name)
		if err != nil {
			return err
		}
		n, d := x.Dims()
		for k := 0; maxSplits == 0 || k < maxSplits; k++ {
			if !hasSplit(dir, name, k) {
				break
			}
			key := fmt.Sprintf("%s/%d", name, k)
			if ard, err = readARD(ardPath); err != nil { // the GP may still be running
				return err
			}
			_, ardNow := ard[key]
			done := has[key]["iso"]
			needARD := ardNow && !has[key]["ard"]
			needNested := nested && !has[key]["nested-iso"]
			if done && !needARD && !needNested {
				continue
			}
			train, test, err := readSplit(dir, name, k, n)
			if err != nil {
				return err
			}
			var ardScales []float64
			if a, ok := ard[key]; ok && len(a.LengthScales) == d {
				inv := make([]float64, d)
				for j, l := range a.LengthScales {
					inv[j] = 1 / l
				}
				ardScales = normalised(inv, 1)
			}
			rec := &Record{Set: name, Split: k, NTrain: len(train), NTest: len(test), D: d}
			if !done {
				rec, err = runSplit(ctx, e, name, k, x, y, train, test, ardScales)
			} else if needARD { // the GP reached this split after it was run
				rec.Variants, err = runARDOnly(ctx, e, name, k, x, y, train, test, ardScales)
			}
			if err == nil && needNested {
				var vs []Variant
				vs, err = runNested(ctx, e, name, k, x, y, train)
				rec.Variants = append(rec.Variants, vs...)
			}
			if err != nil {
				return fmt.Errorf("%s split %d: %w", name, k, err)
			}
			rec.Features = t.header[:d]
			b, err := json.Marshal(rec)
			if err != nil {
				return err
			}
			if err := appendLine(out, b); err != nil {
				return err
			}
		}
	}
	return nil
}

// runSplit runs every variant on one split.
func runSplit(ctx context.Context, e *cli.Env, name string, k int, x *mat.Dense, y []float64, train, test []int, ardScales []float64) (*Record, error) {
	xtr, ytr := panel.Rows(x, y, train)
	xte, yte := panel.Rows(x, y, test)
	_, d := x.Dims()
	rec := &Record{Set: name, Split: k, NTrain: len(train), NTest: len(test), D: d}
	st := newStandardiser(xtr)
	zs := st.apply(xtr, nil)
	logf := func(v Variant) {
		fmt.Fprintf(e.Stderr, "%s relevance: %s split %d %-9s %s width %.4g m %d: CV %.5g, held out %.5g\n",
			e.Prog, name, k, v.Name, v.Kernel, v.Width, v.M, v.CV, v.RMSE)
	}

	// The isotropic default select, exactly as a user runs it.
	iso, v, err := selectVariant(ctx, "iso", xtr, ytr, xte, yte, false)
	if err != nil {
		return nil, err
	}
	logf(v)
	rec.Variants = append(rec.Variants, v)

	// scaled selects the default grid on the standardised features
	// multiplied by s.
	scaled := func(name string, s, raw []float64) (*kpls.Selection, error) {
		sel, v, err := selectVariant(ctx, name, st.apply(xtr, s), ytr, st.apply(xte, s), yte, true)
		if err != nil {
			return nil, err
		}
		v.Scales, v.Raw = s, raw
		logf(v)
		rec.Variants = append(rec.Variants, v)
		return sel, nil
	}

	// GOP of the isotropic selection's best RBF point, on the
	// standardised features (the ones its model saw).
	g, err := gopOf(ctx, iso, zs, ytr)
	if err != nil {
		return nil, err
	}
	gsel, err := scaled("gop", normalised(g, 1), g)
	if err != nil {
		return nil, err
	}
	if _, err := scaled("gop-sqrt", normalised(g, 0.5), g); err != nil {
		return nil, err
	}
	// One more round: the GOP of the scaled selection's best RBF point,
	// taken back to standardised coordinates (∂f/∂x_j = s_j ∂f/∂z_j).
	s1 := normalised(g, 1)
	gz, err := gopOf(ctx, gsel, st.apply(xtr, s1), ytr)
	if err != nil {
		return nil, err
	}
	g2 := make([]float64, d)
	for j := range g2 {
		g2[j] = s1[j] * gz[j]
	}
	if _, err := scaled("gop2", normalised(g2, 1), g2); err != nil {
		return nil, err
	}
	// Kernel–target alignment of each feature alone (width 1).
	a := alignment(zs, ytr, 1)
	if _, err := scaled("kta", normalised(a, 1), a); err != nil {
		return nil, err
	}
	if ardScales != nil {
		if _, err := scaled("ard", ardScales, nil); err != nil {
			return nil, err
		}
	}
	return rec, nil
}

// runARDOnly runs the ARD variant alone, for a split run before the GP
// reached it.
func runARDOnly(ctx context.Context, e *cli.Env, name string, k int, x *mat.Dense, y []float64, train, test []int, s []float64) ([]Variant, error) {
	xtr, ytr := panel.Rows(x, y, train)
	xte, yte := panel.Rows(x, y, test)
	st := newStandardiser(xtr)
	_, v, err := selectVariant(ctx, "ard", st.apply(xtr, s), ytr, st.apply(xte, s), yte, true)
	if err != nil {
		return nil, err
	}
	v.Scales = s
	fmt.Fprintf(e.Stderr, "%s relevance: %s split %d ard: CV %.5g, held out %.5g\n", e.Prog, name, k, v.CV, v.RMSE)
	return []Variant{v}, nil
}

// selectVariant runs the default select (raw: on features the caller
// standardised and scaled) and scores its predictor on the test rows.
// It keeps the features unweighed (SelectOptions.Isotropic): the variants
// are the rules' weights alone.
func selectVariant(ctx context.Context, name string, xtr *mat.Dense, ytr []float64, xte *mat.Dense, yte []float64, raw bool) (*kpls.Selection, Variant, error) {
	sel, v, err := selectWith(ctx, xtr, ytr, xte, yte, kpls.SelectOptions{RawFeatures: raw, Isotropic: true})
	if err != nil {
		return nil, Variant{}, fmt.Errorf("%s: %w", name, err)
	}
	v.Name = name
	return sel, v, nil
}

// selectWith runs a select with options so on the training rows and
// scores its predictor on the test rows.
func selectWith(ctx context.Context, xtr *mat.Dense, ytr []float64, xte *mat.Dense, yte []float64, so kpls.SelectOptions) (*kpls.Selection, Variant, error) {
	sel, err := kpls.Select(ctx, kpls.Data{X: xtr, Y: mat.NewVecDense(len(ytr), ytr)}, so, nil)
	if err != nil {
		return nil, Variant{}, err
	}
	p, err := sel.Predictor.Predict(ctx, xte, kpls.PredictOptions{})
	if err != nil {
		return nil, Variant{}, err
	}
	return sel, Variant{Kernel: sel.Best.Kernel.Name(), Width: sel.Best.Width(), M: sel.Best.M,
		CV: sel.PredictorRMSECV, RMSE: panel.RMSE(p.Yhat, yte)}, nil
}

// gopOf refits the selection's best RBF grid point (lowest RMSECV among
// the RBF choices; the best point itself when it is an RBF) to the rows z
// it was selected on, and returns the gradient outer product's diagonal
// over those rows, square-rooted.
func gopOf(ctx context.Context, sel *kpls.Selection, z *mat.Dense, y []float64) ([]float64, error) {
	best := -1
	for i, c := range sel.Choices {
		if c.Kernel.Name() == "rbf" && (best < 0 || c.RMSECV < sel.Choices[best].RMSECV) {
			best = i
		}
	}
	_, d := z.Dims()
	if best < 0 {
		return slices.Repeat([]float64{1}, d), nil
	}
	c := sel.Choices[best]
	if c.M == 0 {
		return slices.Repeat([]float64{1}, d), nil
	}
	w := c.Width()
	model, err := kpls.Fit(ctx, kpls.Data{X: z, Y: mat.NewVecDense(len(y), y)},
		kpls.Options{Kernel: kpls.RBF{Width: w}, Components: c.M, RawFeatures: true, DoF: kpls.DoFNone}, nil)
	if err != nil {
		return nil, err
	}
	m := min(c.M, len(model.Stats())-1)
	alpha, err := model.Alpha(m)
	if err != nil {
		return nil, err
	}
	return gopOfRows(z, alpha, w), nil
}
