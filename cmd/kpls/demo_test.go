package main

import (
	"strings"
	"testing"
)

// TestCoverageNote: the demo explains prediction intervals that cover
// clearly less than their level when the held-out RMSE is above the
// training σ̂, and says nothing when they reach it or σ̂ was not too
// small.
func TestCoverageNote(t *testing.T) {
	short := testJSON{Level: 0.98, RMSE: 0.0948, PredictionCoverage: 0.95}
	if got := coverageNote(short, 0.0708); !strings.Contains(got, "below nominal") || !strings.Contains(got, "RMSE 0.0948 against 0.0708") || !strings.Contains(got, "not its bias") {
		t.Errorf("short coverage: %q", got)
	}
	for _, c := range []struct {
		t     testJSON
		sigma float64
	}{
		{testJSON{Level: 0.98, RMSE: 0.0948, PredictionCoverage: 0.975}, 0.0708}, // within a point of the level
		{testJSON{Level: 0.98, RMSE: 0.06, PredictionCoverage: 0.95}, 0.0708},    // σ̂ not too small
	} {
		if got := coverageNote(c.t, c.sigma); got != "" {
			t.Errorf("%+v, σ̂ %g: %q, want no note", c.t, c.sigma, got)
		}
	}
}
