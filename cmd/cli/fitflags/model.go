package fitflags

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/kpls-go/kpls/cmd/cli"
	"github.com/kpls-go/kpls/kpls"
)

// Model holds the fitting flags: the training data and the options of a
// fit or a selection.
type Model struct {
	Data        string
	Target      string
	Kernel      string
	Degree      int
	Offset      float64
	Components  int
	DoF         string
	Lanczos     int
	Standardize bool
	Seed        uint64
	Storage     string
	MemoryLimit string
	// Weights is the column of frequency weights (--weights), empty for none.
	Weights string
	Input
}

// Register adds the fitting flags and the input flags; dofDefault is the
// default --dof.
func (m *Model) Register(fs *cli.FlagSet, dofDefault string) {
	fs.StringVar(&m.Data, "data", "", "training data: a CSV `file` with a header line (required); - reads standard input, .gz files are decompressed")
	fs.StringVar(&m.Target, "target", "", "target `columns`: a name, or several separated by commas (one model each, on shared kernel matrices); empty means the last column not excluded by --features, --drop or --id (named on stderr)")
	kernels := "rbf (exp(−‖x−z‖²/(2w))), linear (xᵀz), polynomial ((xᵀz/d + offset)^degree), laplacian (exp(−‖x−z‖/w)), matern32 or matern52 (Matérn ν = 3/2, 5/2, length scale w)"
	if fs.Name() == "select" {
		// select searches --kernels; --kernel names one kernel to search
		// alone, and has no default kernel of its own.
		fs.StringVar(&m.Kernel, "kernel", "", "search this one kernel only, instead of --kernels: "+kernels+"; empty means the --kernels list")
	} else {
		fs.StringVar(&m.Kernel, "kernel", "rbf", "kernel: "+kernels)
	}
	fs.IntVar(&m.Degree, "degree", 3, "degree of --kernel polynomial")
	fs.Float64Var(&m.Offset, "offset", 1, "offset (scikit-learn's coef0, ≥ 0) of --kernel polynomial")
	fs.IntVar(&m.Components, "components", kpls.DefaultComponents, "largest number of components `M` to fit (every m = 0..M is reported); by default also at most n−1, and d for the linear kernel")
	dof := "degrees-of-freedom method: exact (exact, cubic time), approx (a quadratic-time approximation, within about 1–2 % of exact in its test bed), lanczos (the paper's Ritz values, cheaper and often far off), none (m+1)"
	if fs.Name() == "select" {
		dof += "; unset, the DoF are approx where they are used: a mean's members (the best among them) are fitted without DoF"
	}
	fs.StringVar(&m.DoF, "dof", dofDefault, dof)
	fs.IntVar(&m.Lanczos, "lanczos", 0, "Lanczos steps `MMAX` behind the lanczos and approx DoF; 0 means max(30, 2·components)")
	fs.BoolVar(&m.Standardize, "standardize", true, "centre and scale each feature by its training mean and standard deviation")
	seed := "seed of the random probes behind --dof approx (it changes the DoF a little)"
	if fs.Name() == "select" {
		seed = "seed of the cross-validation folds (--criterion cv; another seed can choose another model), of the --screen sample and of the random probes behind --dof approx"
	}
	fs.Uint64Var(&m.Seed, "seed", 0, seed)
	fs.StringVar(&m.Storage, "storage", "auto", "how the kernel matrix is held: auto (by --memory-limit), dense (8n² bytes, fastest), float32 (2n² bytes), hybrid (caches --memory-limit, recomputes the rest), matrix-free (recomputed in every product) or features (the linear kernel through its centred inputs, 8nd bytes; auto's choice for it)")
	fs.StringVar(&m.MemoryLimit, "memory-limit", "", "`bytes` the kernel matrix may take, e.g. 6GiB, 8GB or 500MiB; empty means a quarter of physical memory ("+FormatBytes(kpls.Resources{}.Memory())+" here)")
	fs.StringVar(&m.Weights, "weights", "", "`column` of frequency weights: a row of weight w counts as w copies of itself (w ≥ 0, not necessarily whole; 0 leaves the row out); never a feature")
	m.Input.Register(fs, true)
}

