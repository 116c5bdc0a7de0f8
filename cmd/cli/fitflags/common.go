package fitflags

import (
	"io"
	"strings"

	"github.com/kpls-go/kpls/blas"
	"github.com/kpls-go/kpls/cmd/cli"
	"github.com/kpls-go/kpls/cmd/cli/progress"
)

// Common holds the flags most subcommands share.
type Common struct {
	JSON     bool
	Backend  string
	Progress progress.Mode
	Quiet    bool
}

// Register adds --json and --progress, and with withBackend --backend.
func (c *Common) Register(fs *cli.FlagSet, withBackend bool) {
	fs.BoolVar(&c.JSON, "json", false, "write one JSON document to stdout; tables, warnings and progress go to stderr")
	if withBackend {
		fs.StringVar(&c.Backend, "backend", "", "BLAS `backend`: "+strings.Join(blas.Available(), ", ")+"; empty means "+blas.Name(blas.Default())+" (also in an OpenBLAS build, where it measures faster; name openblas to use it)")
	}
	c.Progress = progress.Auto
	fs.Var(&c.Progress, "progress", "progress display on stderr: auto (a bar on a terminal; otherwise, for a job past 5 s, a line every 5 s), on (a line every second off a terminal; a bare --progress means on), off")
	fs.BoolVar(&c.Quiet, "quiet", false, "no progress display (--progress off)")
}

// BLASBackend resolves --backend.
func (c *Common) BLASBackend() (blas.Float64, error) {
	b, err := blas.ByName(c.Backend)
	if err != nil {
		return nil, cli.Usagef("--backend: %v", err)
	}
	return b, nil
}

// Text is where human-readable output goes: stdout, or stderr with --json.
func (c *Common) Text(e *cli.Env) io.Writer {
	if c.JSON {
		return e.Stderr
	}
	return e.Stdout
}

// NewProgress is the --progress display on stderr (nil for none).
func (c *Common) NewProgress(e *cli.Env) *progress.Reporter {
	if c.Quiet {
		return nil
	}
	return progress.New(c.Progress, e.Stderr, e.Prog)
}
