package main

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/blas"
	"github.com/kpls-go/kpls/cmd/cli"
	"github.com/kpls-go/kpls/cmd/cli/fitflags"
	"github.com/kpls-go/kpls/internal/demodata"
	"github.com/kpls-go/kpls/kpls"
	"github.com/kpls-go/kpls/lab/runtimebed"
	"github.com/kpls-go/kpls/plots"
)

// benchJSON is the document of `kpls-lab bench --json`.
type benchJSON struct {
	Components int              `json:"components"`
	Lanczos    int              `json:"lanczos"`
	Width      float64          `json:"width"`
	Reps       int              `json:"reps"`
	Points     []benchPointJSON `json:"points"`
	Exponents  []exponentJSON   `json:"exponents"`
}

type benchPointJSON struct {
	Backend string         `json:"backend"`
	DoF     kpls.DoFMethod `json:"dof"`
	N       int            `json:"n"`
	Seconds float64        `json:"seconds"`
}

type exponentJSON struct {
	Backend  string         `json:"backend"`
	DoF      kpls.DoFMethod `json:"dof"`
	NMin     int            `json:"n_min"`
	NMax     int            `json:"n_max"`
	Exponent cli.Num        `json:"exponent"`
}

func runBench(ctx context.Context, e *cli.Env, args []string) error {
	fs := cli.NewFlagSet("bench", "[flags]",
		"The paper's runtime experiment: the time of a whole fit (kernel matrix, NIPALS and DoF for every m)\n"+
			"on kin8nm sub-samples of growing n, with the exact (cubic) and the approximate (quadratic) DoF, for\n"+
			"each BLAS backend. Prints the median times, the fitted exponents of time against n for n ≥ 1000,\n"+
			"and exact/approx ratios; with --out also runtime.csv and runtime.png/.svg (log–log).")
	sizes := fs.String("sizes", "100,200,500,1000,2000,4000", "sub-sample `sizes` n, comma-separated (at most 8192)")
	exactMax := fs.Int("exact-max", 2000, "largest `n` timed with the cubic exact DoF")
	components := fs.Int("components", 10, "number of components `m`")
	lanczos := fs.Int("lanczos", 30, "Lanczos steps `M` behind the approximate DoF")
	width := fs.Float64("width", 4, "RBF `width` on standardised features")
	reps := fs.Int("reps", 3, "repetitions per point; the median is reported")
	probes := fs.Int("probes", 0, "random probes behind the approx DoF; 0 means the library's rule, 64000/n within [16, 64] (more work at small n), a fixed number times the algorithm's scaling")
	backends := fs.String("backends", "", "BLAS `backends`, comma-separated, or all: "+strings.Join(blas.Available(), ", ")+"; empty means the default ("+blas.Name(blas.Default())+")")
	methods := fs.String("dof", "exact,approx,lanczos", "DoF `methods` to time, comma-separated")
	out := fs.String("out", "", "write runtime.csv and runtime.png/.svg to this `directory`; empty writes no files")
	var c fitflags.Common
	c.Register(fs, false)
	if err := fs.Parse(e, args); err != nil {
		return err
	}
	cfg := runtimebed.Config{ExactMax: *exactMax, Components: *components, Lanczos: *lanczos, Width: *width, Reps: *reps, Probes: *probes}
	for _, f := range strings.Split(*sizes, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || v < max(20, *components+1) || v > 8192 {
			return cli.Usagef("--sizes: %q is not a size between %d and 8192", f, max(20, *components+1))
		}
		cfg.Sizes = append(cfg.Sizes, v)
	}
	switch {
	case *components < 1:
		return cli.Usagef("--components: %d, want at least 1", *components)
	case *lanczos < 1:
		return cli.Usagef("--lanczos: %d, want at least 1", *lanczos)
	case !(*width > 0) || math.IsInf(*width, 0):
		return cli.Usagef("--width: %g, want a positive finite number", *width)
	case *reps < 1:
		return cli.Usagef("--reps: %d, want at least 1", *reps)
	case *probes < 0 || *probes == 1:
		return cli.Usagef("--probes: %d, want 0 (the library's rule) or at least 2", *probes)
	}
	names := strings.Split(*backends, ",")
	if strings.TrimSpace(*backends) == "all" {
		names = blas.Available()
	}
	for _, name := range names {
		b, err := blas.ByName(strings.TrimSpace(name))
		if err != nil {
			return cli.Usagef("--backends: %v", err)
		}
		cfg.Backends = append(cfg.Backends, b)
	}
	for _, f := range strings.Split(*methods, ",") {
		switch m := kpls.DoFMethod(strings.TrimSpace(f)); m {
		case kpls.DoFExact, kpls.DoFLanczos, kpls.DoFApprox, kpls.DoFNone:
			cfg.Methods = append(cfg.Methods, m)
		default:
			return cli.Usagef("--dof: unknown method %q (want exact, lanczos, approx or none)", f)
		}
	}
	if c.NewProgress(e) != nil {
		cfg.Progress = func(p runtimebed.Point) {
			fmt.Fprintf(e.Stderr, "%s: n=%-5d %-7s %-8s %.3fs\n", e.Prog, p.N, p.Backend, p.Method, p.Seconds)
		}
	}
	kx, kn, kd, ky, _ := demodata.Kin8nm()
	ps, err := runtimebed.Run(ctx, mat.NewDense(kn, kd, kx), ky, cfg)
	if err != nil {
		return err
	}
	exps := exponents(ps)
	if *out != "" {
		if err := writeBenchFiles(*out, ps); err != nil {
			return err
		}
		fmt.Fprintf(e.Stderr, "%s: wrote %s\n", e.Prog, strings.Join([]string{"runtime.csv", "runtime.png", "runtime.svg"}, ", ")+" in "+*out)
	}
	if c.JSON {
		doc := benchJSON{Components: *components, Lanczos: *lanczos, Width: *width, Reps: *reps, Exponents: exps}
		for _, p := range ps {
			doc.Points = append(doc.Points, benchPointJSON{Backend: p.Backend, DoF: p.Method, N: p.N, Seconds: p.Seconds})
		}
		return cli.WriteJSON(e.Stdout, doc)
	}
	return writeBenchTable(e, ps, exps)
}

