// Command kpls fits, selects and applies Kernel PLS regression models from
// CSV files, with the quadratic-time degrees of freedom and confidence
// bands of Krämer, Sugiyama and Braun (AISTATS 2009).
//
//	kpls demo                                  built-in kin8nm and sinc examples
//	kpls fit --data F.csv [--model OUT]        fit one kernel, table per component
//	kpls select --data F.csv [--widths ...]    choose width and components
//	kpls predict --model M --data F.csv        predictions with confidence bands
//	kpls eval --data F.csv [--splits S]        held-out error of each selection method
//	kpls dof --compare [--out DIR]             exact versus lanczos versus approx DoF
//	kpls bench [--out DIR]                     the paper's runtime experiment
//	kpls plot [--out DIR]                      the paper's figures
//	kpls version                               versions and BLAS backends
//
// Every subcommand takes --json for one machine-readable document on
// stdout (docs/design.md §6); tables, warnings and progress then go to stderr.
// Exit status: 0 on success, 1 on errors, 2 on usage errors, 130 when
// interrupted.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/kpls-go/kpls/internal/simd"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// After the first signal the default handling returns, so that a second
	// Ctrl-C ends the program even inside work that checks ctx rarely.
	context.AfterFunc(ctx, stop)
	// A KPLS_SIMD the CPU cannot honour is not silent; "kpls version" says
	// which path runs instead.
	if _, err := simd.Requested(); err != nil {
		fmt.Fprintf(os.Stderr, "kpls: warning: %v\n", err)
	}
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// Exit statuses.
const (
	exitOK          = 0
	exitError       = 1
	exitUsage       = 2
	exitInterrupted = 130
)

// usageError marks a mistake in the command line (exit status 2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// command is one subcommand.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, env *env, args []string) error
}

var commands = []command{
	{"demo", "model selection, fit and confidence bands on built-in data (kin8nm, sinc)", runDemo},
	{"fit", "fit kernel PLS to a CSV file and report every number of components", runFit},
	{"select", "choose the RBF width and number of components by gMDL, AIC or BIC", runSelect},
	{"predict", "predict with a saved model, with confidence bands", runPredict},
	{"eval", "held-out RMSE of each selection method over seeded train/test splits, against the best on the grid", runEval},
	{"dof", "compare exact, lanczos and approx degrees of freedom (--compare: the built-in test bed)", runDoF},
	{"bench", "the paper's runtime experiment: exact versus approximate DoF over n, per backend", runBench},
	{"plot", "draw the paper's figures (DoF, criteria, confidence bands) as PNG and SVG", runPlot},
	{"version", "print the module, Go and BLAS backend versions", runVersion},
}

// env is what a subcommand writes to.
type env struct {
	stdout, stderr io.Writer
}

// run executes the command line args (without the program name) and
// returns the exit status. It never panics: a panic anywhere below is
// reported as an internal error.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "kpls: internal error: %v\n", r)
			code = exitError
		}
	}()
	e := &env{stdout: stdout, stderr: stderr}
	if len(args) == 0 {
		mainUsage(stderr)
		return exitUsage
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help", "help":
		if name == "help" && len(args) > 1 {
			return run(ctx, []string{args[1], "--help"}, stdout, stderr)
		}
		mainUsage(stdout)
		// Then every command's flags with their defaults.
		for _, c := range commands {
			fmt.Fprintf(stdout, "\n%s\n", strings.Repeat("─", 72))
			c.run(ctx, &env{stdout: stdout, stderr: io.Discard}, []string{"--help"})
		}
		return exitOK
	}
	for _, c := range commands {
		if c.name != name {
			continue
		}
		err := c.run(ctx, e, args[1:])
		return report(ctx, stderr, c.name, err)
	}
	fmt.Fprintf(stderr, "kpls: unknown command %q\n\n", name)
	mainUsage(stderr)
	return exitUsage
}

// report prints the error of command name and maps it to an exit status.
func report(ctx context.Context, stderr io.Writer, name string, err error) int {
	var ue *usageError
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	case ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)):
		fmt.Fprintln(stderr, "kpls: interrupted")
		return exitInterrupted
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "kpls: %s\nRun 'kpls %s --help' for usage.\n", ue.msg, name)
		return exitUsage
	case errors.Is(err, errFlagParse):
		// The flag package has already printed the problem and the usage.
		return exitUsage
	}
	fmt.Fprintf(stderr, "kpls: %s\n", clean(err))
	return exitError
}

// clean drops the library's "kpls: " prefixes from an error message, which
// report prints once in front.
func clean(err error) string {
	return strings.ReplaceAll(err.Error(), "kpls: ", "")
}

func mainUsage(w io.Writer) {
	fmt.Fprint(w, `kpls: Kernel PLS regression with quadratic-time degrees of freedom and confidence bands.

Usage:
  kpls <command> [flags]

Commands:
`)
	for _, c := range commands {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, `
Run 'kpls <command> --help' for the flags of a command and their defaults.
Input files are CSV with a header line; by default the last column is the target.
With --json, stdout holds one JSON document only; tables, warnings and progress go to stderr.
Exit status: 0 success, 1 error, 2 usage error, 130 interrupted.
`)
}
