package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/cmd/cli"
	"github.com/kpls-go/kpls/cmd/cli/fitflags"
	"github.com/kpls-go/kpls/internal/dataset"
	"github.com/kpls-go/kpls/internal/demodata"
	"github.com/kpls-go/kpls/kpls"
	"github.com/kpls-go/kpls/lab/dofbed"
	"github.com/kpls-go/kpls/plots"
)

// dofCaseJSON is one case of `kpls-lab dof --json`.
type dofCaseJSON struct {
	Case       string                            `json:"case"`
	N          int                               `json:"n"`
	Components int                               `json:"components"`
	DoF        map[kpls.DoFMethod][]cli.Num      `json:"dof"`
	DoFSE      []cli.Num                         `json:"dof_se"`
	MaxRel     map[kpls.DoFMethod]cli.Num        `json:"max_rel_error"`
	MeanRel    map[kpls.DoFMethod]cli.Num        `json:"mean_rel_error"`
	Refused    map[kpls.DoFMethod]int            `json:"refused"`
	Selected   map[kpls.DoFMethod]map[string]int `json:"selected"`
	Seconds    map[kpls.DoFMethod]float64        `json:"seconds"`
}

func runDoF(ctx context.Context, e *cli.Env, args []string) error {
	fs := cli.NewFlagSet("dof", "--compare [flags] | --data F.csv --widths w1,w2 [flags]",
		"Compares the degrees of freedom of the three methods, exact (cubic, the reference), lanczos (the\n"+
			"paper's) and approx (this project's), for m = 1..--components: the maximum and mean relative error\n"+
			"against exact, and whether AIC, BIC and gMDL select the same m. --compare runs the built-in test bed\n"+
			"(sinc n=100 with widths 0.01, 0.1, 1; kin8nm sub-sample of --n rows with widths 0.5…8; 8-D uniform\n"+
			"data with width 0.5; and the regimes: near-identity kernels, one feature, slow and fast decay on\n"+
			"kin8nm's first --n rows, wide data, n = 50), with a per-regime summary of approx's worst error, nulls\n"+
			"and ±2·se coverage over --seeds seeds; --data runs one case per width on a CSV file. The exact DoF is\n"+
			"cubic: about 2·n³·M flops per case. With --out, the report\n"+
			"(dof_compare.md), the values (dof_compare.csv) and plots of DoF against m (dof_*.png and .svg)\n"+
			"are written to that directory.")
	compare := fs.Bool("compare", false, "run the built-in test bed")
	data := fs.String("data", "", "a CSV `file` to compare on instead (header line; last column the target unless --target)")
	target := fs.String("target", "", "target `column` of --data; empty means the last column")
	widths := fs.String("widths", "1", "RBF `widths` for --data, comma-separated (standardised features)")
	n := fs.Int("n", 1000, "rows of the kin8nm and uniform cases of --compare")
	components := fs.Int("components", 40, "compare m = 1..`M`")
	seeds := fs.Int("seeds", 2, "approx `seeds` per case for the coverage of ±2·se")
	out := fs.String("out", "", "write the report, CSV and plots to this `directory`; empty writes no files")
	var c fitflags.Common
	c.Register(fs, false)
	if err := fs.Parse(e, args); err != nil {
		return err
	}
	switch {
	case *compare == (*data != ""):
		return cli.Usagef("dof: give either --compare or --data")
	case *components < 1:
		return cli.Usagef("--components: %d, want at least 1", *components)
	case *seeds < 1:
		return cli.Usagef("--seeds: %d, want at least 1", *seeds)
	case *n < 20 || *n > 8192:
		return cli.Usagef("--n: %d, want 20..8192 (kin8nm has 8192 rows)", *n)
	}
	var cases []dofbed.Case
	if *compare {
		kx, kn, kd, ky, _ := demodata.Kin8nm()
		cases = dofbed.StandardCases(mat.NewDense(kn, kd, kx), ky, *n)
	} else {
		ws, err := fitflags.ParseWidths(*widths)
		if err != nil {
			return err
		}
		t, err := dataset.ReadFile(*data)
		if err != nil {
			return err
		}
		x, y, features, err := t.Split(*target)
		if err != nil {
			return err
		}
		xm := mat.NewDense(t.Rows, len(features), x)
		for _, w := range ws {
			cases = append(cases, dofbed.Case{Name: fmt.Sprintf("%s w=%g", filepath.Base(*data), w), X: xm, Y: y, Opts: kpls.Options{Kernel: kpls.RBF{Width: w}}})
		}
	}
	var logf func(string)
	if c.NewProgress(e) != nil {
		logf = func(name string) { fmt.Fprintf(e.Stderr, "%s: DoF of %s (exact, lanczos, approx)\n", e.Prog, name) }
	}
	if flops := exactFlops(cases, *components); flops > 1e12 {
		fmt.Fprintf(e.Stderr, "%s: the exact DoF (cubic) takes about %.0f s here (%.1g flops at ~10 GFlop/s)\n", e.Prog, flops/10e9, flops)
	}
	rs, err := dofbed.RunSeeds(ctx, cases, *components, *seeds, logf)
	if err != nil {
		if *data != "" {
			return fitflags.DataErr(*data, err)
		}
		return err
	}
	var report bytes.Buffer
	if err := dofbed.WriteReport(&report, rs); err != nil {
		return err
	}
	report.WriteString("\n")
	if err := dofbed.WriteSummary(&report, dofbed.Summarize(cases, rs)); err != nil {
		return err
	}
	if *out != "" {
		files, err := writeDoFFiles(*out, rs, report.Bytes())
		if err != nil {
			return err
		}
		fmt.Fprintf(e.Stderr, "%s: wrote %s\n", e.Prog, strings.Join(files, ", "))
	}
	if c.JSON {
		return cli.WriteJSON(e.Stdout, dofJSON(rs))
	}
	_, err = e.Stdout.Write(report.Bytes())
	return err
}

