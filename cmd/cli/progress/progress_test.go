package progress

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kpls-go/kpls/kpls"
)

// TestProgressOneJob: the fraction reported runs once from 0 to 100 % over
// all widths of a selection, instead of restarting per width.
func TestProgressOneJob(t *testing.T) {
	var b bytes.Buffer
	p := New(On, &b, "kpls")
	widths := []float64{0.5, 1, 2}
	re := regexp.MustCompile(`(\d+) % of the job, about (\S+) left`)
	last := -1
	for i, w := range widths {
		p.update(kpls.Progress{Stage: kpls.StageSelect, Kernel: kpls.RBF{Width: w}, Done: i, Total: len(widths)})
		for _, st := range []kpls.Stage{kpls.StageKernel, kpls.StageFit, kpls.StageDoF} {
			for d := 0; d <= 4; d++ {
				p.last = time.Time{} // log every update
				p.update(kpls.Progress{Stage: st, Kernel: kpls.RBF{Width: w}, Done: d, Total: 4})
				m := re.FindStringSubmatch(b.String()[strings.LastIndex(strings.TrimSuffix(b.String(), "\n"), "\n")+1:])
				if m == nil {
					t.Fatalf("line without fraction:\n%s", b.String())
				}
				pct, _ := strconv.Atoi(m[1])
				if pct < last {
					t.Fatalf("fraction went back from %d to %d:\n%s", last, pct, b.String())
				}
				last = pct
			}
		}
	}
	if last != 100 || !strings.Contains(b.String(), "3/3 rbf(width=2) dof") {
		t.Errorf("ended at %d %%:\n%s", last, b.String())
	}
	p.Done()
	b.Reset()
	p.update(kpls.Progress{Stage: kpls.StageBands, Done: 1, Total: 2})
	if !strings.Contains(b.String(), "bands") || !strings.Contains(b.String(), " 50 %") {
		t.Errorf("after done a new job starts: %q", b.String())
	}
	if New(Off, &b, "kpls") != nil {
		t.Error("off shows progress")
	}
}

// TestHeartbeat: with auto off a terminal, a job prints nothing in its
// first five seconds, then a line every five seconds naming the kernel,
// with a fraction that never goes back and the time left.
func TestHeartbeat(t *testing.T) {
	var b bytes.Buffer
	p := New(Auto, &b, "kpls")
	clock := time.Unix(1e9, 0)
	p.now = func() time.Time { return clock }
	step := func(d time.Duration, u kpls.Progress) {
		clock = clock.Add(d)
		p.update(u)
	}
	step(0, kpls.Progress{Stage: kpls.StageSelect, Done: 0, Total: 2})
	step(time.Second, kpls.Progress{Stage: kpls.StageFit, Kernel: kpls.Laplacian{Width: 3}, Done: 1, Total: 4})
	if b.Len() != 0 {
		t.Fatalf("a line in the first seconds: %q", b.String())
	}
	step(5*time.Second, kpls.Progress{Stage: kpls.StageFit, Kernel: kpls.Laplacian{Width: 3}, Done: 4, Total: 4})
	// A later stage whose span starts below where the fit ended.
	step(5*time.Second, kpls.Progress{Stage: kpls.StageKernel, Kernel: kpls.Laplacian{Width: 3}, Done: 0, Total: 4})
	step(time.Second, kpls.Progress{Stage: kpls.StageDoF, Kernel: kpls.Laplacian{Width: 3}, Done: 1, Total: 4})
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "laplacian") || !strings.Contains(lines[0], "left") {
		t.Fatalf("want two heartbeat lines naming the kernel:\n%s", b.String())
	}
	re := regexp.MustCompile(`(\d+) % of the job`)
	p0, _ := strconv.Atoi(re.FindStringSubmatch(lines[0])[1])
	p1, _ := strconv.Atoi(re.FindStringSubmatch(lines[1])[1])
	if p1 < p0 {
		t.Errorf("the fraction went back from %d to %d:\n%s", p0, p1, b.String())
	}
}
