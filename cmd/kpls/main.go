// Command kpls fits, selects and applies Kernel PLS regression models from
// CSV files, with the quadratic-time degrees of freedom and confidence
// bands of Krämer, Sugiyama and Braun (AISTATS 2009).
//
//	kpls demo                                  built-in kin8nm and sinc examples
//	kpls fit --data F.csv [--model OUT]        fit one kernel, table per component
//	kpls select --data F.csv [--widths ...]    choose width and components
//	kpls predict --model M --data F.csv        predictions with confidence bands
//	kpls inspect MODEL                         a model file's header
//	kpls version                               versions and BLAS backends
//
// Every subcommand takes --json for one machine-readable document on
// stdout (docs/design.md §6); tables, warnings and progress then go to stderr.
// Exit status: 0 on success, 1 on errors, 2 on usage errors, 130 when
// interrupted. The research commands (held-out evaluation, the DoF test
// bed, the runtime experiment, the paper's figures) are kpls-lab's
// (lab/cmd/kpls-lab).
//
// Each subcommand has one shape: its flags are parsed into a checked
// configuration, the configuration runs, and the result is rendered as
// text or JSON.
package main

import (
	"context"
	"os"
	"runtime/debug"

	"github.com/kpls-go/kpls/cmd/cli"
	"github.com/kpls-go/kpls/kpls"
)

var program = cli.Program{
	Name:  "kpls",
	About: "Kernel PLS regression with quadratic-time degrees of freedom and confidence bands.",
	Commands: []cli.Command{
		{Name: "demo", Summary: "model selection, fit and confidence bands on built-in data (kin8nm, sinc)", Run: runDemo},
		{Name: "fit", Summary: "fit kernel PLS to a CSV file and report every number of components", Run: shaped(parseFitFlags)},
		{Name: "select", Summary: "choose the kernel, width and number of components (cross-validation, or GCV, BIC, AIC or gMDL)", Run: shaped(parseSelectFlags)},
		{Name: "predict", Summary: "predict with a saved model, with confidence bands", Run: shaped(parsePredictFlags)},
		{Name: "inspect", Summary: "print a model file's header: format, models, kernel, components, choice, arrays", Run: shaped(parseInspectFlags)},
		{Name: "version", Summary: "print the module, Go and BLAS backend versions", Run: runVersion},
	},
	Version: "version",
	Notes: `Run 'kpls <command> --help' for the flags of a command and their defaults;
'kpls --version' is 'kpls version'.
Input files are CSV with a header line; by default the last column is the target.
With --json, stdout holds one JSON document only; tables, warnings and progress go to stderr.
Exit status: 0 success, 1 error, 2 usage error, 130 interrupted.
`,
}

// In an MPI build (mpi.go, the mpi build tag) every rank runs the whole
// command; mpiRanks is their number (0 in the default build), ranks their
// communicator, which every fit takes (kpls.Resources.Comm), primary is
// false on the ranks other than 0, which write no files, and finish ends
// MPI on the way out.
var (
	mpiRanks = 0
	ranks    kpls.Comm
	primary  = true
	finish   = func(code int) int { return code }
)

func main() {
	if os.Getenv("GOGC") == "" {
		// The kernel matrix and the search's vectors are most of the heap
		// and hold no pointers, so a collection costs little; Go's default
		// of 100 lets garbage grow to the size of the live heap, which is
		// gigabytes next to a large kernel matrix (protein's select: 9.3
		// GB peak at 100; docs/scale.md). GOGC set by the user wins.
		debug.SetGCPercent(gcPercent)
	}
	handleInterrupts()
	os.Exit(finish(cli.Main(&program)))
}

// gcPercent is the command's garbage collection target (GOGC) unless the
// environment sets one.
const gcPercent = 25

// command is a subcommand of the one shape: flags → checked config (its
// parse function) → run → render.
type command[R any] interface {
	run(ctx context.Context, e *cli.Env) (R, error)
	render(e *cli.Env, r R) error
}

// shaped makes the cli.Command Run function of a command of that shape.
func shaped[C command[R], R any](parse func(e *cli.Env, args []string) (C, error)) func(context.Context, *cli.Env, []string) error {
	return func(ctx context.Context, e *cli.Env, args []string) error {
		cfg, err := parse(e, args)
		if err != nil {
			return err
		}
		r, err := cfg.run(ctx, e)
		if err != nil {
			return err
		}
		return cfg.render(e, r)
	}
}
