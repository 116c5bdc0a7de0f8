// Package blas is the seam between kpls's algorithms and a BLAS library.
//
// # Overview
//
// Float64 is a narrow interface listing only the routines kpls calls, with
// the signatures of gonum.org/v1/gonum/blas, so that backends plug in
// without adapters. Default returns "go", the fastest backend measured; a
// model can be given another one through its options. The package never
// calls blas64.Use, so a program's own gonum code keeps its backend.
//
// # Backends
//
//   - "go" (PureGo, the default without build tags): gonum's pure-Go
//     implementation whose Dgemv (no transpose, unit strides), Dsymv
//     (unit strides) and Dgemm (A not transposed, n ≥ 8) use the AVX2/FMA
//     kernels of internal/simd, run in parallel over GOMAXPROCS goroutines
//     for large matrices. Dsymv reads only the named triangle, as BLAS
//     requires, so a symmetric n×n matrix costs n²/2 element reads per
//     product; Dgemm reads B once per 32 rows of A, where gonum reads it
//     once per row for a short A, and with B transposed computes dot
//     products of rows, twelve at a time in registers. Dsymm with the
//     symmetric matrix on the right of an upper triangle (a block of
//     vectors times a kernel matrix) reads the triangle once for the whole
//     block, where gonum's reads it once per vector.
//
//   - "gonum" (Gonum): gonum.org/v1/gonum/blas/gonum unchanged.
//
//   - "openblas" (OpenBLAS): gonum.org/v1/netlib/blas/netlib over the
//     system OpenBLAS. It needs cgo and the openblas build tag:
//
//     CGO_ENABLED=1 CGO_LDFLAGS=-lopenblas go build -tags openblas ./...
//
//     With the tag, ByName("openblas") returns it; Default stays "go",
//     which the benchmarks measure as fast or faster for every operation
//     kpls uses. Without the tag OpenBLAS and ByName("openblas") return
//     ErrUnavailable.
//
// Available lists the names ByName accepts in the running binary and Name
// reports a backend's name.
//
// # Threading
//
// The "go" backend and gonum's Dgemm parallelise with goroutines, bounded by
// GOMAXPROCS. OpenBLAS has its own thread pool, sized by the environment
// variable OPENBLAS_NUM_THREADS (or OMP_NUM_THREADS; default: all cores) and
// read once when the library is loaded; it knows nothing about GOMAXPROCS.
// When Go code calls OpenBLAS from several goroutines at once, each call
// starts its full team of OpenBLAS threads, and cores × goroutines threads
// compete for the cores: this oversubscription is often slower than either
// kind of parallelism alone. Set OPENBLAS_NUM_THREADS=1 when calling from many
// goroutines (for example cross-validation folds fitted concurrently), and
// leave it unset when one goroutine makes large calls. Level-2 routines such
// as Dsymv are limited by memory bandwidth, so more threads than memory
// channels rarely help them.
//
// # Invariants
//
// Every backend passes the conformance suite in package blastest, which
// compares each routine with a naive loop on odd sizes, strides, and
// alpha/beta values including 0, with NaN guard cells around outputs.
package blas