// exponents are runtimebed's slopes, as the JSON document reports them.
func exponents(ps []runtimebed.Point) []exponentJSON {
	var out []exponentJSON
	for _, s := range runtimebed.Slopes(ps) {
		out = append(out, exponentJSON{Backend: s.Backend, DoF: s.Method, NMin: s.NMin, NMax: s.NMax, Exponent: cli.Num(s.Exponent)})
	}
	return out
}

func writeBenchTable(e *cli.Env, ps []runtimebed.Point, exps []exponentJSON) error {
	tw := tabwriter.NewWriter(e.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "backend\tdof\tn\tseconds\t")
	for _, p := range ps {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%.4f\t\n", p.Backend, p.Method, p.N, p.Seconds)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(e.Stdout)
	for _, x := range exps {
		fmt.Fprintf(e.Stdout, "exponent %-7s %-8s n=%d..%d: %.2f\n", x.Backend, x.DoF, x.NMin, x.NMax, float64(x.Exponent))
	}
	// exact/approx at every n where both ran.
	type key struct {
		b string
		n int
	}
	exact := map[key]float64{}
	for _, p := range ps {
		if p.Method == kpls.DoFExact {
			exact[key{p.Backend, p.N}] = p.Seconds
		}
	}
	for _, p := range ps {
		if t, ok := exact[key{p.Backend, p.N}]; ok && p.Method == kpls.DoFApprox {
			fmt.Fprintf(e.Stdout, "exact/approx %-7s n=%d: %.1f×\n", p.Backend, p.N, t/p.Seconds)
		}
	}
	return nil
}

func writeBenchFiles(dir string, ps []runtimebed.Point) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var b bytes.Buffer
	if err := runtimebed.WriteCSV(&b, ps); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "runtime.csv"), b.Bytes(), 0o644); err != nil {
		return err
	}
	for _, ext := range []string{".png", ".svg"} {
		if err := plots.RuntimeVersusN(filepath.Join(dir, "runtime"+ext), runtimebed.Series(ps)); err != nil {
			return err
		}
	}
	return nil
}
