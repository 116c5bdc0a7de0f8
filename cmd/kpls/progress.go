package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/kpls-go/kpls/kpls"
)

// progress turns kpls.Progress callbacks into a one-line bar on a
// terminal or occasional log lines elsewhere.
type progress struct {
	mu     sync.Mutex
	w      io.Writer
	bar    bool
	start  time.Time
	last   time.Time
	logged bool // a plain line has been written
	drawn  bool
	// of is "i/k: " while Select works on its i-th of k widths.
	of string
}

// logEvery is the least time between two plain progress lines.
const logEvery = time.Second

// newProgress returns a reporter for mode, or nil when nothing is to be
// shown: with auto only a terminal gets a bar.
func newProgress(mode progressMode, w io.Writer) *progress {
	term := isTerminal(w)
	switch {
	case mode == "off", mode == "auto" && !term:
		return nil
	}
	return &progress{w: w, bar: term, start: time.Now()}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// callback returns the function for kpls.Options.Progress (nil for a nil
// reporter, which the library skips).
func (p *progress) callback() func(kpls.Progress) {
	if p == nil {
		return nil
	}
	return p.update
}

func (p *progress) update(u kpls.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if u.Stage == "select" {
		p.of = fmt.Sprintf("%d/%d ", u.Done+1, u.Total)
		return
	}
	label := u.Stage
	if u.Width > 0 {
		label = fmt.Sprintf("%swidth %.4g %s", p.of, u.Width, u.Stage)
	}
	if p.bar {
		if now.Sub(p.last) < 50*time.Millisecond && u.Done != u.Total {
			return
		}
		p.last = now
		const cells = 30
		frac := 0.0
		if u.Total > 0 {
			frac = min(1, float64(u.Done)/float64(u.Total))
		}
		full := int(frac * cells)
		fmt.Fprintf(p.w, "\r\033[K%-28s [%s%s] %3.0f%%  %s", label, strings.Repeat("#", full), strings.Repeat(".", cells-full), 100*frac, now.Sub(p.start).Round(100*time.Millisecond))
		p.drawn = true
		return
	}
	if p.logged && now.Sub(p.last) < logEvery {
		return
	}
	p.logged, p.last = true, now
	fmt.Fprintf(p.w, "kpls: %6.1fs  %s %d/%d\n", now.Sub(p.start).Seconds(), label, u.Done, u.Total)
}

// done clears the bar so that what follows starts on a clean line.
func (p *progress) done() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
		p.drawn = false
	}
	p.of = ""
}
