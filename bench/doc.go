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
//   - BenchmarkGram computes n(n−1)/2 exponentials and writes n² values:
//     it is bound by exp throughput (reported as exp/s) or by the write
//     bandwidth for K, whichever is slower.
package bench
