package simd

import (
	"math"
	"testing"
)

// guard is the number of NaN cells on each side of a guarded output.
const guard = 8

// guarded returns a slice of n+2·guard NaNs; the output goes in the middle.
func guarded(n int) []float64 {
	s := make([]float64, n+2*guard)
	for i := range s {
		s[i] = math.NaN()
	}
	return s
}

// checkGuards fails if a kernel wrote outside the middle n cells.
func checkGuards(t testing.TB, s []float64, n int) {
	t.Helper()
	for i := range guard {
		if !math.IsNaN(s[i]) || !math.IsNaN(s[guard+n+i]) {
			t.Fatalf("guard cell overwritten (n=%d)", n)
		}
	}
}
