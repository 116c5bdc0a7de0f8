package main

import (
	"context"
	"fmt"

	"github.com/kpls-go/kpls/cmd/cli"
	"github.com/kpls-go/kpls/lab/paper"
)

func runPlot(ctx context.Context, e *cli.Env, args []string) error {
	fs := cli.NewFlagSet("plot", "[--out DIR]",
		"Recomputes the paper's simulations and draws its figures with gonum/plot, as PNG and SVG:\n"+
			"Figure 1 (sinc, n = 100, widths 0.01, 0.1, 1: DoF and gMDL against m for exact, lanczos and approx),\n"+
			"Figure 3 (n = 40 from ½N(−2,1) + ½N(3,1), widths 0.1 and 1 with 15 and 9 components, 98 % bands),\n"+
			"and gMDL model selection on kin8nm (criterion per width, width × m heat map, observed versus predicted).")
	out := fs.String("out", "kpls-figures", "`directory` for the figures (created if missing)")
	if err := fs.Parse(e, args); err != nil {
		return err
	}
	files, err := paper.Figures(ctx, *out)
	for _, f := range files {
		fmt.Fprintln(e.Stdout, f)
	}
	return err
}
