package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/kpls-go/kpls/blas"
	"github.com/kpls-go/kpls/kpls"
)

// errFlagParse means the flag package rejected the command line; the
// message and usage have been printed.
var errFlagParse = errors.New("bad command line")

// flagSet is a subcommand's flags with its synopsis.
type flagSet struct {
	*flag.FlagSet
	synopsis string
	about    string
}

func newFlagSet(name, synopsis, about string) *flagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // parse prints usage itself, to the right stream
	return &flagSet{FlagSet: fs, synopsis: synopsis, about: about}
}

// parse parses args. --help prints the usage to stdout and returns
// flag.ErrHelp; a bad flag prints the error and usage to stderr.
func (fs *flagSet) parse(e *env, args []string) error {
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fs.usage(e.stdout)
		return err
	case err != nil:
		fmt.Fprintf(e.stderr, "kpls %s: %v\n\n", fs.Name(), err)
		fs.usage(e.stderr)
		return errFlagParse
	case fs.NArg() > 0:
		return usagef("%s: unexpected argument %q (flags start with --)", fs.Name(), fs.Arg(0))
	}
	return nil
}

// usage lists every flag with its default, also when the default is the
// zero value (which flag.PrintDefaults leaves out).
func (fs *flagSet) usage(w io.Writer) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "Usage: kpls %s %s\n\n%s\n\nFlags:\n", fs.Name(), fs.synopsis, fs.about)
	fs.VisitAll(func(f *flag.Flag) {
		typ, help := flag.UnquoteUsage(f)
		if typ != "" {
			typ = " " + typ
		}
		def := f.DefValue
		if def == "" {
			def = `""`
		}
		fmt.Fprintf(&b, "  --%s%s\n      %s (default %s)\n", f.Name, typ, strings.ReplaceAll(help, "\n", "\n      "), def)
	})
	w.Write(b.Bytes())
}

// isSet reports whether the flag called name was given on the command line.
func (fs *flagSet) isSet(name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == name {
			set = true
		}
	})
	return set
}

// progressMode is the --progress flag: auto (a bar when stderr is a
// terminal), on (a bar on a terminal, log lines otherwise) or off. A bare
// --progress means on.
type progressMode string

func (p *progressMode) String() string   { return string(*p) }
func (p *progressMode) IsBoolFlag() bool { return true }
func (p *progressMode) Set(s string) error {
	switch strings.ToLower(s) {
	case "auto":
		*p = "auto"
	case "on", "true", "1", "yes":
		*p = "on"
	case "off", "false", "0", "no":
		*p = "off"
	default:
		return fmt.Errorf("want auto, on or off")
	}
	return nil
}

// common holds the flags several subcommands share.
type common struct {
	json     bool
	backend  string
	progress progressMode
}

func (c *common) register(fs *flagSet, withBackend bool) {
	fs.BoolVar(&c.json, "json", false, "write one JSON document to stdout; tables, warnings and progress go to stderr")
	if withBackend {
		fs.StringVar(&c.backend, "backend", "", "BLAS `backend`: "+strings.Join(blas.Available(), ", ")+"; empty means "+blas.Name(blas.Default())+" (also in an OpenBLAS build, where it measures faster; name openblas to use it)")
	}
	c.progress = "auto"
	fs.Var(&c.progress, "progress", "progress display: auto (a bar when stderr is a terminal), on (also plain log lines when it is not; a bare --progress means on), off")
}

// blasBackend resolves --backend.
func (c *common) blasBackend() (blas.Float64, error) {
	b, err := blas.ByName(c.backend)
	if err != nil {
		return nil, usagef("--backend: %v", err)
	}
	return b, nil
}

// text is where human-readable output goes: stdout, or stderr with --json.
func (c *common) text(e *env) io.Writer {
	if c.json {
		return e.stderr
	}
	return e.stdout
}

// modelFlags are the fitting options shared by fit and select.
type modelFlags struct {
	data        string
	target      string
	kernel      string
	degree      int
	offset      float64
	components  int
	dof         string
	lanczos     int
	standardize bool
	seed        uint64
	storage     string
	memLimit    string
	dataFlags
}

