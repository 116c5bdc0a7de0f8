package progress

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/kpls-go/kpls/kpls"
)

// Reporter turns kpls.Progress callbacks into one bar over the whole job
// (every width of a selection, every pass over each) with the time left,
// on a terminal, or occasional plain log lines elsewhere.
//
// The library reports per stage: "select" (width i of k starts), then for
// each width "kernel", "fit" and, with --dof exact, "dof", each with its
// own Done/Total; "bands" for predictions. Each width is one unit of the
// job, split between its stages by stageSpan; the estimate of the time
// left extrapolates the rate so far, so it is rough while the first width
// runs and sharpens after.
type Reporter struct {
	mu    sync.Mutex
	w     io.Writer
	prog  string // the program's name, in front of plain lines
	term  bool
	bar   *progressbar.ProgressBar
	start time.Time
	last  time.Time // of the last plain line
	width int       // index of the width being worked on
	of    int       // widths in the job; 1 outside select
	label string
	done  float64       // the largest fraction shown: it never goes back
	every time.Duration // least time between plain lines; the first waits this long with auto
	quiet bool          // auto off a terminal: a heartbeat, nothing in the first interval
	now   func() time.Time
}

// logEvery is the least time between two plain progress lines with
// --progress on; heartbeat with auto when stderr is not a terminal, where
// a job shorter than that prints nothing.
const (
	logEvery  = time.Second
	heartbeat = 5 * time.Second
)

// unit is the bar's resolution per width.
const unit = 1000

// stageSpan is the share of a width's unit each stage runs over: [from, to).
var stageSpan = map[kpls.Stage][2]float64{
	kpls.StageKernel: {0, 0.1},
	kpls.StageCV:     {0.1, 1},
	kpls.StageFit:    {0.1, 0.6},
	kpls.StageDoF:    {0.6, 1},
	kpls.StageBands:  {0, 1},
}

// New returns a reporter for mode writing to w, or nil for off: a bar on
// a terminal; elsewhere plain lines, each second with on, and with auto a
// heartbeat every five seconds from five seconds in (a log then shows a
// long job alive, a short one stays quiet). prog, the program's name,
// starts each plain line.
func New(mode Mode, w io.Writer, prog string) *Reporter {
	if mode == Off {
		return nil
	}
	p := &Reporter{w: w, prog: prog, term: isTerminal(w), every: logEvery, now: time.Now}
	if mode == Auto {
		p.every, p.quiet = heartbeat, true
	}
	return p
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// Callback returns the function for kpls.Resources.Progress (nil for a nil
// reporter, which the library skips).
func (p *Reporter) Callback() func(kpls.Progress) {
	if p == nil {
		return nil
	}
	return p.update
}

func (p *Reporter) update(u kpls.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	if p.start.IsZero() {
		p.start, p.of = now, 1
	}
	if u.Stage == kpls.StageSelect {
		// The stages of width u.Done follow.
		p.width, p.of = u.Done, max(u.Total, 1)
		return
	}
	span, ok := stageSpan[u.Stage]
	if !ok {
		span = [2]float64{0, 1}
	}
	frac := 0.0
	if u.Total > 0 {
		frac = min(1, float64(u.Done)/float64(u.Total))
	}
	within := span[0] + frac*(span[1]-span[0])
	p.label = string(u.Stage)
	if u.Kernel != nil {
		p.label = fmt.Sprintf("%v %s", u.Kernel, u.Stage)
	}
	if p.of > 1 {
		p.label = fmt.Sprintf("%d/%d %s", p.width+1, p.of, p.label)
	}
	// The stages' spans are estimates, and a selection's widths can grow:
	// the fraction shown never goes back.
	p.done = max(p.done, (float64(p.width)+within)/float64(p.of))
	p.show(now, p.done)
}

// show draws the bar at the job fraction done, or logs a line (the first,
// then at most one per logEvery).
func (p *Reporter) show(now time.Time, done float64) {
	if p.term {
		if p.bar == nil {
			p.bar = progressbar.NewOptions64(int64(p.of*unit),
				progressbar.OptionSetWriter(p.w),
				progressbar.OptionSetWidth(30),
				progressbar.OptionSetPredictTime(true),
				progressbar.OptionShowElapsedTimeOnFinish(),
				progressbar.OptionThrottle(100*time.Millisecond),
				progressbar.OptionClearOnFinish(),
				progressbar.OptionSetRenderBlankState(true),
			)
		}
		if p.bar.GetMax64() != int64(p.of*unit) {
			p.bar.ChangeMax64(int64(p.of * unit))
		}
		p.bar.Describe(fmt.Sprintf("%-28s", p.label))
		p.bar.Set64(int64(done * float64(p.of*unit)))
		return
	}
	switch {
	case p.last.IsZero() && p.quiet && now.Sub(p.start) < p.every:
		return
	case !p.last.IsZero() && now.Sub(p.last) < p.every:
		return
	}
	p.last = now
	el := now.Sub(p.start)
	left := "?"
	if done > 0.01 && el > time.Second {
		left = (time.Duration(float64(el) * (1 - done) / done)).Round(time.Second).String()
	}
	fmt.Fprintf(p.w, "%s: %6.1fs  %-28s %3.0f %% of the job, about %s left\n", p.prog, el.Seconds(), p.label, 100*done, left)
}

// Done ends the job: the bar is cleared so that what follows starts on a
// clean line, and the next update starts a new job.
func (p *Reporter) Done() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		p.bar.Finish()
		p.bar.Exit()
	}
	p.bar, p.start, p.last, p.width, p.of, p.label, p.done = nil, time.Time{}, time.Time{}, 0, 0, "", 0
}
