package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// testProgram has one subcommand per way a command can end.
func testProgram() *Program {
	cmd := func(name string) Command {
		return Command{Name: name, Summary: "end one way", Run: func(ctx context.Context, e *Env, args []string) error {
			return endAsTold(ctx, NewFlagSet(name, "[--how H]", "Does what --how says."), e, args)
		}}
	}
	return &Program{Name: "prog", About: "a test.", Notes: "Notes.\n", Commands: []Command{cmd("do"), cmd("a-long-name")}, Version: "do"}
}

// endAsTold is every test command: it ends as --how says.
func endAsTold(ctx context.Context, fs *FlagSet, e *Env, args []string) error {
	how := fs.String("how", "ok", "`how` to end: ok, usage, fail, panic or wait")
	if err := fs.Parse(e, args); err != nil {
		return err
	}
	switch *how {
	case "usage":
		return Usagef("--how: %q is not a way", *how)
	case "fail":
		return fmt.Errorf("kpls: the library says no")
	case "panic":
		panic("boom")
	case "wait":
		<-ctx.Done()
		return ctx.Err()
	}
	fmt.Fprintln(e.Stdout, "done")
	return nil
}

func TestRunExitStatuses(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range []struct {
		ctx       context.Context
		args      []string
		code      int
		stdout    string
		stderr    string
		stderrNot string
	}{
		{context.Background(), []string{"do"}, ExitOK, "done", "", ""},
		{context.Background(), []string{"do", "--how", "usage"}, ExitUsage, "", "prog: --how: \"usage\" is not a way\nRun 'prog do --help' for usage.", ""},
		{context.Background(), []string{"do", "--how", "fail"}, ExitError, "", "prog: the library says no\n", "kpls:"},
		{context.Background(), []string{"do", "--how", "panic"}, ExitError, "", "prog: internal error: boom", "goroutine"},
		{cancelled, []string{"do", "--how", "wait"}, ExitInterrupted, "", "prog: interrupted", ""},
		{context.Background(), []string{"do", "--nope"}, ExitUsage, "", "prog do: flag provided but not defined: -nope\n\nUsage: prog do [--how H]", ""},
		{context.Background(), []string{"do", "stray"}, ExitUsage, "", `unexpected argument "stray"`, ""},
		{context.Background(), []string{"do", "--help"}, ExitOK, "Usage: prog do [--how H]\n\nDoes what --how says.\n\nFlags:\n  --how how\n", "", ""},
		{context.Background(), []string{"help", "do"}, ExitOK, "(default ok)", "", ""},
		{context.Background(), []string{"undo"}, ExitUsage, "", "prog: unknown command \"undo\"", ""},
		{context.Background(), nil, ExitUsage, "", "  do           end one way\n  a-long-name  end one way\n\nNotes.\n", ""},
		{context.Background(), []string{"--help"}, ExitOK, "  do           end one way\n  a-long-name  end one way\n", "", ""},
		{context.Background(), []string{"--version"}, ExitOK, "done", "", ""},
	} {
		var out, errb bytes.Buffer
		code := testProgram().Run(c.ctx, c.args, Env{Stdout: &out, Stderr: &errb})
		if code != c.code || !strings.Contains(out.String(), c.stdout) || !strings.Contains(errb.String(), c.stderr) ||
			c.stderrNot != "" && strings.Contains(errb.String(), c.stderrNot) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %d, %q and %q", c.args, code, out.String(), errb.String(), c.code, c.stdout, c.stderr)
		}
	}
}

// TestHelpShort: --help lists the commands, not every command's flags.
func TestHelpShort(t *testing.T) {
	var out bytes.Buffer
	testProgram().Run(context.Background(), []string{"--help"}, Env{Stdout: &out, Stderr: &out})
	if strings.Contains(out.String(), "--how") {
		t.Errorf("--help lists the flags:\n%s", out.String())
	}
}

// TestCleanKeepsNames: only the library's own "kpls: " prefixes go; a
// file name ending in kpls stays as given.
func TestCleanKeepsNames(t *testing.T) {
	for in, want := range map[string]string{
		"kpls: the target is constant":                         "the target is constant",
		"--model trunc.kpls: kpls: not a valid model file":     "--model trunc.kpls: not a valid model file",
		"--model kin.kpls: open kin.kpls: no such file":        "--model kin.kpls: open kin.kpls: no such file",
		"--data x.csv: kpls: bad option; kpls: unknown kernel": "--data x.csv: bad option; unknown kernel",
		"--model mykpls: kpls: kpls: doubled":                  "--model mykpls: doubled",
	} {
		if got := clean(errors.New(in)); got != want {
			t.Errorf("clean(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestOutput(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJSON(&b, []Num{1.5, Num(nanOf()), 0.1}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(strings.Fields(b.String()), ""); got != "[1.5,null,0.1]" {
		t.Errorf("got %s", got)
	}
	for v, want := range map[float64]string{1.0 / 3: "0.3333", 123456.7: "123457", 0.000123456: "0.0001235", 2.5e12: "2.5e+12", nanOf(): "—", 42: "42"} {
		if got := Round(v); got != want {
			t.Errorf("Round(%v) = %q, want %q", v, got, want)
		}
	}
	if Cell(nanOf()) != "—" || Cell(1.0/3) != "0.333333" {
		t.Errorf("Cell: %q, %q", Cell(nanOf()), Cell(1.0/3))
	}
	var ue *UsageError
	if err := fmt.Errorf("wrapped: %w", Usagef("x %d", 1)); !errors.As(err, &ue) || ue.Error() != "x 1" {
		t.Errorf("Usagef: %v", err)
	}
}

func nanOf() float64 {
	zero := 0.0
	return zero / zero
}
