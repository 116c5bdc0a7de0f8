package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"gonum.org/v1/gonum/mat"

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
	Components  int            `json:"components"`
	Criterion   kpls.Criterion `json:"criterion"`
	Folds       int            `json:"folds,omitempty"`
	Widths      []float64      `json:"widths"`
	Backend     string         `json:"backend"`
	Storage     storageJSON    `json:"storage"`
	Warnings    []string       `json:"warnings"`
	Table       []rowJSON      `json:"table"`
	Choices     []rowJSON      `json:"choices"`
	Best        bestJSON       `json:"best"`
	Training    trainingJSON   `json:"training"`
	Model       string         `json:"model,omitempty"`
}

// rowJSON is one (kernel, width, m) cell of the selection grid.
type rowJSON struct {
	Kernel     string  `json:"kernel"`
	Width      float64 `json:"width"`
	M          int     `json:"m"`
	RSS        num     `json:"rss"`
	DoF        num     `json:"dof"`
	DoFClipped num     `json:"dof_clipped"`
	Sigma      num     `json:"sigma"`
	AIC        num     `json:"aic"`
	BIC        num     `json:"bic"`
	GMDL       num     `json:"gmdl"`
	GCV        num     `json:"gcv"`
	RMSECV     num     `json:"rmsecv"`
	Q2         num     `json:"q2"`
}

type bestJSON struct {
	Kernel    string         `json:"kernel"`
	Width     float64        `json:"width"`
	M         int            `json:"m"`
	Criterion kpls.Criterion `json:"criterion"`
	Score     num            `json:"score"`
	RSS       num            `json:"rss"`
	DoF       num            `json:"dof"`
	Sigma     num            `json:"sigma"`
}

// trainingJSON is the chosen model's fit to its training data.
type trainingJSON struct {
	RMSE num `json:"rmse"`
	R2   num `json:"r2"`
}

func rowOf(r kpls.SelectionRow) rowJSON {
	return rowJSON{Kernel: r.Kernel.Name(), Width: r.Width(), M: r.M, RSS: num(r.RSS), DoF: num(r.DoF), DoFClipped: num(r.DoFClipped),
		Sigma: num(r.Sigma), AIC: num(r.AIC), BIC: num(r.BIC), GMDL: num(r.GMDL), GCV: num(r.GCV), RMSECV: num(r.RMSECV), Q2: num(r.Q2)}
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
	return bestJSON{Kernel: b.Kernel.Name(), Width: b.Width(), M: b.M, Criterion: s.Criterion, Score: num(b.Score(s.Criterion)),
		RSS: num(b.RSS), DoF: num(b.DoF), Sigma: num(b.Sigma)}
}

func trainingOf(m *kpls.Model, comp int) trainingJSON {
	rmse, r2 := m.TrainingFit(comp)
	return trainingJSON{RMSE: num(rmse), R2: num(r2)}
}

