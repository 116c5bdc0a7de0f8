package main

import (
	"bytes"
	"testing"

	"github.com/kpls-go/kpls/cmd/cli"
	"github.com/kpls-go/kpls/kpls"
)

// TestBandCost: before long bands the command states their cost, 2·Σm·n²
// operations a point (the 10,000-row mean of three: 200 points,
// m = 27, 35 and 30, 2·92·10⁸·200 = 3.68·10¹², a linear member's O(n·d)
// products left out); short ones pass quietly.
func TestBandCost(t *testing.T) {
	var buf bytes.Buffer
	e := &cli.Env{Stderr: &buf, Prog: "kpls"}
	s := kpls.Summary{N: 10000, Members: []kpls.Member{{Choice: kpls.Choice{M: 27}}, {Choice: kpls.Choice{M: 35}}, {Choice: kpls.Choice{M: 30}}, {Kernel: kpls.Linear{}, Choice: kpls.Choice{M: 5}}}}
	bandCost(e, s, 200, true)
	want := "kpls: intervals for 200 points: each of 3 models (m = 27–35) multiplies its 10000×10000 kernel matrix by the points m times, about 3.7e+12 floating-point operations in all; the progress shows the time left\n"
	if buf.String() != want {
		t.Errorf("got %q\nwant %q", buf.String(), want)
	}
	buf.Reset()
	bandCost(e, kpls.Summary{N: 500, Members: []kpls.Member{{Choice: kpls.Choice{M: 10}}}}, 1000, false)
	if buf.Len() != 0 {
		t.Errorf("5·10⁹ operations: got %q, want nothing", buf.String())
	}
}
