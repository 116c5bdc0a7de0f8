package simd

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

// The kernel paths, from slowest to fastest. Each includes the ones before
// it: the avx512 path runs the AVX2 kernels where no AVX-512 one exists.
const (
	Generic = "generic"
	AVX2    = "avx2"
	AVX512  = "avx512"
)

// EnvVar names the environment variable that chooses the path at start-up:
// one of Generic, AVX2 or AVX512; unset or empty means the best the CPU has.
const EnvVar = "KPLS_SIMD"

var paths = []string{Generic, AVX2, AVX512}

// Errors reported by Requested, wrapped with the value that caused them.
var (
	// ErrUnknownPath: EnvVar names no path; the best available is used.
	ErrUnknownPath = errors.New("unknown SIMD path")
	// ErrUnavailablePath: the CPU or the build lacks the path asked for;
	// the best available (a slower one) is used.
	ErrUnavailablePath = errors.New("SIMD path not available with this CPU and build")
)

// detected is the fastest path the CPU and build can run; requested and
// requestErr record what EnvVar asked for at start-up.
var detected, requested, requestErr = applyEnv()

// applyEnv restricts useAVX2 and useAVX512, set from the CPU's features,
// to the path EnvVar asks for.
func applyEnv() (detected, req string, err error) {
	detected, req = Path(), os.Getenv(EnvVar)
	path, err := choose(req, detected)
	useAVX512 = useAVX512 && path == AVX512
	useAVX2 = useAVX2 && path != Generic
	return detected, req, err
}

// choose returns the path to use when req is asked for and best is the
// fastest the CPU and build can run: req itself when it is known and at
// most best, otherwise best with an error saying why.
func choose(req, best string) (string, error) {
	if req == "" {
		return best, nil
	}
	r, b := rank(req), rank(best)
	switch {
	case r < 0:
		return best, fmt.Errorf("%s=%q: %w (want %s); using %s", EnvVar, req, ErrUnknownPath, strings.Join(paths, ", "), best)
	case r > b:
		return best, fmt.Errorf("%s=%q: %w; using %s", EnvVar, req, ErrUnavailablePath, best)
	}
	return req, nil
}

func rank(path string) int {
	for i, p := range paths {
		if p == path {
			return i
		}
	}
	return -1
}

// Path reports the kernels in use: Generic, AVX2 or AVX512. Tests that
// clear useAVX2 or useAVX512 change it.
func Path() string {
	switch {
	case useAVX512:
		return AVX512
	case useAVX2:
		return AVX2
	}
	return Generic
}

// Available lists the paths this CPU and build can run, slowest first
// (Generic always); any of them can be asked for with EnvVar.
func Available() []string { return paths[: rank(detected)+1 : rank(detected)+1] }

// Requested reports the value of EnvVar at start-up ("" when unset) and,
// when it could not be honoured, an error wrapping ErrUnknownPath or
// ErrUnavailablePath; Path then reports what is used instead.
func Requested() (string, error) { return requested, requestErr }
