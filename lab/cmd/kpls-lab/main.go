// Command kpls-lab runs the research around kpls: held-out evaluation of
// model selection, the DoF test bed, the paper's runtime experiment and
// figures, and the studies of scale and storage. The product command is
// kpls (cmd/kpls); kpls-lab shares its conventions (cmd/cli): flags
// with their defaults in --help, --json, the exit statuses.
//
//	kpls-lab eval --data F.csv [--splits S]        held-out error of each selection method
//	kpls-lab dof --compare [--out DIR]             exact versus lanczos versus approx DoF
//	kpls-lab bench [--out DIR]                     the paper's runtime experiment
//	kpls-lab plot [--out DIR]                      the paper's figures
//	kpls-lab panel gen --out DIR                   the evaluation panel's data and splits (lab/panel)
//	kpls-lab scale [--shared DIR]                  kpls at realistic sizes: time and peak memory (lab/scale)
//	kpls-lab float32acc                            float32 kernel storage against dense (lab/float32acc)
//	kpls-lab oprss [--kind K]                      one kernel operator's peak memory (lab/oprss)
//	kpls-lab relevance gen|run|table               per-feature scales from cheap rules, measured (lab/relevance)
//	kpls-lab screen --data F.csv [--splits S]      the screened search against the full one, held out (lab/screen)
package main

import (
	"os"

	"github.com/kpls-go/kpls/cmd/cli"
	"github.com/kpls-go/kpls/lab/float32acc"
	"github.com/kpls-go/kpls/lab/oprss"
	"github.com/kpls-go/kpls/lab/panel"
	"github.com/kpls-go/kpls/lab/relevance"
	"github.com/kpls-go/kpls/lab/scale"
	"github.com/kpls-go/kpls/lab/screen"
)

var program = cli.Program{
	Name:  "kpls-lab",
	About: "the experiments, test beds and figures behind kpls.",
	Commands: []cli.Command{
		{Name: "eval", Summary: "held-out RMSE of each selection method over seeded train/test splits, against the best on the grid", Run: runEval},
		{Name: "dof", Summary: "compare exact, lanczos and approx degrees of freedom (--compare: the built-in test bed)", Run: runDoF},
		{Name: "bench", Summary: "the paper's runtime experiment: exact versus approximate DoF over n, per backend", Run: runBench},
		{Name: "plot", Summary: "draw the paper's figures (DoF, criteria, confidence bands) as PNG and SVG", Run: runPlot},
		{Name: "panel", Summary: "write the evaluation panel: data sets and train/test splits (panel gen)", Run: panel.Run},
		{Name: "scale", Summary: "run kpls select and fit at realistic sizes in child processes: wall time, peak memory, checks", Run: scale.Run},
		{Name: "float32acc", Summary: "what float32 storage of the kernel matrix does to a fit, against dense float64", Run: float32acc.Run},
		{Name: "relevance", Summary: "per-feature scales (gradient outer product, alignment, ARD GP) against the isotropic select, held out", Run: relevance.Run},
		{Name: "screen", Summary: "the select screened on a sample against the full search: time, passes and held-out RMSE per split", Run: screen.Run},
		{Name: "oprss", Summary: "build one kernel operator: construction time, one product's time, peak memory", Run: oprss.Run},
	},
	Notes: `Run 'kpls-lab <command> --help' for the flags of a command and their defaults.
With --json, stdout holds one JSON document only; tables, warnings and progress go to stderr.
Exit status: 0 success, 1 error, 2 usage error, 130 interrupted.
`,
}

func main() {
	os.Exit(cli.Main(&program))
}