// Options checks the fitting flags and turns them into the method and
// the resources of a fit; allowed lists the --dof methods the subcommand
// takes.
func (m *Model) Options(fs *cli.FlagSet, allowed ...string) (kpls.Options, kpls.Resources, error) {
	o, err := m.method(fs, allowed)
	if err != nil {
		return o, kpls.Resources{}, err
	}
	r, err := m.resources(fs, o.Kernel)
	return o, r, err
}

// method checks the flags of the method.
func (m *Model) method(fs *cli.FlagSet, allowed []string) (kpls.Options, error) {
	var o kpls.Options
	if m.Data == "" {
		return o, cli.Usagef("%s: --data is required", fs.Name())
	}
	k, err := m.kernel(fs)
	if err != nil {
		return o, err
	}
	o.Kernel = k
	if m.Components < 1 {
		return o, cli.Usagef("--components: %d, want at least 1", m.Components)
	}
	// Left at its default, the library caps it at what the data allow
	// (n−1, and d for the linear kernel).
	if fs.IsSet("components") {
		o.Components = m.Components
	}
	if o.DoF, err = m.dof(fs, allowed); err != nil {
		return o, err
	}
	o.Lanczos = m.Lanczos
	o.RawFeatures = !m.Standardize
	o.Seed = m.Seed
	return o, nil
}

// resources checks --storage and --memory-limit for kernel k.
func (m *Model) resources(fs *cli.FlagSet, k kpls.Kernel) (kpls.Resources, error) {
	var r kpls.Resources
	if err := r.Storage.UnmarshalText([]byte(m.Storage)); err != nil {
		return r, cli.Usagef("--storage: %q, want auto, dense, float32, hybrid, matrix-free or features", m.Storage)
	}
	if fs.Name() != "select" { // select checks its grid's kernels
		if err := FeaturesOnlyLinear(r.Storage, k); err != nil {
			return r, err
		}
	}
	if m.MemoryLimit != "" {
		var err error
		if r.MemoryLimit, err = ParseBytes(m.MemoryLimit); err != nil {
			return r, cli.Usagef("--memory-limit: %v", err)
		}
	}
	return r, nil
}

// kernel resolves --kernel with --degree and --offset.
func (m *Model) kernel(fs *cli.FlagSet) (kpls.Kernel, error) {
	name := m.Kernel
	if name == "" {
		name = "rbf" // select without --kernel: only --degree and --offset are read
	}
	k, err := parseKernel("--kernel", name)
	if err != nil {
		return nil, err
	}
	p, ok := k.(kpls.Polynomial)
	switch {
	case !ok && (fs.IsSet("degree") || fs.IsSet("offset")):
		return nil, cli.Usagef("--degree and --offset apply to --kernel polynomial, not %s", k.Name())
	case !ok:
		return k, nil
	case m.Degree < 1:
		return nil, cli.Usagef("--degree: %d, want at least 1", m.Degree)
	case !(m.Offset >= 0) || math.IsInf(m.Offset, 0):
		return nil, cli.Usagef("--offset: %g, want a finite number ≥ 0 (a negative offset makes the kernel indefinite)", m.Offset)
	}
	p.Degree, p.Offset = m.Degree, m.Offset
	return p, nil
}

