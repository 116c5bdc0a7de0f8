package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/kpls-go/kpls/cmd/cli"
)

// interruptGrace is how long the command may take to stop after the
// first SIGINT or SIGTERM cancels its context before the process exits
// with status 130 anyway: a read blocked on a pipe or a slow file, or
// work that checks the context rarely, cannot keep it alive. A second
// signal exits at once.
const interruptGrace = 2 * time.Second

// runCtx is the context the command runs under (cli.Main's, cancelled
// by the first signal), once Main has made it.
var runCtx = context.Background()

// handleInterrupts makes a signal during reading end the process with
// status 130: --data - is read through a reader that returns when the
// context is cancelled, and a watchdog exits 130 when the command has not
// returned interruptGrace after the first signal, or at the second.
// Without it the first signal was ignored while reading (the reader does
// not look at the context) and the second killed the process.
func handleInterrupts() {
	sig := make(chan os.Signal, 2)
	// Registered before cli.Main's signal.NotifyContext and never
	// stopped, so that a second signal comes here instead of killing
	// the process.
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sig
		select {
		case <-sig:
		case <-time.After(interruptGrace):
		}
		fmt.Fprintf(os.Stderr, "%s: interrupted\n", program.Name)
		os.Exit(finish(130))
	}()
	prev := program.Context
	program.Context = func(ctx context.Context) context.Context {
		if prev != nil {
			ctx = prev(ctx)
		}
		runCtx = ctx
		return ctx
	}
	program.Setup = append(program.Setup, func(e *cli.Env) { e.Stdin = &interruptible{r: e.Stdin} })
}

// interruptible reads r in a goroutine, so that a Read blocked on r (a
// pipe with no writer ready) returns runCtx's error when it is cancelled.
type interruptible struct {
	r       io.Reader
	buf     []byte
	res     chan readResult
	pending bool // a read of buf is under way
}

type readResult struct {
	n   int
	err error
}

func (c *interruptible) Read(p []byte) (int, error) {
	ctx := runCtx
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if !c.pending {
		if cap(c.buf) < len(p) {
			c.buf = make([]byte, len(p))
			c.res = make(chan readResult, 1)
		}
		b := c.buf[:len(p)]
		res := c.res
		go func() {
			n, err := c.r.Read(b)
			res <- readResult{n, err}
		}()
		c.pending = true
	}
	select {
	case r := <-c.res:
		c.pending = false
		return copy(p, c.buf[:r.n]), r.err
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}
