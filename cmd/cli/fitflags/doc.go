// Package fitflags holds the flags the commands that fit models share, and
// what they turn into: kpls.Options (Model: --data, --kernel, --components,
// --dof, --storage, ...), the columns and rows of the input files (Input:
// --features, --drop, --id, --delimiter, --drop-missing, ...; read through
// package dataset), and --json, --backend and --progress (Common).
//
// A flag that cannot be honoured is a usage error (cli.UsageError) that
// names it, never a silent change; an error of the library is returned by
// DataErr with the flag that would change it.
package fitflags