// exactFlops estimates the work of the exact DoF over the cases: 2·n³·M
// for the forward-mode Jacobian of M components.
func exactFlops(cases []dofbed.Case, components int) float64 {
	var f float64
	for _, c := range cases {
		n := float64(len(c.Y))
		f += 2 * n * n * n * float64(min(components, len(c.Y)-1))
	}
	return f
}

// writeDoFFiles writes the report, the CSV and one DoF-versus-m figure per
// group of cases (the text before " w=" in their names) into dir.
func writeDoFFiles(dir string, rs []dofbed.Result, report []byte) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var files []string
	md := filepath.Join(dir, "dof_compare.md")
	if err := os.WriteFile(md, report, 0o644); err != nil {
		return nil, err
	}
	var csvBuf bytes.Buffer
	if err := dofbed.WriteCSV(&csvBuf, rs); err != nil {
		return nil, err
	}
	csvPath := filepath.Join(dir, "dof_compare.csv")
	if err := os.WriteFile(csvPath, csvBuf.Bytes(), 0o644); err != nil {
		return nil, err
	}
	files = append(files, md, csvPath)
	var order []string
	groups := map[string][]plots.DoFPanel{}
	for _, r := range rs {
		group, w, _ := strings.Cut(r.Case, " w=")
		if _, ok := groups[group]; !ok {
			order = append(order, group)
		}
		groups[group] = append(groups[group], dofPanel(r, group+", width "+w))
	}
	used := map[string]bool{}
	for _, g := range order {
		fields := strings.Fields(g)
		stem := fields[0]
		if used[stem] && len(fields) > 1 {
			stem += "_" + fields[1]
		}
		used[stem] = true
		for _, ext := range []string{".png", ".svg"} {
			p := filepath.Join(dir, "dof_"+fileSafe(stem)+ext)
			if err := plots.DoFVersusM(p, groups[g]); err != nil {
				return files, err
			}
			files = append(files, p)
		}
	}
	return files, nil
}

// dofPanel turns one case into a plot panel with a line per method.
func dofPanel(r dofbed.Result, title string) plots.DoFPanel {
	p := plots.DoFPanel{Title: title}
	for _, meth := range dofbed.Methods {
		st := make([]kpls.Stats, r.Components+1)
		for m := range st {
			st[m] = kpls.Stats{M: m, DoF: r.DoF[meth][m]}
		}
		p.Series = append(p.Series, plots.Series{Label: string(meth), Stats: st})
	}
	return p
}

// fileSafe keeps letters, digits, '-' and '_' of s.
func fileSafe(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			return r
		}
		return '_'
	}, s)
}

func dofJSON(rs []dofbed.Result) []dofCaseJSON {
	nums := func(v []float64) []cli.Num {
		out := make([]cli.Num, len(v))
		for i, x := range v {
			out[i] = cli.Num(x)
		}
		return out
	}
	var out []dofCaseJSON
	for _, r := range rs {
		c := dofCaseJSON{Case: r.Case, N: r.N, Components: r.Components, DoF: map[kpls.DoFMethod][]cli.Num{},
			DoFSE: nums(r.DoFSE[:min(len(r.DoFSE), r.Components+1)]), MaxRel: map[kpls.DoFMethod]cli.Num{}, MeanRel: map[kpls.DoFMethod]cli.Num{},
			Refused: r.Refused, Selected: map[kpls.DoFMethod]map[string]int{}, Seconds: r.Seconds}
		for _, meth := range dofbed.Methods {
			c.DoF[meth] = nums(r.DoF[meth][:r.Components+1])
			sel := map[string]int{}
			for crit, m := range r.Selected[meth] {
				sel[string(crit)] = m
			}
			c.Selected[meth] = sel
		}
		for _, meth := range dofbed.Methods[1:] {
			c.MaxRel[meth], c.MeanRel[meth] = cli.Num(r.MaxRel[meth]), cli.Num(r.MeanRel[meth])
		}
		out = append(out, c)
	}
	return out
}
