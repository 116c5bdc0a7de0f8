package atomicfile

import (
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
)

// ExitInterrupted is the exit status after a signal ended a write.
const ExitInterrupted = 130

// reg holds the temporary files being written. While there are any, the
// package listens for SIGINT and SIGTERM: a signal removes them all and
// ends the process with ExitInterrupted. While there are none it does not
// listen, so that the program's own handling (a first signal cancels the
// work, a second one ends the process) is as it would be without it.
var reg registry

type registry struct {
	sync.Mutex
	live map[string]bool
	ch   chan os.Signal
}

// add lists a temporary file; the registry is locked.
func (r *registry) add(name string) {
	if r.live == nil {
		r.live = map[string]bool{}
	}
	r.live[name] = true
	if r.ch == nil {
		r.ch = make(chan os.Signal, 1)
		signal.Notify(r.ch, os.Interrupt, syscall.SIGTERM)
		go r.watch(r.ch)
	}
}

// remove forgets a temporary file; the registry is locked.
func (r *registry) remove(name string) {
	delete(r.live, name)
	if len(r.live) == 0 && r.ch != nil {
		signal.Stop(r.ch)
		close(r.ch)
		r.ch = nil
	}
}

// watch removes the live temporary files and exits on a signal; one that
// arrives after the last of them was committed is left to the program.
func (r *registry) watch(ch chan os.Signal) {
	for sig := range ch {
		r.Lock()
		if len(r.live) == 0 {
			r.Unlock()
			continue
		}
		for name := range r.live {
			os.Remove(name)
		}
		fmt.Fprintf(os.Stderr, "%s: interrupted (%v): the unfinished output was removed\n", filepath.Base(os.Args[0]), sig)
		os.Exit(ExitInterrupted)
	}
}
