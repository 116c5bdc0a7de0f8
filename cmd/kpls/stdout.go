package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/kpls-go/kpls/cmd/cli"
	"github.com/kpls-go/kpls/internal/atomicfile"
)

// Every subcommand writes its standard output through a writer that keeps
// the first write error, so that output that was not written (a full
// disk, a closed pipe) ends in a non-zero exit with a message, also where
// the code that wrote it (fmt.Fprintf into tables) did not look at each
// write's error.
func init() {
	for i := range program.Commands {
		program.Commands[i].Run = checkedStdout(program.Commands[i].Run)
	}
}

// checkedStdout wraps a subcommand's Run: the first error writing to
// stdout becomes its error, unless it failed otherwise first.
func checkedStdout(run func(context.Context, *cli.Env, []string) error) func(context.Context, *cli.Env, []string) error {
	return func(ctx context.Context, e *cli.Env, args []string) error {
		out := atomicfile.NewChecked(e.Stdout)
		checked := *e
		checked.Stdout = out
		err := run(ctx, &checked, args)
		if werr := out.Err(); werr != nil && (err == nil || errors.Is(err, werr) || errors.Is(err, flag.ErrHelp)) {
			return fmt.Errorf("writing standard output: %w", werr)
		}
		return err
	}
}
