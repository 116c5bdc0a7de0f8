package simd

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

func TestChoose(t *testing.T) {
	for _, c := range []struct {
		req, best, want string
		err             error
	}{
		{"", AVX512, AVX512, nil},
		{"", Generic, Generic, nil},
		{Generic, AVX512, Generic, nil},
		{AVX2, AVX512, AVX2, nil},
		{AVX512, AVX512, AVX512, nil},
		{AVX2, AVX2, AVX2, nil},
		{AVX512, AVX2, AVX2, ErrUnavailablePath},
		{AVX2, Generic, Generic, ErrUnavailablePath},
		{"AVX2", AVX2, AVX2, ErrUnknownPath},
		{"sse", AVX512, AVX512, ErrUnknownPath},
	} {
		got, err := choose(c.req, c.best)
		if got != c.want || !errors.Is(err, c.err) || (err == nil) != (c.err == nil) {
			t.Errorf("choose(%q, %q) = %q, %v; want %q, %v", c.req, c.best, got, err, c.want, c.err)
		}
	}
}

// TestRequestedPath fails when EnvVar asks for a path this process does not
// run, so that a CI run on the wrong path cannot pass unnoticed.
func TestRequestedPath(t *testing.T) {
	req, err := Requested()
	t.Logf("%s=%q: path %s, available %v", EnvVar, req, Path(), Available())
	if err != nil {
		t.Fatal(err)
	}
	if req != "" && Path() != req {
		t.Errorf("%s=%q but Path() = %q", EnvVar, req, Path())
	}
	if req == "" && Path() != Available()[len(Available())-1] {
		t.Errorf("Path() = %q with %s unset; available %v", Path(), EnvVar, Available())
	}
}

const childEnv = "KPLS_SIMD_TEST_CHILD"

// TestEnvChild reports, when run by TestEnvVar, what this process chose.
func TestEnvChild(t *testing.T) {
	if os.Getenv(childEnv) != "1" {
		t.Skip("run by TestEnvVar")
	}
	_, err := Requested()
	fmt.Printf("path=%s unknown=%t unavailable=%t\n", Path(),
		errors.Is(err, ErrUnknownPath), errors.Is(err, ErrUnavailablePath))
}

// TestEnvVar runs this test binary with EnvVar set to each path and to a
// value naming none, and checks what it chose at start-up.
func TestEnvVar(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	best := Available()[len(Available())-1]
	for _, req := range append(slices.Clone(paths), "bogus") {
		want := fmt.Sprintf("path=%s unknown=false unavailable=false", req)
		switch {
		case req == "bogus":
			want = fmt.Sprintf("path=%s unknown=true unavailable=false", best)
		case !slices.Contains(Available(), req):
			want = fmt.Sprintf("path=%s unknown=false unavailable=true", best)
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestEnvChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), EnvVar+"="+req, childEnv+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s=%s: %v\n%s", EnvVar, req, err, out)
		}
		if !strings.Contains(string(out), want+"\n") {
			t.Errorf("%s=%s: want %q in\n%s", EnvVar, req, want, out)
		}
	}
}
