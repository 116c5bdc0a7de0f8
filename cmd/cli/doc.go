// Package cli holds the conventions shared by the kpls and kpls-lab
// commands, so that both behave alike: a program of subcommands
// (Program, Command), flag sets that list every default (FlagSet), usage
// errors and the exit statuses they map to, and the pieces of output every
// subcommand writes the same way (WriteJSON, Num, Cell).
//
// # Exit statuses
//
// 0 on success (also after --help), 1 on errors, 2 on usage errors (a bad
// flag, a missing one, a value out of range: UsageError), 130 when
// interrupted. An error is printed once, prefixed with the program's name;
// a panic below a subcommand is reported as an internal error, never as a
// stack trace.
//
// # Output
//
// With --json a subcommand writes one JSON document to stdout and
// everything for people (tables, warnings, progress) to stderr. Numbers
// that may be unknown are Num, written as null when NaN or infinite; in
// tables Cell writes them as "—".
//
// # Place
//
// Package cli and its subpackages fitflags and progress drive the library,
// so they sit on a floor of their own above it, beside the commands under
// cmd/: cmd/kpls, lab/cmd/kpls-lab and the experiments under lab/ import
// them, and they import the library, internal/ and each other, never a
// command or an experiment (internal/layers_test.go). They are not under
// internal/, whose packages the library stands on; Go would let code
// outside the module import them from here, but they are the commands'
// plumbing, not an API, and change with the commands.
package cli
