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
	if New(Auto, &b, "kpls") != nil {
		t.Error("auto on a non-terminal shows progress")
	}
}