func runSelect(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("select", "--data F.csv [flags]",
		"Chooses the kernel, the RBF width and the number of components. Each grid point (the RBF widths\n"+
			"and the linear kernel) is fitted once per fold (--criterion cv, the default: k-fold\n"+
			"cross-validation) or once to all rows (gcv, bic, aic, gmdl: from the DoF, no refits), and every m\n"+
			"is read from that run; while a choice sits at the largest m fitted, the components are doubled up\n"+
			"to --max-components. Prints the whole table and saves the chosen model with its choice, which\n"+
			"kpls predict then uses. Without --widths the grid is d/8, d/4, d/2, d, 2d for d features (on\n"+
			"standardised features w = d/2 is scikit-learn's default gamma = 1/d).")
	var mf modelFlags
	mf.register(fs, string(kpls.DoFApprox))
	var c common
	widthList := fs.String("widths", "", "comma-separated kernel `widths` w1,w2,... for rbf, laplacian and the Matérn kernels; empty means each kernel's default width times 1/4, 1/2, 1, 2, 4 (rbf: d/8,...,2d), extended by factors of 2 while the best sits at an edge")
	kernels := fs.String("kernels", "rbf,linear", "comma-separated `kernels` to search: rbf, linear (--kernel K alone searches K only)")
	crit := fs.String("criterion", string(kpls.DefaultCriterion), "how to choose: cv (k-fold cross-validation), gcv, bic, aic or gmdl (from the DoF)")
	folds := fs.Int("folds", kpls.DefaultFolds, "cross-validation `folds` (--criterion cv)")
	maxComp := fs.Int("max-components", kpls.DefaultMaxComponents, "extend the components up to `M` while a choice sits at the largest m fitted")
	modelOut := fs.String("model", "", "save the chosen model to this `file` for kpls predict")
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
		return usagef("--criterion: unknown criterion %q (want cv, gcv, bic, aic or gmdl)", *crit)
	}
	so := kpls.SelectOptions{Criterion: criterion, Folds: *folds, MaxComponents: *maxComp, Seed: mf.seed}
	switch {
	case criterion == kpls.CV && *folds < 2:
		return usagef("--folds: %d, want at least 2", *folds)
	case *maxComp < 1:
		return usagef("--max-components: %d, want at least 1", *maxComp)
	case fs.isSet("components") && *maxComp < mf.components:
		return usagef("--max-components %d is below --components %d", *maxComp, mf.components)
	}
	if fs.isSet("kernel") && fs.isSet("kernels") {
		return usagef("give --kernel or --kernels, not both")
	}
	if fs.isSet("kernel") {
		so.Kernels = []kpls.Kernel{opts.Kernel}
	} else {
		if so.Kernels, err = parseKernels(*kernels, opts.Kernel); err != nil {
			return err
		}
	}
	opts.Kernel = nil
	if err := featuresOnlyLinear(opts.Storage, so.Kernels...); err != nil {
		return err
	}
	if fs.isSet("widths") {
		if !slices.ContainsFunc(so.Kernels, func(k kpls.Kernel) bool { _, ok := kpls.WidthOf(k); return ok }) {
			return usagef("--widths: none of the kernels (%s) has a width", kernelList(so.Kernels))
		}
		if so.Widths, err = parseWidths(*widthList); err != nil {
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
	opts.FeatureNames = features
	opts.TargetName = targetName(t, mf.target)
	prog := newProgress(c.progress, e.stderr)
	opts.Progress = prog.callback()
	sel, err := kpls.Select(ctx, mat.NewDense(t.Rows, len(features), x), y, so, opts)
	prog.done()
	if err != nil {
		return dataErr(mf.data, err)
	}
	if *modelOut != "" {
		if err := saveModel(sel.Model, *modelOut); err != nil {
			return err
		}
	}
	if so.Widths == nil {
		// The library's default grid, as extended: every width searched.
		seen := map[float64]bool{}
		for _, r := range sel.Choices {
			if w, ok := kpls.WidthOf(r.Kernel); ok && !seen[w] {
				seen[w] = true
				so.Widths = append(so.Widths, w)
			}
		}
		slices.Sort(so.Widths)
	}
	kernelNames := make([]string, len(so.Kernels))
	for i, k := range so.Kernels {
		kernelNames[i] = k.Name()
	}
	o := sel.Model.Options()
	w := c.text(e)
	if c.json {
		warnLines(e.stderr, kpls.Messages(sel.Warnings))
		doc := selectJSON{
			Data: mf.data, N: t.Rows, D: len(features), Target: opts.TargetName, Kernels: kernelNames,
			Standardize: !o.RawFeatures, DoFMethod: o.DoF, Lanczos: o.Lanczos, Components: o.Components,
			Criterion: sel.Criterion, Widths: so.Widths, Backend: backendName(o), Storage: storageOf(sel.Model), Warnings: nonNil(kpls.Messages(sel.Warnings)),
			Table: tableJSON(sel.Table), Choices: tableJSON(sel.Choices), Best: bestOf(sel),
			Training: trainingOf(sel.Model, sel.Best.M), Model: *modelOut,
		}
		if sel.Criterion == kpls.CV {
			doc.Folds = *folds
		}
		return writeJSON(e.stdout, doc)
	}
	fmt.Fprintf(w, "data       %s: n = %d, d = %d, target %q\n", mf.data, t.Rows, len(features), opts.TargetName)
	fmt.Fprintf(w, "kernels    %s; widths %v; features %s\n", strings.Join(kernelNames, ", "), so.Widths, standardized(o))
	how := string(sel.Criterion)
	if sel.Criterion == kpls.CV {
		how = fmt.Sprintf("%d-fold cross-validation", *folds)
	}
	fmt.Fprintf(w, "criterion  %s; DoF %s%s; backend %s\n", how, o.DoF, lanczosNote(o.DoF, o.Lanczos), backendName(o))
	fmt.Fprintf(w, "storage    %s (the fit to all rows)\n\n", describeStorage(storageOf(sel.Model)))
	selectionTable(w, sel)
	b := sel.Best
	tr := trainingOf(sel.Model, b.M)
	fmt.Fprintf(w, "\nbest       %s, m = %d: %s %s; training RMSE %s, R² %s; DoF %s, σ̂ %s\n", gridLabel(b), b.M, sel.Criterion,
		f(b.Score(sel.Criterion)), f(float64(tr.RMSE)), f(float64(tr.R2)), f(b.DoF), f(b.Sigma))
	if *modelOut != "" {
		fmt.Fprintf(w, "model      saved to %s (predicts with m = %d unless told otherwise)\n", *modelOut, b.M)
	}
	printWarnings(w, kpls.Messages(sel.Warnings))
	return nil
}

// parseKernels parses --kernels, a comma-separated list of kernel names;
// a polynomial kernel takes its degree and offset from poly (the
// --degree and --offset flags, resolved by modelFlags.options).
func parseKernels(list string, poly kpls.Kernel) ([]kpls.Kernel, error) {
	var out []kpls.Kernel
	for _, name := range strings.Split(list, ",") {
		k, err := parseKernel("--kernels", strings.TrimSpace(name))
		if err != nil {
			return nil, err
		}
		if _, ok := k.(kpls.Polynomial); ok {
			if p, ok := poly.(kpls.Polynomial); ok {
				k = p
			}
		}
		if slices.ContainsFunc(out, func(o kpls.Kernel) bool { return o.Name() == k.Name() }) {
			return nil, usagef("--kernels: %s appears twice", k.Name())
		}
		out = append(out, k)
	}
	return out, nil
}

func kernelList(ks []kpls.Kernel) string {
	names := make([]string, len(ks))
	for i, k := range ks {
		names[i] = k.Name()
	}
	return strings.Join(names, ", ")
}

func gridLabel(r kpls.SelectionRow) string {
	if w, ok := kpls.WidthOf(r.Kernel); ok {
		return r.Kernel.Name() + " width " + f(w)
	}
	return r.Kernel.Name()
}

// selectionTable writes every row of the grid; "*" marks each grid
// point's choice and "<= best" the winner.
func selectionTable(w io.Writer, sel *kpls.Selection) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	cv := sel.Criterion == kpls.CV
	if cv {
		fmt.Fprint(tw, "kernel\twidth\tm\tRMSECV\tQ2\tRSS\tDoF\t\n")
	} else {
		fmt.Fprint(tw, "kernel\twidth\tm\tRSS\tDoF\tsigma\tGCV\tAIC\tBIC\tgMDL\t\n")
	}
	chosen := map[string]int{}
	for _, c := range sel.Choices {
		chosen[gridLabel(c)] = c.M
	}
	for i, r := range sel.Table {
		if i > 0 && gridLabel(r) != gridLabel(sel.Table[i-1]) {
			fmt.Fprint(tw, "\t\n")
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
			width = f(w)
		}
		if cv {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\n", r.Kernel.Name(), width, r.M, f(r.RMSECV), f(r.Q2), f(r.RSS), f(r.DoF), mark)
		} else {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Kernel.Name(), width, r.M, f(r.RSS), f(r.DoF), f(r.Sigma), f(r.GCV), f(r.AIC), f(r.BIC), f(r.GMDL), mark)
		}
	}
	tw.Flush()
}