func (m *modelFlags) register(fs *flagSet, dofDefault string) {
	fs.StringVar(&m.data, "data", "", "training data: a CSV `file` with a header line (required); - reads standard input, .gz files are decompressed")
	fs.StringVar(&m.target, "target", "", "target `column` name; empty means the last column not excluded by --features, --drop or --id (named on stderr)")
	fs.StringVar(&m.kernel, "kernel", "rbf", "kernel: rbf (exp(−‖x−z‖²/(2w))), linear (xᵀz), polynomial ((xᵀz/d + offset)^degree), laplacian (exp(−‖x−z‖/w)), matern32 or matern52 (Matérn ν = 3/2, 5/2, length scale w)")
	fs.IntVar(&m.degree, "degree", 3, "degree of --kernel polynomial")
	fs.Float64Var(&m.offset, "offset", 1, "offset (scikit-learn's coef0, ≥ 0) of --kernel polynomial")
	fs.IntVar(&m.components, "components", kpls.DefaultComponents, "largest number of components `M` to fit (every m = 0..M is reported); by default also at most n−1, and d for the linear kernel")
	fs.StringVar(&m.dof, "dof", dofDefault, "degrees-of-freedom method: exact (cubic), lanczos (the paper's Ritz values), approx (quadratic, the most accurate), none (m+1)")
	fs.IntVar(&m.lanczos, "lanczos", 0, "Lanczos steps `MMAX` behind the lanczos and approx DoF; 0 means max(30, 2·components)")
	fs.BoolVar(&m.standardize, "standardize", true, "centre and scale each feature by its training mean and standard deviation")
	fs.Uint64Var(&m.seed, "seed", 0, "seed of the random probes behind --dof approx")
	fs.StringVar(&m.storage, "storage", "auto", "how the kernel matrix is held: auto (by --memory-limit), dense (8n² bytes, fastest), float32 (2n² bytes), hybrid (caches --memory-limit, recomputes the rest), matrix-free (recomputed in every product) or features (the linear kernel through its centred inputs, 8nd bytes; auto's choice for it)")
	fs.StringVar(&m.memLimit, "memory-limit", "", "`bytes` the kernel matrix may take, e.g. 6GiB, 8GB or 500MiB; empty means a quarter of physical memory ("+formatBytes(kpls.DefaultMemoryLimit())+" here)")
	m.dataFlags.register(fs, true)
}

// options checks the shared fitting flags and turns them into options.
func (m *modelFlags) options(fs *flagSet, allowed ...string) (kpls.Options, error) {
	var o kpls.Options
	if m.data == "" {
		return o, usagef("%s: --data is required", fs.Name())
	}
	k, err := parseKernel("--kernel", m.kernel)
	if err != nil {
		return o, err
	}
	if p, ok := k.(kpls.Polynomial); ok {
		if m.degree < 1 {
			return o, usagef("--degree: %d, want at least 1", m.degree)
		}
		if !(m.offset >= 0) || math.IsInf(m.offset, 0) {
			return o, usagef("--offset: %g, want a finite number ≥ 0 (a negative offset makes the kernel indefinite)", m.offset)
		}
		p.Degree, p.Offset = m.degree, m.offset
		k = p
	} else if fs.isSet("degree") || fs.isSet("offset") {
		return o, usagef("--degree and --offset apply to --kernel polynomial, not %s", k.Name())
	}
	o.Kernel = k
	if m.components < 1 {
		return o, usagef("--components: %d, want at least 1", m.components)
	}
	// Left at its default, the library caps it at what the data allow
	// (n−1, and d for the linear kernel).
	if fs.isSet("components") {
		o.Components = m.components
	}
	d := kpls.DoFMethod(strings.ToLower(m.dof))
	ok := false
	for _, a := range allowed {
		ok = ok || string(d) == a
	}
	if !ok {
		return o, usagef("--dof: unknown method %q (want %s)", m.dof, strings.Join(allowed, ", "))
	}
	o.DoF = d
	if fs.isSet("lanczos") {
		switch {
		case m.lanczos < 1:
			return o, usagef("--lanczos: %d, want at least 1", m.lanczos)
		case d != kpls.DoFLanczos && d != kpls.DoFApprox:
			return o, usagef("--lanczos: --dof %s uses no Lanczos steps (it applies to --dof lanczos and approx)", d)
		}
		// Against the number of components and the data size: checkLanczos,
		// once the data are read.
	}
	o.Lanczos = m.lanczos
	o.RawFeatures = !m.standardize
	o.Seed = m.seed
	if o.Storage, err = kpls.ParseStorage(m.storage); err != nil {
		return o, usagef("--storage: %q, want auto, dense, float32, hybrid, matrix-free or features", m.storage)
	}
	if fs.Name() != "select" { // select checks its grid's kernels
		if err := featuresOnlyLinear(o.Storage, o.Kernel); err != nil {
			return o, err
		}
	}
	if m.memLimit != "" {
		if o.MemoryLimit, err = parseBytes(m.memLimit); err != nil {
			return o, usagef("--memory-limit: %v", err)
		}
	}
	return o, nil
}

