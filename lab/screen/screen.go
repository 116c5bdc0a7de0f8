package screen

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/cmd/cli"
	"github.com/kpls-go/kpls/internal/dataset"
	"github.com/kpls-go/kpls/kpls"
	"github.com/kpls-go/kpls/lab/panel"
)

// Run is `kpls-lab screen`.
func Run(ctx context.Context, e *cli.Env, args []string) error {
	fs := cli.NewFlagSet("screen", "--data F.csv [flags]",
		"The default select (screened on a sample of the rows, weighing the features by the relevances\n"+
			"learned there) against the select searching every grid point on all rows (--vs full) or the\n"+
			"screened select without weights (--vs isotropic), on seeded train/test splits (lab/screen/doc.go).")
	data := fs.String("data", "", "CSV `file` with a header (required)")
	target := fs.String("target", "", "target `column`; empty means the last")
	splits := fs.Int("splits", 5, "seeded `splits`")
	train := fs.Float64("train", 0.8, "training `fraction` of each split")
	sample := fs.Int("rows", 0, "the screened select's sample (SelectOptions.ScreenRows); 0 means the library's rule")
	vs := fs.String("vs", "full", "the baseline: `full` (every grid point on all rows) or isotropic (screened, every feature weighed alike)")
	if err := fs.Parse(e, args); err != nil {
		return err
	}
	switch {
	case *data == "":
		return cli.Usagef("--data is required")
	case *splits < 1:
		return cli.Usagef("--splits: %d, want at least 1", *splits)
	case *sample < 0:
		return cli.Usagef("--rows: %d, want 0 for the library's rule or a number of rows", *sample)
	case *vs != "full" && *vs != "isotropic":
		return cli.Usagef("--vs: %q, want full or isotropic", *vs)
	case !(*train > 0 && *train < 1):
		return cli.Usagef("--train: %g, want a fraction in (0, 1)", *train)
	}
	t, err := dataset.ReadFile(*data)
	if err != nil {
		return err
	}
	x, y, features, err := t.Split(*target)
	if err != nil {
		return err
	}
	n, d := t.Rows, len(features)
	var timeRatio, rmseRatio []float64
	for s := 1; s <= *splits; s++ {
		perm := rand.New(rand.NewPCG(uint64(s), 99)).Perm(n)
		ntr := int(math.Round(*train * float64(n)))
		xt, yt, xe := mat.NewDense(ntr, d, nil), mat.NewDense(ntr, 1, nil), mat.NewDense(n-ntr, d, nil)
		ye := make([]float64, n-ntr)
		for i, r := range perm {
			if i < ntr {
				xt.SetRow(i, x[r*d:(r+1)*d])
				yt.Set(i, 0, y[r])
			} else {
				xe.SetRow(i-ntr, x[r*d:(r+1)*d])
				ye[i-ntr] = y[r]
			}
		}
		base := kpls.SelectOptions{ScreenRows: -1}
		if *vs == "isotropic" {
			base = kpls.SelectOptions{ScreenRows: *sample, Isotropic: true}
		}
		var res [2]result
		for i, so := range []kpls.SelectOptions{base, {ScreenRows: *sample}} {
			if res[i], err = run(ctx, kpls.Data{X: xt, Y: yt}, xe, ye, so); err != nil {
				return fmt.Errorf("split %d: %w", s, err)
			}
			if i == 1 && res[i].label != "screened" {
				return fmt.Errorf("split %d: the select did not screen its %d training rows (the default starts at 6,144; --rows sets a sample)", s, ntr)
			}
			fmt.Fprintf(e.Stdout, "split %d %-8s %6.2f s  %4d passes  RMSE %.5g  %s\n", s, res[i].label, res[i].seconds, res[i].passes, res[i].rmse, res[i].members)
		}
		timeRatio = append(timeRatio, res[1].seconds/res[0].seconds)
		rmseRatio = append(rmseRatio, res[1].rmse/res[0].rmse)
	}
	fmt.Fprintf(e.Stdout, "default / %s, median over %d splits: time %.3f, held-out RMSE %.4f (worst %.4f)\n",
		*vs, *splits, panel.Median(timeRatio), panel.Median(rmseRatio), slices.Max(rmseRatio))
	return nil
}

// result is one select's run on one split.
type result struct {
	label         string
	seconds, rmse float64
	passes        int
	members       string
}

// run selects on data with so and scores the predictor on (xe, ye).
func run(ctx context.Context, data kpls.Data, xe *mat.Dense, ye []float64, so kpls.SelectOptions) (result, error) {
	t0 := time.Now()
	sel, err := kpls.Select(ctx, data, so, nil)
	if err != nil {
		return result{}, err
	}
	r := result{label: "full", seconds: time.Since(t0).Seconds(), passes: sel.Passes}
	p, err := sel.Predictor.Predict(ctx, xe, kpls.PredictOptions{})
	if err != nil {
		return result{}, err
	}
	r.rmse = panel.RMSE(p.Yhat, ye)
	var ms []string
	for _, m := range sel.Predictor.Summary().Members {
		w, _ := kpls.WidthOf(m.Kernel)
		scaled := ""
		if m.Relevance != nil {
			scaled = " scaled"
		}
		ms = append(ms, fmt.Sprintf("%s%s %.4g m=%d", m.Kernel.Name(), scaled, w, m.M))
	}
	r.members = "mean of " + strings.Join(ms, ", ")
	if sc := sel.Screen; sc != nil {
		r.label = "screened"
		if so.Isotropic {
			r.label = "isotropic"
		}
		r.members = fmt.Sprintf("(sample %d rows, %d passes) %s", sc.Rows, sc.Passes, r.members)
		if sc.Relevance != nil {
			r.members = fmt.Sprintf("%s; weights %.2f", r.members, sc.Relevance)
		}
	}
	return r, nil
}
