package blas_test

import (
	"slices"
	"testing"

	"github.com/kpls-go/kpls/blas"
	"github.com/kpls-go/kpls/blas/blastest"
)

// TestConformance runs the suite against every backend in this build.
func TestConformance(t *testing.T) {
	for _, name := range blas.Available() {
		t.Run("backend="+name, func(t *testing.T) {
			t.Parallel()
			impl, err := blas.ByName(name)
			if err != nil {
				t.Fatal(err)
			}
			if got := blas.Name(impl); got != name {
				t.Errorf("Name = %q, want %q", got, name)
			}
			blastest.All(t, impl)
		})
	}
}

func TestByName(t *testing.T) {
	if _, err := blas.ByName("nonesuch"); err == nil {
		t.Error("ByName(nonesuch) succeeded")
	}
	def, err := blas.ByName("")
	if err != nil || blas.Name(def) != blas.Name(blas.Default()) {
		t.Errorf("ByName(\"\") = %v, %v; want Default", def, err)
	}
	_, err = blas.OpenBLAS()
	if has := slices.Contains(blas.Available(), "openblas"); has != (err == nil) {
		t.Errorf("Available lists openblas: %v, but OpenBLAS() error: %v", has, err)
	}
	// "go" also in an OpenBLAS build: it is the faster backend (README).
	want := "go"
	if got := blas.Name(blas.Default()); got != want {
		t.Errorf("Default is %q, want %q", got, want)
	}
	if got := blas.Name(blas.Gonum()); got != "gonum" {
		t.Errorf("Name(Gonum()) = %q", got)
	}
}
