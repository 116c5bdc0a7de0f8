package demodata

import (
	"math"
	"testing"
)

func TestKin8nmShape(t *testing.T) {
	x, n, d, y, names := Kin8nm()
	if n != 8192 || d != 8 {
		t.Fatalf("kin8nm is %d×%d, want 8192×8", n, d)
	}
	if len(x) != n*d || len(y) != n || len(names) != d+1 {
		t.Fatalf("len(x) = %d, len(y) = %d, len(names) = %d", len(x), len(y), len(names))
	}
	if names[d] != "y" || names[0] != "theta1" {
		t.Errorf("names = %q", names)
	}
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("x[%d] = %v", i, v)
		}
	}
	// Callers get copies.
	x[0] = 1e300
	if x2, _, _, _, _ := Kin8nm(); x2[0] == 1e300 {
		t.Error("Kin8nm returns shared storage")
	}
}
