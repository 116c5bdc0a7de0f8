package cli

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
	"unicode/utf8"

	"github.com/kpls-go/kpls/internal/simd"
)

// Exit statuses.
const (
	ExitOK          = 0
	ExitError       = 1
	ExitUsage       = 2
	ExitInterrupted = 130
)

// Program is a command made of subcommands.
type Program struct {
	Name     string // as typed, e.g. "kpls"
	About    string // one line after the name in the usage
	Commands []Command
	Notes    string // the usage's last paragraph (input files, exit status, ...)
	// Version, if set, names the command that --version runs.
	Version string
	// Context, if set, wraps the context Main runs the command under (the
	// MPI build attaches its communicator).
	Context func(context.Context) context.Context
	// Setup, if set, adjusts the Env Main runs the command with: the MPI
	// build silences the ranks other than 0 and reads the inputs on rank
	// 0; an interrupt makes reads of standard input return.
	Setup []func(*Env)
}

// Command is one subcommand.
type Command struct {
	Name    string
	Summary string
	Run     func(ctx context.Context, e *Env, args []string) error
}

// Env is what a subcommand reads and writes, and the program's name for
// its messages.
type Env struct {
	Stdout, Stderr io.Writer
	// Stdin is what "-" reads; nil means os.Stdin.
	Stdin io.Reader
	// Open, if set, opens the input files instead of os.Open (the MPI
	// build broadcasts rank 0's bytes), "-" included unless Stdin is set.
	Open func(path string) (io.ReadCloser, error)
	Prog string
}

// Main runs p on the process's arguments and returns the exit status.
// The first SIGINT or SIGTERM cancels the context; a second one ends the
// process even inside work that checks the context rarely.
func Main(p *Program) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	context.AfterFunc(ctx, stop)
	// A KPLS_SIMD the CPU cannot honour is not silent; "kpls version" says
	// which path runs instead.
	if _, err := simd.Requested(); err != nil {
		fmt.Fprintf(os.Stderr, "%s: warning: %v\n", p.Name, err)
	}
	if p.Context != nil {
		ctx = p.Context(ctx)
	}
	e := Env{Stdout: os.Stdout, Stderr: os.Stderr, Stdin: os.Stdin}
	for _, f := range p.Setup {
		f(&e)
	}
	code := p.Run(ctx, os.Args[1:], e)
	stop()
	return code
}

// Run executes the command line args (without the program name) in e and
// returns the exit status. It never panics: a panic anywhere below is
// reported as an internal error.
func (p *Program) Run(ctx context.Context, args []string, e Env) (code int) {
	stdout, stderr := e.Stdout, e.Stderr
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "%s: internal error: %v\n", p.Name, r)
			code = ExitError
		}
	}()
	if len(args) == 0 {
		p.usage(stderr)
		return ExitUsage
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help", "help":
		if name == "help" && len(args) > 1 {
			return p.Run(ctx, []string{args[1], "--help"}, e)
		}
		// The commands only: each command's --help lists its flags.
		p.usage(stdout)
		return ExitOK
	case "-version", "--version":
		if p.Version != "" {
			name = p.Version
		}
	}
	for _, c := range p.Commands {
		if c.Name == name {
			e.Prog = p.Name
			err := c.Run(ctx, &e, args[1:])
			return p.report(ctx, stderr, c.Name, err)
		}
	}
	fmt.Fprintf(stderr, "%s: unknown command %q\n\n", p.Name, name)
	p.usage(stderr)
	return ExitUsage
}

// report prints the error of command name and maps it to an exit status.
func (p *Program) report(ctx context.Context, stderr io.Writer, name string, err error) int {
	var ue *UsageError
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, flag.ErrHelp):
		return ExitOK
	case ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)):
		fmt.Fprintf(stderr, "%s: interrupted\n", p.Name)
		return ExitInterrupted
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "%s: %s\nRun '%s %s --help' for usage.\n", p.Name, clip(ue.msg), p.Name, name)
		return ExitUsage
	case errors.Is(err, ErrFlagParse):
		// The flag package has already printed the problem and the usage.
		return ExitUsage
	}
	fmt.Fprintf(stderr, "%s: %s\n", p.Name, clip(clean(err)))
	return ExitError
}

// maxMessage bounds the bytes of an error message the command prints: a
// message quotes what the input holds (a column's name, a value), and a
// hostile file must not make it print megabytes.
const maxMessage = 2000

// clip cuts msg to maxMessage bytes, on a rune boundary, saying how long
// it was.
func clip(msg string) string {
	if len(msg) <= maxMessage {
		return msg
	}
	cut := maxMessage
	for cut > 0 && !utf8.RuneStart(msg[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… [cut: %d bytes in all]", msg[:cut], len(msg))
}

// clean drops the library's "kpls: " prefixes from an error message, which
// report prints once in front: at the start of the message and after a
// ": " or "; " that ends another part of it. Anywhere else "kpls: " is part
// of a name the message quotes (a file "kin.kpls", a column), which must
// stay as given.
func clean(err error) string {
	const prefix = "kpls: "
	msg := err.Error()
	var b strings.Builder
	for i := 0; i < len(msg); {
		if strings.HasPrefix(msg[i:], prefix) && (i == 0 || strings.HasSuffix(msg[:i], ": ") || strings.HasSuffix(msg[:i], "; ")) {
			i += len(prefix)
			continue
		}
		b.WriteByte(msg[i])
		i++
	}
	return b.String()
}

func (p *Program) usage(w io.Writer) {
	fmt.Fprintf(w, "%s: %s\n\nUsage:\n  %s <command> [flags]\n\nCommands:\n", p.Name, p.About, p.Name)
	width := 8
	for _, c := range p.Commands {
		width = max(width, len(c.Name)+1)
	}
	for _, c := range p.Commands {
		fmt.Fprintf(w, "  %-*s %s\n", width, c.Name, c.Summary)
	}
	fmt.Fprintf(w, "\n%s", p.Notes)
}
