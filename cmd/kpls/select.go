package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/kpls"
)

// selectJSON is the document of `kpls select --json` (DESIGN.md §6).
type selectJSON struct {
	Data        string         `json:"data"`
	N           int            `json:"n"`
	D           int            `json:"d"`
	Target      string         `json:"target"`
	Kernel      string         `json:"kernel"`
	Standardize bool           `json:"standardize"`
	DoFMethod   kpls.DoFMethod `json:"dof_method"`
	Lanczos     int            `json:"lanczos"`
	Components  int            `json:"components"`
	Criterion   kpls.Criterion `json:"criterion"`
	Widths      []float64      `json:"widths"`
	Backend     string         `json:"backend"`
	Warnings    []string       `json:"warnings"`
	Table       []rowJSON      `json:"table"`
	Best        bestJSON       `json:"best"`
	Model       string         `json:"model,omitempty"`
}

// rowJSON is one (width, m) cell of the selection grid.
type rowJSON struct {
	Width      float64 `json:"width"`
	M          int     `json:"m"`
	RSS        num     `json:"rss"`
	DoF        num     `json:"dof"`
	DoFClipped num     `json:"dof_clipped"`
	Sigma      num     `json:"sigma"`
	AIC        num     `json:"aic"`
	BIC        num     `json:"bic"`
	GMDL       num     `json:"gmdl"`
}

type bestJSON struct {
	Width     float64        `json:"width"`
	M         int            `json:"m"`
	Criterion kpls.Criterion `json:"criterion"`
	Score     num            `json:"score"`
	RSS       num            `json:"rss"`
	DoF       num            `json:"dof"`
	Sigma     num            `json:"sigma"`
}

func tableJSON(rows []kpls.SelectionRow) []rowJSON {
	out := make([]rowJSON, len(rows))
	for i, r := range rows {
		out[i] = rowJSON{Width: r.Width, M: r.M, RSS: num(r.RSS), DoF: num(r.DoF), DoFClipped: num(r.DoFClipped),
			Sigma: num(r.Sigma), AIC: num(r.AIC), BIC: num(r.BIC), GMDL: num(r.GMDL)}
	}
	return out
}

func bestOf(s *kpls.Selection) bestJSON {
	b := s.Best
	return bestJSON{Width: b.Width, M: b.M, Criterion: s.Criterion, Score: num(b.Score(s.Criterion)),
		RSS: num(b.RSS), DoF: num(b.DoF), Sigma: num(b.Sigma)}
}

