package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/blas"
	"github.com/kpls-go/kpls/cmd/kpls/internal/dataset"
	"github.com/kpls-go/kpls/kpls"
)

// fitJSON is the document of `kpls fit --json` (docs/design.md §6).
type fitJSON struct {
	Data                string          `json:"data"`
	N                   int             `json:"n"`
	D                   int             `json:"d"`
	Target              string          `json:"target"`
	Features            []string        `json:"features"`
	Kernel              kernelJSON      `json:"kernel"`
	Standardize         bool            `json:"standardize"`
	DoFMethod           kpls.DoFMethod  `json:"dof_method"`
	Lanczos             int             `json:"lanczos"`
	ComponentsRequested int             `json:"components_requested"`
	ValidComponents     int             `json:"valid_components"`
	Backend             string          `json:"backend"`
	Storage             storageJSON     `json:"storage"`
	Warnings            []string        `json:"warnings"`
	Components          []componentJSON `json:"components"`
	Selected            selectedJSON    `json:"selected"`
	Training            trainingJSON    `json:"training"`
	Model               string          `json:"model,omitempty"`
}

func runFit(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("fit", "--data F.csv [flags]",
		"Fits kernel PLS with up to --components components in one run and reports, for every m,\n"+
			"the residual sum of squares, degrees of freedom (including the intercept), σ̂, AIC, BIC and gMDL.\n"+
			"The RBF width can be given as --width w (k = exp(−‖x−z‖²/(2w))) or as --gamma g = 1/(2w);\n"+
			"--width is also the length scale of the laplacian and Matérn kernels.")
	var mf modelFlags
	mf.register(fs, string(kpls.DoFApprox))
	var c common
	width := fs.Float64("width", 0, "kernel width `w` (> 0): the RBF variance, the laplacian and Matérn length scale; 0 means d/2 for rbf (scikit-learn's gamma = 1/d) and √d for the others")
	gamma := fs.Float64("gamma", 0, "RBF `gamma` = 1/(2w), instead of --width; 0 means unset")
	modelOut := fs.String("model", "", "save the fitted model to this `file` for kpls predict")
	crit := fs.String("criterion", string(kpls.DefaultFitCriterion), "criterion for the m that the saved model predicts with: gcv, bic, aic or gmdl")
	c.register(fs, true)
	if err := fs.parse(e, args); err != nil {
		return err
	}
	opts, err := mf.options(fs, "exact", "lanczos", "approx", "none")
	if err != nil {
		return err
	}
	criterion, err := kpls.ParseCriterion(*crit)
	if err != nil || criterion == kpls.CV {
		return usagef("--criterion: %q, want gcv, bic, aic or gmdl (cross-validation is kpls select --criterion cv)", *crit)
	}
	opts.Criterion = criterion
	switch {
	case fs.isSet("width") && fs.isSet("gamma"):
		return usagef("--width and --gamma both set: give one of them (gamma = 1/(2·width))")
	case fs.isSet("width") && !(*width > 0 && !math.IsInf(*width, 0)):
		return usagef("--width: %g, want a positive finite number", *width)
	case fs.isSet("gamma") && !(*gamma > 0 && !math.IsInf(*gamma, 0)):
		return usagef("--gamma: %g, want a positive finite number", *gamma)
	case fs.isSet("gamma") && opts.Kernel != (kpls.RBF{}):
		return usagef("--gamma applies to --kernel rbf; give --width for %s", opts.Kernel.Name())
	}
	if _, ok := kpls.WidthOf(opts.Kernel); !ok && fs.isSet("width") {
		return usagef("--kernel %s takes no --width", opts.Kernel.Name())
	}
	switch {
	case fs.isSet("gamma"):
		opts.Kernel = kpls.RBF{Width: 1 / (2 * *gamma)}
	case fs.isSet("width"):
		opts.Kernel = kpls.WithWidth(opts.Kernel, *width)
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
	if opts.DoF == kpls.DoFExact && t.Rows > 3000 {
		// Cubic: 2·n³·M flops for the forward-mode Jacobian.
		n, comp := float64(t.Rows), float64(max(opts.Components, kpls.DefaultComponents))
		fmt.Fprintf(e.stderr, "kpls: the exact DoF is cubic in n: at n = %d with %g components expect about %.0f minutes (--dof approx is quadratic)\n",
			t.Rows, comp, 2*n*n*n*comp/10e9/60)
	}
	prog := newProgress(c.progress, e.stderr)
	opts.Progress = prog.callback()
	m, err := kpls.Fit(ctx, mat.NewDense(t.Rows, len(features), x), y, opts)
	prog.done()
	if err != nil {
		return dataErr(mf.data, err)
	}
	if *modelOut != "" {
		if err := saveModel(m, *modelOut); err != nil {
			return err
		}
	}

	o := m.Options()
	sel := selectedOf(m)
	w := c.text(e)
	if c.json {
		warnLines(e.stderr, kpls.Messages(m.Warnings()))
		return writeJSON(e.stdout, fitJSON{
			Data: mf.data, N: m.N(), D: m.D(), Target: opts.TargetName, Features: features,
			Kernel: kernelOf(o.Kernel), Standardize: !o.RawFeatures, DoFMethod: o.DoF, Lanczos: m.LanczosSteps(),
			ComponentsRequested: o.Components, ValidComponents: m.Components(), Backend: backendName(o),
			Storage: storageOf(m), Warnings: nonNil(kpls.Messages(m.Warnings())), Components: componentsJSON(m.Stats(), o.DoF), Selected: sel,
			Training: trainingOf(m, sel.M), Model: *modelOut,
		})
	}
	fmt.Fprintf(w, "data       %s: n = %d, d = %d, target %q\n", mf.data, m.N(), m.D(), opts.TargetName)
	fmt.Fprintf(w, "kernel     %s, features %s\n", describeKernel(o.Kernel), standardized(o))
	fmt.Fprintf(w, "DoF        %s%s; %d of %d components valid; backend %s\n", o.DoF, lanczosNote(o.DoF, m.LanczosSteps()), m.Components(), o.Components, backendName(o))
	fmt.Fprintf(w, "storage    %s\n\n", describeStorage(storageOf(m)))
	statsTable(w, m.Stats(), sel.M, false, 0)
	tr := trainingOf(m, sel.M)
	fmt.Fprintf(w, "\nselected   m = %d by %s (gcv %d, bic %d, aic %d, gmdl %d); DoF include the intercept\n",
		sel.M, sel.Criterion, sel.ByCriterion[kpls.GCV], sel.ByCriterion[kpls.BIC], sel.ByCriterion[kpls.AIC], sel.ByCriterion[kpls.GMDL])
	fmt.Fprintf(w, "training   RMSE %s, R² %s with m = %d\n", f(float64(tr.RMSE)), f(float64(tr.R2)), sel.M)
	if *modelOut != "" {
		fmt.Fprintf(w, "model      saved to %s (predicts with m = %d unless told otherwise)\n", *modelOut, sel.M)
	}
	printWarnings(w, kpls.Messages(m.Warnings()))
	return nil
}

// targetName is the name of the column Split used as the target.
func targetName(t *dataset.Table, target string) string {
	if target != "" {
		return target
	}
	return t.Names[t.Cols-1]
}

func standardized(o kpls.Options) string {
	if o.RawFeatures {
		return "raw (--standardize=false)"
	}
	return "standardised"
}

func lanczosNote(d kpls.DoFMethod, steps int) string {
	if d == kpls.DoFLanczos || d == kpls.DoFApprox {
		return fmt.Sprintf(" (M = %d Lanczos steps)", steps)
	}
	return ""
}

// storageJSON is how a fit held its kernel matrix.
type storageJSON struct {
	Kind        kpls.Storage `json:"kind"`
	Bytes       int64        `json:"bytes"`        // of the kernel matrix (features: the centred inputs); 0 for matrix-free
	MemoryLimit int64        `json:"memory_limit"` // the limit it was chosen by
}

func storageOf(m *kpls.Model) storageJSON {
	o := m.Options()
	limit := o.MemoryLimit
	if limit == 0 {
		limit = kpls.DefaultMemoryLimit()
	}
	s := m.Storage()
	b := kpls.KernelBytes(s, m.N())
	switch s {
	case kpls.StorageFeatures:
		b = 8 * int64(m.N()) * int64(m.D())
	case kpls.StorageHybrid:
		b = min(limit, kpls.KernelBytes(kpls.StorageDense, m.N()))
	}
	return storageJSON{Kind: s, Bytes: b, MemoryLimit: limit}
}

func describeStorage(s storageJSON) string {
	switch s.Kind {
	case kpls.StorageMatrixFree:
		return fmt.Sprintf("matrix-free kernel matrix (recomputed in every product; memory limit %s)", formatBytes(s.MemoryLimit))
	case kpls.StorageFeatures:
		return fmt.Sprintf("linear kernel matrix through its centred inputs, %s (memory limit %s)", formatBytes(s.Bytes), formatBytes(s.MemoryLimit))
	case kpls.StorageHybrid:
		return fmt.Sprintf("hybrid kernel matrix (%s cached, the rest recomputed in every product; memory limit %s)", formatBytes(s.Bytes), formatBytes(s.MemoryLimit))
	}
	return fmt.Sprintf("%s kernel matrix, %s (memory limit %s)", s.Kind, formatBytes(s.Bytes), formatBytes(s.MemoryLimit))
}

func backendName(o kpls.Options) string {
	if o.Backend == nil {
		return "default"
	}
	return blas.Name(o.Backend)
}

// saveModel writes the model to path through a temporary file, so that a
// failed write never leaves half a model behind.
func saveModel(m *kpls.Model, path string) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".kpls-model-*")
	if err != nil {
		return fmt.Errorf("--model: cannot write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			os.Remove(tmp.Name())
		}
	}()
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return fmt.Errorf("--model: writing %s: %w", path, err)
	}
	if err := m.Save(tmp); err != nil {
		tmp.Close()
		return fmt.Errorf("--model: writing %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("--model: writing %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("--model: cannot write %s: %w", path, err)
	}
	return nil
}

// dataErr says which input a library error is about, pointing at the flag
// behind options the data cannot support.
func dataErr(path string, err error) error {
	var hint string
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	case errors.Is(err, kpls.ErrComponents):
		hint = " (--components)"
	case errors.Is(err, kpls.ErrWidth), errors.Is(err, kpls.ErrDegenerate):
		hint = " (--width, --gamma or --widths)"
	case errors.Is(err, kpls.ErrLevel):
		hint = " (--level)"
	case errors.Is(err, kpls.ErrTooLarge):
		hint = " (--memory-limit, or --storage hybrid or matrix-free)"
	}
	return fmt.Errorf("%s: %w%s", path, err, hint)
}