// dof resolves --dof among allowed, and checks --lanczos against it.
func (m *Model) dof(fs *cli.FlagSet, allowed []string) (kpls.DoFMethod, error) {
	d := kpls.DoFMethod(strings.ToLower(m.DoF))
	ok := false
	for _, a := range allowed {
		ok = ok || string(d) == a
	}
	if !ok {
		return d, cli.Usagef("--dof: unknown method %q (want %s)", m.DoF, strings.Join(allowed, ", "))
	}
	if fs.IsSet("lanczos") {
		switch {
		case m.Lanczos < 1:
			return d, cli.Usagef("--lanczos: %d, want at least 1", m.Lanczos)
		case d != kpls.DoFLanczos && d != kpls.DoFApprox:
			return d, cli.Usagef("--lanczos: --dof %s uses no Lanczos steps (it applies to --dof lanczos and approx)", d)
		}
		// Against the number of components and the data size: checkLanczos,
		// once the data are read.
	}
	return d, nil
}

// FeaturesOnlyLinear refuses --storage features for kernels other than the
// linear one, which is all it can hold.
func FeaturesOnlyLinear(s kpls.Storage, kernels ...kpls.Kernel) error {
	if s != kpls.StorageFeatures {
		return nil
	}
	for _, k := range kernels {
		if _, ok := k.(kpls.Linear); !ok {
			return cli.Usagef("--storage features: holds the linear kernel only, not %s", k.Name())
		}
	}
	return nil
}

// checkLanczos holds --lanczos against what the data allow, as the
// library will resolve it: a value it would raise to the number of
// components is an error, one it would cap at n−1 (or d for the linear
// kernel) a stated warning.
func (m *Model) checkLanczos(e *cli.Env, n, d int) error {
	if m.Lanczos == 0 {
		return nil
	}
	k, err := kpls.ParseKernel(m.Kernel)
	if err != nil {
		return err
	}
	if p, ok := k.(kpls.Polynomial); ok {
		p.Degree = m.Degree
		k = p
	}
	maxComp := kpls.Options{Kernel: k}.MaxComponents(n, d)
	comp := min(m.Components, maxComp)
	switch {
	case m.Lanczos < comp:
		return cli.Usagef("--lanczos: %d steps for %d components; the Lanczos DoF needs at least one step per component: give --lanczos %d or more, or fewer --components",
			m.Lanczos, comp, comp)
	case m.Lanczos > maxComp:
		fmt.Fprintf(e.Stderr, "%s: warning: --lanczos %d: the data allow at most %d steps (n = %d, d = %d); %d are used\n", e.Prog, m.Lanczos, maxComp, n, d, maxComp)
	}
	return nil
}

// optionFlags are the flags behind the library's option fields, as its
// errors name them.
var optionFlags = []struct{ field, flag string }{
	{"CrossValidation.Folds", "--folds"},
	{"CrossValidation.Repeats", "--repeats"},
	{"CrossValidation.AverageWithin", "--average-within"},
	{"SelectOptions.MaxComponents", "--max-components"},
	{"SelectOptions.MaxPasses", "--max-passes"},
	{"SelectOptions.ScreenRows", "--screen"},
	{"SelectOptions.Components", "--components"},
	{"Options.Components", "--components"},
	{"Options.Lanczos", "--lanczos"},
	{"Options.Relevance", "--relevance"},
	{"Resources.MemoryLimit", "--memory-limit"},
}

// flagErr is a library error about an option field as a usage error
// about its flag (with the data file it was checked against), or nil if
// err names no field with a flag.
func flagErr(path string, err error) error {
	if !errors.Is(err, kpls.ErrBadOption) && !errors.Is(err, kpls.ErrComponents) {
		return nil
	}
	msg := err.Error()
	for _, f := range optionFlags {
		if _, rest, ok := strings.Cut(msg, f.field+": "); ok {
			return cli.Usagef("%s: %s (%s)", f.flag, rest, path)
		}
	}
	return nil
}

// DataErr says which input a library error is about, pointing at the flag
// behind options the data cannot support; an error about an option field
// is a usage error about its flag.
func DataErr(path string, err error) error {
	var hint string
	if ferr := flagErr(path, err); ferr != nil {
		return ferr
	}
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
