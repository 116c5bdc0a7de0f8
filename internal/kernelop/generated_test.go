package kernelop

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestGeneratedKernelsCurrent runs the generator into a temporary
// directory and compares its output with the committed
// symrank4_amd64.{s,go}: a generator changed without `go generate`
// (which once left a wrong broadcast offset in the two-vector AVX-512
// kernel) fails here rather than in a product.
func TestGeneratedKernelsCurrent(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command("go", "run", "./_gen/symrank4.go", "-dir", dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("generator: %v\n%s", err, out)
	}
	for _, name := range []string{"symrank4_amd64.s", "symrank4_amd64.go"} {
		want, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from what _gen/symrank4.go writes: run go generate ./internal/kernelop", name)
		}
	}
}
