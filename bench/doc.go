// Package bench holds the benchmarks of the performance engine: kernel
// (Gram) matrix construction and the symmetric matrix–vector product that
// dominates each KPLS component, with the memory read bandwidth they are
// limited by. It has no non-test code.
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
//   - BenchmarkGemm is A·K for a 10-row A (compute bound at 10 FMAs per
//     element of K once K is read only once) and a 256-row A (compute
//     bound), reported in GFMA/s.
//   - BenchmarkGram computes n(n−1)/2 exponentials and writes n² values:
//     compute (distances, exp, transposes) and the write of K add up,
//     roughly two thirds and one third at n = 8192, d = 8. BenchmarkExp
//     gives the exp throughput of one core on data in L1, and
//     BenchmarkRBFCross the same construction without symmetry.
//   - BenchmarkCenter reads K twice and writes it once: bandwidth bound.
package bench