// featuresOnlyLinear refuses --storage features for kernels other than the
// linear one, which is all it can hold.
func featuresOnlyLinear(s kpls.Storage, kernels ...kpls.Kernel) error {
	if s != kpls.StorageFeatures {
		return nil
	}
	for _, k := range kernels {
		if _, ok := k.(kpls.Linear); !ok {
			return usagef("--storage features: holds the linear kernel only, not %s", k.Name())
		}
	}
	return nil
}

// parseBytes parses a size: a whole number of bytes, or a number with a
// unit, KB/MB/GB/TB (powers of 1000) or KiB/MiB/GiB/TiB (powers of 1024;
// K, M, G and T alone mean these too).
func parseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := strings.IndexFunc(t, func(r rune) bool { return !(r >= '0' && r <= '9' || r == '.') })
	num, unit := t, ""
	if i >= 0 {
		num, unit = t[:i], strings.TrimSpace(t[i:])
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || num == "" {
		return 0, fmt.Errorf("%q is not a size (want e.g. 8GiB, 6GB or 500MiB)", s)
	}
	scale := map[string]float64{"": 1, "B": 1,
		"KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12,
		"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40,
		"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}
	f, ok := scale[unit]
	if !ok {
		return 0, fmt.Errorf("%q: unknown unit %q (want B, KB, MB, GB, TB, KiB, MiB, GiB or TiB)", s, unit)
	}
	b := v * f
	if !(b >= 1) || b > math.MaxInt64/2 {
		return 0, fmt.Errorf("%q: want at least one byte and at most 4 EiB", s)
	}
	return int64(b), nil
}

// formatBytes writes a size in GiB, MiB or KiB.
func formatBytes(b int64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	}
	return fmt.Sprintf("%.1f KiB", float64(b)/(1<<10))
}

// checkLanczos holds --lanczos against what the data allow, as the
// library will resolve it: a value it would raise to the number of
// components is an error, one it would cap at n−1 (or d for the linear
// kernel) a stated warning.
func (m *modelFlags) checkLanczos(e *env, n, d int) error {
	if m.lanczos == 0 {
		return nil
	}
	k, err := kpls.ParseKernel(m.kernel)
	if err != nil {
		return err
	}
	if p, ok := k.(kpls.Polynomial); ok {
		p.Degree = m.degree
		k = p
	}
	maxComp := kpls.MaxComponents(k, n, d)
	comp := min(m.components, maxComp)
	switch {
	case m.lanczos < comp:
		return usagef("--lanczos: %d steps for %d components; the Lanczos DoF needs at least one step per component: give --lanczos %d or more, or fewer --components",
			m.lanczos, comp, comp)
	case m.lanczos > maxComp:
		fmt.Fprintf(e.stderr, "kpls: warning: --lanczos %d: the data allow at most %d steps (n = %d, d = %d); %d are used\n", m.lanczos, maxComp, n, d, maxComp)
	}
	return nil
}

// parseWidths parses a comma-separated list of distinct positive widths.
// An empty entry or a repeated width is an error: it is a typo, and a
// repeated width would be fitted twice and marked best twice.
func parseWidths(s string) ([]float64, error) {
	if strings.TrimSpace(s) == "" {
		return nil, usagef("--widths: no widths in %q", s)
	}
	var ws []float64
	for i, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			return nil, usagef("--widths: entry %d of %q is empty", i+1, s)
		}
		w, err := strconv.ParseFloat(f, 64)
		if err != nil || !(w > 0) || math.IsInf(w, 0) {
			return nil, usagef("--widths: %q is not a positive number", f)
		}
		if j := slices.Index(ws, w); j >= 0 {
			return nil, usagef("--widths: %q repeats entry %d (%g)", f, j+1, w)
		}
		ws = append(ws, w)
	}
	if len(ws) == 0 {
		return nil, usagef("--widths: no widths in %q", s)
	}
	return ws, nil
}

// parseKernel parses a kernel name for the flag named flag. The command
// takes features from files, so the precomputed kernel (a Gram matrix) is
// for the Go API only.
func parseKernel(flag, name string) (kpls.Kernel, error) {
	k, err := kpls.ParseKernel(name)
	if err != nil || k == (kpls.Precomputed{}) {
		return nil, usagef("%s: unknown kernel %q (want rbf, linear, polynomial, laplacian, matern32 or matern52)", flag, name)
	}
	return k, nil
}
