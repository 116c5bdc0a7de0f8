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

func TestSinc(t *testing.T) {
	x, y := Sinc(100, 1)
	x2, y2 := Sinc(100, 1)
	var sse float64
	for i := range x {
		if x[i] != x2[i] || y[i] != y2[i] {
			t.Fatal("same seed, different data")
		}
		if math.Abs(x[i]) > math.Pi {
			t.Fatalf("x[%d] = %g outside (−π, π)", i, x[i])
		}
		r := y[i] - math.Sin(x[i])/x[i]
		sse += r * r
	}
	if sd := math.Sqrt(sse / 100); sd < 0.07 || sd > 0.13 {
		t.Errorf("noise sd %.3f, want about 0.1", sd)
	}
	if x3, _ := Sinc(100, 2); x3[0] == x[0] {
		t.Error("different seeds, same data")
	}
}
