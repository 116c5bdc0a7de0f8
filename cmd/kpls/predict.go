package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"text/tabwriter"

	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/internal/dataset"
	"github.com/kpls-go/kpls/kpls"
)

// predictJSON is the document of `kpls predict --json` (DESIGN.md §6).
type predictJSON struct {
	Model             string      `json:"model"`
	Data              string      `json:"data"`
	Components        int         `json:"components"`
	Level             float64     `json:"level"`
	InterceptVariance bool        `json:"intercept_variance"`
	Warnings          []string    `json:"warnings"`
	Predictions       []bandJSON  `json:"predictions"`
	Target            *targetJSON `json:"target,omitempty"`
}

type bandJSON struct {
	Yhat  num `json:"yhat"`
	SE    num `json:"se"`
	Lower num `json:"lower"`
	Upper num `json:"upper"`
}

// targetJSON compares the predictions with a target column in the file.
type targetJSON struct {
	Name     string  `json:"name"`
	RMSE     float64 `json:"rmse"`
	Coverage float64 `json:"coverage"` // share of targets inside the confidence band
}

func runPredict(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("predict", "--model MODEL --data F.csv [flags]",
		"Predicts every row of F.csv with a model saved by kpls fit --model (or select --model), with\n"+
			"pointwise confidence bands yhat ± z·se, se² = σ̂²(‖H_mᵀk_c(x)‖² + 1/n). Feature columns are matched\n"+
			"by name; a target column in F.csv is ignored for prediction (its RMSE and band coverage are shown).")
	var c common
	modelPath := fs.String("model", "", "model `file` written by kpls fit --model (required)")
	data := fs.String("data", "", "CSV `file` of points to predict, with a header naming the model's features (required)")
	comp := fs.Int("components", -1, "number of components `m` to predict with; -1 means the model's recorded choice")
	level := fs.Float64("level", 0.98, "confidence level of the bands, in (0, 1)")
	noIntercept := fs.Bool("no-intercept-variance", false, "leave the intercept's σ̂²/n out of the variance, as the paper does")
	c.register(fs, false)
	if err := fs.parse(e, args); err != nil {
		return err
	}
	switch {
	case *modelPath == "":
		return usagef("predict: --model is required")
	case *data == "":
		return usagef("predict: --data is required")
	case !(*level > 0 && *level < 1):
		return usagef("--level: %g, want a number strictly between 0 and 1", *level)
	case fs.isSet("components") && *comp < 0:
		return usagef("--components: %d, want at least 0", *comp)
	}

	m, err := loadModel(*modelPath)
	if err != nil {
		return err
	}
	m0 := *comp
	if !fs.isSet("components") {
		m0 = m.Chosen().M
	}
	if m0 > m.Components() {
		return usagef("--components: %d, the model has 0..%d valid components", m0, m.Components())
	}
	t, err := readPrediction(*data)
	if err != nil {
		return err
	}
	o := m.Options()
	x, err := modelColumns(t, o, m.D())
	if err != nil {
		return err
	}
	prog := newProgress(c.progress, e.stderr)
	bo := kpls.BandOptions{Level: *level, NoIntercept: *noIntercept}
	bands, err := predictBands(ctx, m, mat.NewDense(t.Rows, m.D(), x), m0, bo, prog)
	prog.done()
	if err != nil {
		return dataErr(*data, err)
	}
	var tgt *targetJSON
	var y []float64
	if o.TargetName != "" {
		if y, err = t.Select([]string{o.TargetName}); err == nil {
			tgt = compare(o.TargetName, bands, y)
		}
	}
	warns := nonNil(m.Warnings())
	if math.IsNaN(m.Stats()[m0].Sigma) {
		warns = append(warns, fmt.Sprintf("σ̂ for m = %d is unknown (its DoF could not be computed reliably): no bands, se and limits are null", m0))
	}

	if c.json {
		out := predictJSON{Model: *modelPath, Data: *data, Components: m0, Level: *level, InterceptVariance: !*noIntercept,
			Warnings: warns, Predictions: make([]bandJSON, len(bands)), Target: tgt}
		for i, b := range bands {
			out.Predictions[i] = bandJSON{num(b.Yhat), num(b.SE), num(b.Lower), num(b.Upper)}
		}
		warnLines(e.stderr, warns)
		return writeJSON(e.stdout, out)
	}
	w := e.stdout
	fmt.Fprintf(w, "model      %s: n = %d, d = %d, %s, m = %d of %d\n", *modelPath, m.N(), m.D(), describeKernel(o), m0, m.Components())
	fmt.Fprintf(w, "bands      %.4g %% confidence for f(x), %s\n\n", 100**level, interceptNote(*noIntercept))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "row\tyhat\tse\tlower\tupper\t")
	if y != nil {
		fmt.Fprintf(tw, "%s\t", o.TargetName)
	}
	fmt.Fprintln(tw)
	for i, b := range bands {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t", i+1, f(b.Yhat), f(b.SE), f(b.Lower), f(b.Upper))
		if y != nil {
			fmt.Fprintf(tw, "%s\t", f(y[i]))
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	if tgt != nil {
		fmt.Fprintf(w, "\ntarget     %q: RMSE %.4g, %.1f %% inside the confidence bands\n", tgt.Name, tgt.RMSE, 100*tgt.Coverage)
	}
	printWarnings(w, warns)
	return nil
}

// predictBands runs PredictBands in blocks so that progress can be shown.
func predictBands(ctx context.Context, m *kpls.Model, x *mat.Dense, comp int, bo kpls.BandOptions, prog *progress) ([]kpls.Band, error) {
	rows, _ := x.Dims()
	const block = 512
	out := make([]kpls.Band, 0, rows)
	report := prog.callback()
	for r0 := 0; r0 < rows; r0 += block {
		r1 := min(rows, r0+block)
		if report != nil {
			report(kpls.Progress{Stage: "bands", Done: r0, Total: rows})
		}
		b, err := m.PredictBands(ctx, x.Slice(r0, r1, 0, m.D()), comp, bo)
		if err != nil {
			return nil, err
		}
		out = append(out, b...)
	}
	if report != nil {
		report(kpls.Progress{Stage: "bands", Done: rows, Total: rows})
	}
	return out, nil
}

func interceptNote(noIntercept bool) string {
	if noIntercept {
		return "se² = σ̂²‖H_mᵀk_c(x)‖² (without the intercept's 1/n, as the paper)"
	}
	return "se² = σ̂²(‖H_mᵀk_c(x)‖² + 1/n)"
}

// loadModel reads a model file, naming it in errors.
func loadModel(path string) (*kpls.Model, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--model: %w", err)
	}
	defer f.Close()
	m, err := kpls.Load(f)
	if err != nil {
		return nil, fmt.Errorf("--model %s: %w", path, err)
	}
	return m, nil
}

// modelColumns picks the model's features from t by name. A model saved
// without names takes a file with exactly its number of columns.
func modelColumns(t *dataset.Table, o kpls.Options, d int) ([]float64, error) {
	if len(o.FeatureNames) == d {
		return t.Select(o.FeatureNames)
	}
	if t.Cols != d {
		return nil, fmt.Errorf("%s: %d columns, the model (saved without feature names) has %d features", t.File, t.Cols, d)
	}
	return t.Data, nil
}

// compare measures predictions against known targets.
func compare(name string, bands []kpls.Band, y []float64) *targetJSON {
	var sse float64
	in := 0
	for i, b := range bands {
		r := y[i] - b.Yhat
		sse += r * r
		if y[i] >= b.Lower && y[i] <= b.Upper {
			in++
		}
	}
	n := float64(len(bands))
	return &targetJSON{Name: name, RMSE: math.Sqrt(sse / n), Coverage: float64(in) / n}
}
