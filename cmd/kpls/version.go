package main

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/kpls-go/kpls/blas"
	"github.com/kpls-go/kpls/internal/simd"
	"github.com/kpls-go/kpls/kpls"
)

type versionJSON struct {
	Module     string   `json:"module"`
	Version    string   `json:"version"`
	Go         string   `json:"go"`
	Platform   string   `json:"platform"`
	CPUs       int      `json:"cpus"`
	Backend    string   `json:"backend"`
	Backends   []string `json:"backends"`
	VCS        string   `json:"vcs_revision,omitempty"`
	VCSDirty   bool     `json:"vcs_modified,omitempty"`
	ModelFiles string   `json:"model_files"`
	SIMD       string   `json:"simd"`
	SIMDPaths  []string `json:"simd_paths"`
	SIMDEnv    string   `json:"simd_env,omitempty"`
	SIMDError  string   `json:"simd_error,omitempty"`
}

func runVersion(_ context.Context, e *env, args []string) error {
	fs := newFlagSet("version", "[--json]", "Prints the module version, the Go version, the BLAS backends of this build and the SIMD path in use (chosen with "+simd.EnvVar+").")
	asJSON := fs.Bool("json", false, "write one JSON document to stdout")
	if err := fs.parse(e, args); err != nil {
		return err
	}
	v := versionJSON{Module: "github.com/kpls-go/kpls", Version: "(unknown)", Go: runtime.Version(),
		Platform: runtime.GOOS + "/" + runtime.GOARCH, CPUs: runtime.GOMAXPROCS(0),
		Backend: blas.Name(blas.Default()), Backends: blas.Available(), ModelFiles: fmt.Sprintf("%s version %d", kpls.FormatName, kpls.FormatVersion)}
	v.SIMD, v.SIMDPaths = simd.Path(), simd.Available()
	var simdErr error
	if v.SIMDEnv, simdErr = simd.Requested(); simdErr != nil {
		v.SIMDError = simdErr.Error()
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		v.Module, v.Version = bi.Main.Path, bi.Main.Version
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				v.VCS = s.Value
			case "vcs.modified":
				v.VCSDirty = s.Value == "true"
			}
		}
	}
	if *asJSON {
		return writeJSON(e.stdout, v)
	}
	w := e.stdout
	fmt.Fprintf(w, "kpls     %s %s\n", v.Module, v.Version)
	if v.VCS != "" {
		dirty := ""
		if v.VCSDirty {
			dirty = " (modified)"
		}
		fmt.Fprintf(w, "commit   %s%s\n", v.VCS, dirty)
	}
	fmt.Fprintf(w, "go       %s %s, GOMAXPROCS %d\n", v.Go, v.Platform, v.CPUs)
	fmt.Fprintf(w, "blas     %s (default); available: %s\n", v.Backend, strings.Join(v.Backends, ", "))
	fmt.Fprintf(w, "simd     %s; available: %s", v.SIMD, strings.Join(v.SIMDPaths, ", "))
	switch {
	case v.SIMDError != "":
		fmt.Fprintf(w, "; %s\n", v.SIMDError)
	case v.SIMDEnv != "":
		fmt.Fprintf(w, " (%s=%s)\n", simd.EnvVar, v.SIMDEnv)
	default:
		fmt.Fprintf(w, "\n")
	}
	return nil
}
