package cli

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// UsageError marks a mistake in the command line (exit status 2).
type UsageError struct{ msg string }

func (e *UsageError) Error() string { return e.msg }

// Usagef returns a UsageError with the formatted message.
func Usagef(format string, args ...any) error {
	return &UsageError{msg: fmt.Sprintf(format, args...)}
}

// ErrFlagParse means the flag package rejected the command line; the
// message and usage have been printed.
var ErrFlagParse = errors.New("bad command line")

// FlagSet is a subcommand's flags with its synopsis and description.
type FlagSet struct {
	*flag.FlagSet
	synopsis string
	about    string
}

// NewFlagSet returns the flags of the subcommand name (with its parent's,
// as in "panel gen", where it has one). synopsis follows the name in the
// usage line, about is the paragraph after it.
func NewFlagSet(name, synopsis, about string) *FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // Parse prints usage itself, to the right stream
	return &FlagSet{FlagSet: fs, synopsis: synopsis, about: about}
}

// Parse parses args; it replaces flag.FlagSet's Parse so that every
// subcommand reports alike. --help prints the usage to stdout and returns
// flag.ErrHelp; a bad flag prints the error and usage to stderr and
// returns ErrFlagParse; a stray argument is a UsageError.
func (fs *FlagSet) Parse(e *Env, args []string) error {
	err := fs.FlagSet.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fs.usage(e.Stdout, e.Prog)
		return err
	case err != nil:
		fmt.Fprintf(e.Stderr, "%s %s: %v\n\n", e.Prog, fs.Name(), err)
		fs.usage(e.Stderr, e.Prog)
		return ErrFlagParse
	case fs.NArg() > 0:
		return Usagef("%s: unexpected argument %q (flags start with --)", fs.Name(), fs.Arg(0))
	}
	return nil
}

// usage lists every flag with its default, also when the default is the
// zero value (which flag.PrintDefaults leaves out).
func (fs *FlagSet) usage(w io.Writer, prog string) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "Usage: %s %s %s\n\n%s\n\nFlags:\n", prog, fs.Name(), fs.synopsis, fs.about)
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

// IsSet reports whether the flag called name was given on the command line.
func (fs *FlagSet) IsSet(name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == name {
			set = true
		}
	})
	return set
}
