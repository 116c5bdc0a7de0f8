package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/kpls-go/kpls/blas"
	"github.com/kpls-go/kpls/cmd/cli"
	"github.com/kpls-go/kpls/cmd/cli/fitflags"
	"github.com/kpls-go/kpls/internal/simd"
	"github.com/kpls-go/kpls/kpls"
)

type versionJSON struct {
	Module     string     `json:"module"`
	Version    string     `json:"version"`
	Go         string     `json:"go"`
	Platform   string     `json:"platform"`
	CPUs       int        `json:"cpus"`
	Backend    string     `json:"backend"`
	Backends   []string   `json:"backends"`
	VCS        string     `json:"vcs_revision,omitempty"`
	VCSDirty   bool       `json:"vcs_modified,omitempty"`
	ModelFiles modelFiles `json:"model_files"`
	SIMD       string     `json:"simd"`
	SIMDPaths  []string   `json:"simd_paths"`
	SIMDEnv    string     `json:"simd_env,omitempty"`
	SIMDError  string     `json:"simd_error,omitempty"`
	// MemoryLimit is the default limit for the kernel matrix; DenseUpTo
	// and Float32UpTo the largest n held dense or float32 within it
	// (larger n is hybrid: cached within the limit, the rest recomputed).
	MemoryLimit int64 `json:"memory_limit"`
	DenseUpTo   int   `json:"dense_up_to_n"`
	Float32UpTo int   `json:"float32_up_to_n"`
	// MPIRanks is the number of MPI ranks of this run in an MPI build
	// (scripts/mpi-build.sh), 0 in the default build.
	MPIRanks int `json:"mpi_ranks"`
}

func runVersion(_ context.Context, e *cli.Env, args []string) error {
	fs := cli.NewFlagSet("version", "[--json]", "Prints the module version, the Go version, the BLAS backends of this build and the SIMD path in use (chosen with "+simd.EnvVar+").")
	asJSON := fs.Bool("json", false, "write one JSON document to stdout")
	if err := fs.Parse(e, args); err != nil {
		return err
	}
	v := versionInfo()
	if *asJSON {
		return cli.WriteJSON(e.Stdout, v)
	}
	renderVersion(e.Stdout, v)
	return nil
}

// versionInfo describes this build and machine.
func versionInfo() versionJSON {
	v := versionJSON{Module: "github.com/kpls-go/kpls", Version: "(unknown)", Go: runtime.Version(),
		Platform: runtime.GOOS + "/" + runtime.GOARCH, CPUs: runtime.GOMAXPROCS(0),
		Backend: blas.Name(blas.Default()), Backends: blas.Available(), ModelFiles: modelFilesInfo(), MPIRanks: mpiRanks}
	v.SIMD, v.SIMDPaths = simd.Path(), simd.Available()
	v.MemoryLimit = kpls.Resources{}.Memory()
	v.DenseUpTo = largestN(kpls.StorageDense, v.MemoryLimit)
	v.Float32UpTo = largestN(kpls.StorageFloat32, v.MemoryLimit)
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
	return v
}

// modelFiles are the model-file format versions this build writes and
// reads.
type modelFiles struct {
	Format string `json:"format"`
	Writes int    `json:"writes"`
	// WritesMeans is the version of a file holding a mean of several
	// models (select --average-within).
	WritesMeans int `json:"writes_means"`
	// WritesSelected is the version of a file from select's
	// cross-validation, which records the RMSECV of each choice.
	WritesSelected int `json:"writes_selected"`
	// WritesWeighed is the version of a file whose models weigh their
	// features (the relevances select learns on its screen's sample).
	WritesWeighed int   `json:"writes_weighed"`
	Reads         []int `json:"reads"`
}

// modelFilesInfo: the library writes kpls.FormatVersionPlain,
// kpls.FormatVersionMeans for a mean of models (or weights), and
// kpls.FormatVersionRMSECV for cross-validated choices, kpls.FormatVersion
// for models that weigh their features, and reads every version up to
// that (1–3 as JSON, 4 on as binary).
func modelFilesInfo() modelFiles {
	mf := modelFiles{Format: kpls.FormatName, Writes: kpls.FormatVersionPlain, WritesMeans: kpls.FormatVersionMeans, WritesSelected: kpls.FormatVersionRMSECV, WritesWeighed: kpls.FormatVersion}
	for v := 1; v <= kpls.FormatVersion; v++ {
		mf.Reads = append(mf.Reads, v)
	}
	return mf
}

func renderVersion(w io.Writer, v versionJSON) {
	fmt.Fprintf(w, "kpls     %s %s\n", v.Module, v.Version)
	if v.VCS != "" {
		dirty := ""
		if v.VCSDirty {
			dirty = " (modified)"
		}
		fmt.Fprintf(w, "commit   %s%s\n", v.VCS, dirty)
	}
	fmt.Fprintf(w, "go       %s %s, GOMAXPROCS %d\n", v.Go, v.Platform, v.CPUs)
	if v.MPIRanks > 0 {
		fmt.Fprintf(w, "mpi      %d ranks\n", v.MPIRanks)
	}
	fmt.Fprintf(w, "blas     %s (default); available: %s\n", v.Backend, strings.Join(v.Backends, ", "))
	r := v.ModelFiles.Reads
	fmt.Fprintf(w, "models   %s files: writes version %d (binary; %d for a mean of models, %d from select's cross-validation, %d with feature weights), reads versions %d–%d (1–3 are JSON)\n", v.ModelFiles.Format, v.ModelFiles.Writes, v.ModelFiles.WritesMeans, v.ModelFiles.WritesSelected, v.ModelFiles.WritesWeighed, r[0], r[len(r)-1])
	fmt.Fprintf(w, "memory   kernel matrix limit %s (a quarter of physical memory; --memory-limit): dense up to n = %d, float32 up to n = %d (fits without DoF or with Lanczos DoF), hybrid beyond; the linear kernel as its centred inputs (features) at any n\n",
		fitflags.FormatBytes(v.MemoryLimit), v.DenseUpTo, v.Float32UpTo)
	fmt.Fprintf(w, "simd     %s; available: %s", v.SIMD, strings.Join(v.SIMDPaths, ", "))
	switch {
	case v.SIMDError != "":
		fmt.Fprintf(w, "; %s\n", v.SIMDError)
	case v.SIMDEnv != "":
		fmt.Fprintf(w, " (%s=%s)\n", simd.EnvVar, v.SIMDEnv)
	default:
		fmt.Fprintf(w, "\n")
	}
}

// largestN is the largest n whose kernel matrix in storage s fits in limit.
func largestN(s kpls.Storage, limit int64) int {
	lo, hi := 0, 1<<28 // 8n² stays within int64
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if s.Bytes(mid) <= limit {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}
