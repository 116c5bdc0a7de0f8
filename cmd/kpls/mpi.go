//go:build mpi

package main

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/kpls-go/kpls/cmd/cli"
	"github.com/kpls-go/kpls/internal/mpi"
)

// With the mpi build tag, every rank runs the command as one process
// would: rank 0 reads the data files (and standard input, which mpirun
// gives to rank 0 alone) and broadcasts their bytes, every
// fit's kernel operator is spread over the ranks (kernelop.NewDistributed),
// and only rank 0 writes output and files. A rank that fails aborts the
// run (MPI_Abort), so that no rank waits forever in a collective.
func init() {
	w, err := mpi.Init()
	if err != nil {
		fmt.Fprintf(os.Stderr, "kpls: %v\n", err)
		os.Exit(1)
	}
	mpiRanks = w.Size()
	primary = w.Rank() == 0
	ranks = w
	var errTail *tail
	if !primary {
		errTail = &tail{}
	}
	broadcast := func(path string) (io.ReadCloser, error) {
		if !primary {
			b, err := w.Bcast(nil, 0)
			if err != nil {
				return nil, err
			}
			return io.NopCloser(bytes.NewReader(b)), nil
		}
		var b []byte
		var err error
		if path == "-" {
			b, err = io.ReadAll(os.Stdin)
		} else {
			b, err = os.ReadFile(path)
		}
		if err != nil {
			w.BcastError(0)
			return nil, err
		}
		if _, err := w.Bcast(b, 0); err != nil {
			return nil, err
		}
		return io.NopCloser(bytes.NewReader(b)), nil
	}
	program.Setup = append(program.Setup, func(e *cli.Env) {
		if !primary {
			e.Stdout, e.Stderr = io.Discard, errTail
		}
		e.Open = broadcast
		e.Stdin = &firstRead{open: func() (io.Reader, error) { return broadcast("-") }}
	})
	finish = func(code int) int {
		if code != 0 {
			if errTail != nil && errTail.Len() > 0 {
				fmt.Fprintf(os.Stderr, "kpls: rank %d of %d: %s", w.Rank(), w.Size(), errTail.String())
			}
			w.Abort(code)
			return code
		}
		if err := w.Finalize(); err != nil {
			fmt.Fprintf(os.Stderr, "kpls: rank %d: %v\n", w.Rank(), err)
			return 1
		}
		return 0
	}
}

// firstRead is a reader that opens its source at the first Read: --data -
// reaches every rank by a broadcast when the command reads it, at the same
// point on every rank.
type firstRead struct {
	open func() (io.Reader, error)
	r    io.Reader
	err  error
}

func (f *firstRead) Read(p []byte) (int, error) {
	if f.r == nil && f.err == nil {
		f.r, f.err = f.open()
	}
	if f.err != nil {
		return 0, f.err
	}
	return f.r.Read(p)
}

// tail keeps the last few kilobytes written to a silenced rank's stderr,
// which it prints if the rank fails.
type tail struct{ bytes.Buffer }

func (t *tail) Write(p []byte) (int, error) {
	t.Buffer.Write(p)
	if t.Len() > 8<<10 {
		t.Next(t.Len() - 4<<10)
	}
	return len(p), nil
}
