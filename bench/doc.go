// Package bench holds the benchmarks of the performance engine: kernel
// (Gram) matrix construction, the symmetric matrix–vector product that
// dominates each KPLS component, the block products of the DoF and bands,
// with the memory read bandwidth they are limited by, and whole fits. It
// has no non-test code. `kpls-lab bench` runs the paper's runtime
// experiment; lab/ holds the accuracy studies and evaluation harnesses.
//
// Run, for example:
//
//	go test -run '^$' -bench . -count 5 ./bench/ | tee new.txt
//	benchstat new.txt
//
// Add -tags openblas (with CGO_LDFLAGS=-lopenblas) to include the OpenBLAS
// backend. Sub-benchmarks are named key=value (impl=tiled/n=8192/d=8,
// backend=go/n=8192) so benchstat can group them.
//
// # What limits each benchmark
//
//   - BenchmarkReadBandwidth sums an n×n float64 matrix: the rate at which
//     this machine can stream memory, on one goroutine and on GOMAXPROCS.
//   - BenchmarkSymv and BenchmarkGemv are memory-bandwidth bound for
//     matrices larger than the caches: their MB/s (bytes actually read:
//     one triangle for Dsymv, the whole matrix for Dgemv) should approach
//     the parallel read bandwidth.
//   - BenchmarkGemm is A·K for a 17-row A (one step of the approximate
//     DoF: 16 probes and y) and a 128-row A (a block of points for the
//     confidence bands), both compute bound, in GFMA/s; op=NT passes the
//     symmetric K transposed, as kpls does, which the "go" backend turns
//     into register-blocked dot products of rows.
//   - BenchmarkFit times a fit with M = 30 components and no DoF against
//     m ≤ 10 with the lanczos and approx DoF from 30 Lanczos steps;
//     BenchmarkExactVersusApprox the cubic exact DoF against them;
//     BenchmarkBands predictions with and without 98 % bands.
//   - BenchmarkGram computes n(n−1)/2 exponentials and writes n² values:
//     compute (distances, exp, transposes) and the write of K add up,
//     roughly two thirds and one third at n = 8192, d = 8. BenchmarkExp
//     gives the exp throughput of one core on data in L1, and
//     BenchmarkRBFCross the same construction without symmetry.
//   - BenchmarkCenter reads K twice and writes it once: bandwidth bound.
//   - BenchmarkSelect is `kpls select`'s default search on kin8nm
//     (kpls.Select averaging within DefaultAverageWithin), with its
//     passes over a kernel matrix and the peak RSS; the protein select
//     (minutes) is `kpls-lab scale --only protein-default`. The CV step
//     against a single fit's step is kpls's BenchmarkCVStep (it needs the
//     package's internals).
package bench
