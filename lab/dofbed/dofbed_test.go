package dofbed

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/kpls-go/kpls/kpls"
)

// TestBed runs a reduced bed (n = 150) and checks the report's claims
// against the exact DoF computed in the same run.
func TestBed(t *testing.T) {
	cases := StandardCases(nil, nil, 150)
	rs, err := Run(context.Background(), cases, 10, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if e := r.MaxRel[kpls.DoFApprox]; !(e <= 0.02) {
			t.Errorf("%s: approx max rel error %.3g", r.Case, e)
		}
		if r.Refused[kpls.DoFApprox] > r.Refused[kpls.DoFLanczos] {
			t.Errorf("%s: approx refused %d values, lanczos %d", r.Case, r.Refused[kpls.DoFApprox], r.Refused[kpls.DoFLanczos])
		}
	}
	// The flat-spectrum case is where the paper's estimate fails.
	var last Result
	for _, r := range rs {
		if strings.HasPrefix(r.Case, "uniform8") {
			last = r
		}
	}
	if e := last.MaxRel[kpls.DoFLanczos]; !(e > 0.5) {
		t.Errorf("%s: lanczos error %.3g; the bed no longer shows slow decay", last.Case, e)
	}
	var buf bytes.Buffer
	if err := WriteReport(&buf, rs); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "uniform8") {
		t.Errorf("report misses a case:\n%s", buf.String())
	}
	buf.Reset()
	if err := WriteCSV(&buf, rs); err != nil || strings.Count(buf.String(), "\n") < 3*len(rs) {
		t.Errorf("csv: %v", err)
	}
}