func runSelect(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("select", "--data F.csv [flags]",
		"Fits the RBF kernel once per width, up to --components components, and chooses the width and\n"+
			"number of components by the criterion: for each width the first local minimum over m, then the\n"+
			"width with the lowest score. Prints the whole table (width, m, RSS, DoF, σ̂, AIC, BIC, gMDL).\n"+
			"Without --widths the grid is d/8, d/4, d/2, d, 2d for d features (on standardised features\n"+
			"w = d/2 is scikit-learn's default gamma = 1/d).")
	var mf modelFlags
	mf.register(fs, string(kpls.DoFApprox))
	var c common
	widthList := fs.String("widths", "", "comma-separated RBF `widths` w1,w2,...; empty means d/8,d/4,d/2,d,2d")
	crit := fs.String("criterion", "gmdl", "selection criterion: gmdl, aic or bic")
	modelOut := fs.String("model", "", "save the winning model to this `file` for kpls predict")
	c.register(fs, true)
	if err := fs.parse(e, args); err != nil {
		return err
	}
	opts, err := mf.options(fs, "exact", "lanczos", "approx")
	if err != nil {
		return err
	}
	criterion, err := kpls.ParseCriterion(*crit)
	if err != nil {
		return usagef("--criterion: unknown criterion %q (want gmdl, aic or bic)", *crit)
	}
	var widths []float64
	if fs.isSet("widths") {
		if opts.Kernel == kpls.Linear {
			return usagef("--kernel linear takes no --widths")
		}
		if widths, err = parseWidths(*widthList); err != nil {
			return err
		}
	}
	if opts.Backend, err = c.blasBackend(); err != nil {
		return err
	}

	t, err := mf.readTraining(e)
	if err != nil {
		return err
	}
	x, y, features, err := t.Split(mf.target)
	if err != nil {
		return err
	}
	if widths == nil {
		d := float64(len(features))
		widths = []float64{d / 8, d / 4, d / 2, d, 2 * d}
	}
	opts.FeatureNames = features
	opts.TargetName = targetName(t, mf.target)
	prog := newProgress(c.progress, e.stderr)
	opts.Progress = prog.callback()
	sel, err := kpls.Select(ctx, mat.NewDense(t.Rows, len(features), x), y, widths, criterion, opts)
	prog.done()
	if err != nil {
		return dataErr(mf.data, err)
	}
	if *modelOut != "" {
		if err := saveModel(sel.Model, *modelOut); err != nil {
			return err
		}
	}
	if opts.Kernel == kpls.Linear {
		widths = []float64{0}
	}

	o := sel.Model.Options()
	w := c.text(e)
	if c.json {
		warnLines(e.stderr, sel.Warnings)
		return writeJSON(e.stdout, selectJSON{
			Data: mf.data, N: t.Rows, D: len(features), Target: opts.TargetName, Kernel: string(o.Kernel),
			Standardize: !o.RawFeatures, DoFMethod: o.DoF, Lanczos: o.Lanczos, Components: o.Components,
			Criterion: sel.Criterion, Widths: widths, Backend: backendName(o), Warnings: nonNil(sel.Warnings),
			Table: tableJSON(sel.Table), Best: bestOf(sel), Model: *modelOut,
		})
	}
	fmt.Fprintf(w, "data       %s: n = %d, d = %d, target %q\n", mf.data, t.Rows, len(features), opts.TargetName)
	if o.Kernel == kpls.Linear {
		fmt.Fprintf(w, "kernel     linear, features %s\n", standardized(o))
	} else {
		fmt.Fprintf(w, "kernel     rbf over widths %v, features %s\n", widths, standardized(o))
	}
	fmt.Fprintf(w, "DoF        %s%s; criterion %s; backend %s\n\n", o.DoF, lanczosNote(o.DoF, o.Lanczos), sel.Criterion, backendName(o))
	selectionTable(w, sel)
	b := sel.Best
	fmt.Fprintf(w, "\nbest       width %s, m = %d: %s %s, RSS %s, DoF %s, σ̂ %s\n", f(b.Width), b.M, sel.Criterion, f(b.Score(sel.Criterion)), f(b.RSS), f(b.DoF), f(b.Sigma))
	if *modelOut != "" {
		fmt.Fprintf(w, "model      saved to %s\n", *modelOut)
	}
	printWarnings(w, sel.Warnings)
	return nil
}

// selectionTable writes every row of the grid; "*" marks each width's
// choice and "<= best" the winner.
func selectionTable(w io.Writer, sel *kpls.Selection) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "width\tm\tRSS\tDoF\tsigma\tAIC\tBIC\tgMDL\t\n")
	chosen := chosenPerWidth(sel)
	for i, r := range sel.Table {
		if i > 0 && r.Width != sel.Table[i-1].Width {
			fmt.Fprint(tw, "\t\t\t\t\t\t\t\t\n")
		}
		mark := ""
		if chosen[r.Width] == r.M {
			mark = " *"
			if r.Width == sel.Best.Width && r.M == sel.Best.M {
				mark = " * <= best"
			}
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", f(r.Width), r.M, f(r.RSS), f(r.DoF), f(r.Sigma), f(r.AIC), f(r.BIC), f(r.GMDL), mark)
	}
	tw.Flush()
}

// chosenPerWidth applies the criterion's first-local-minimum rule to each
// width's rows of the table.
func chosenPerWidth(sel *kpls.Selection) map[float64]int {
	chosen := map[float64]int{}
	for i := 0; i < len(sel.Table); {
		j := i
		var score []float64
		for ; j < len(sel.Table) && sel.Table[j].Width == sel.Table[i].Width; j++ {
			score = append(score, sel.Table[j].Score(sel.Criterion))
		}
		chosen[sel.Table[i].Width] = sel.Table[i].M + max(kpls.FirstLocalMin(score), 0)
		i = j
	}
	return chosen
}
