// Package simd holds the hand-written AVX2+FMA (and, for the
// hottest ones, AVX-512) kernels behind kernel-matrix construction and
// the pure-Go BLAS backend.
//
// # Overview
//
//   - ScaledExp, Exp: exp over a slice, 8 lanes per instruction with
//     AVX-512, 4 with AVX2.
//   - SqDist: squared distances from one point to many, points stored
//     feature-major so that eight (AVX-512) or four points share each
//     instruction.
//   - Symv: y = α·A·x + β·y for symmetric A reading one triangle only;
//     Gemv: y = α·A·x + β·y. Both split rows over goroutines for large
//     matrices, since one core cannot saturate memory bandwidth.
//   - Gemm: C = α·A·B + β·C, blocked for L1/L2, reading B once per 32
//     rows of A. GemmNT: C = α·A·Bᵀ + β·C as dot products of rows, twelve
//     kept in registers (AVX-512 or AVX2); for a symmetric B the faster
//     way to form A·B. GemmNTSerial is the same on the calling goroutine,
//     for the tiles of a kernel matrix with many features.
//   - Transpose: a blocked 8×4 transpose, for mirroring tiles of a
//     symmetric matrix.
//   - StreamCopy, StreamFence: copies with non-temporal stores, for
//     writing outputs much larger than the caches.
//   - Sum, CenterRow: a sum, and one row of double centring with its sum
//     of squares, in sixteen lanes at memory speed.
//
// # Kernels and their twins
//
// Each assembly kernel (file *_amd64.s, declared in cpu_amd64.go) has a
// pure-Go twin in a *_generic.go file that is always compiled; the twin is
// the specification. The exported functions run the kernel on the longest
// prefix it handles and the twin on the tail. The Exp, SqDist, Sum and
// CenterRow kernels perform the same operations in the same order as their
// twins and agree with them bit for bit; the matrix–vector kernels sum in
// a different order and agree to rounding.
//
// CPU features are detected once, with golang.org/x/sys/cpu, into the
// package variables useAVX2 and useAVX512 (AVX-512F and VL, used by Exp,
// SqDist, Symv and GemmNT); tests clear them to exercise the AVX2 kernels and the
// twins in the same binary. The AVX-512 Exp and SqDist perform the AVX2
// kernels' operations lane for lane, so their results do not depend on
// which ran; Symv's and GemmNT's sums are split differently and agree to
// rounding. Building with -tags noasm, or for another GOARCH, leaves only
// the twins (cpu_noasm.go).
//
// # Choosing the path
//
// The environment variable KPLS_SIMD (EnvVar), read once at start-up,
// restricts every package in the process to one path: generic (the twins
// only), avx2 (no AVX-512) or avx512; unset or empty means the best the CPU
// has. That is how tests and CI run gram, blas and kpls on each path:
//
//	KPLS_SIMD=generic go test ./internal/gram/... ./blas/... ./kpls/...
//
// A path the CPU or build lacks, or a value naming none, is not honoured
// and not ignored either: the best available path is used, Path reports it
// and Requested returns the value with an error (ErrUnavailablePath,
// ErrUnknownPath). TestRequestedPath fails on such an error, and
// "kpls version" prints the path in use.
//
// # Accuracy of Exp
//
// Range reduction x = n·ln2 + r with a two-part ln 2 and FMA, a degree-13
// Taylor polynomial on |r| ≤ ln2/2, and scaling by two powers of two so that
// subnormal results are rounded once. Against a 160-bit reference the error
// is at most 1 ulp over [−745.2, 709.79], including subnormal results
// (in units of the subnormal spacing); about 5.5 % of results are 1 ulp
// off, against 12.7 % for math.Exp. x < −745.13 and −Inf give 0,
// x > 709.78 and +Inf give +Inf, NaN gives NaN. math.Exp on amd64 is also
// up to 1 ulp off, and returns +Inf for x > 709.436 although exp(x) is
// finite up to 709.78.
//
// # Invariants
//
// Kernels never read or write outside the slices they are given (tests
// surround outputs with NaN guard cells), never allocate except the
// per-goroutine accumulators of a parallel Symv (pooled), and panic only
// on mismatched lengths or shapes.
package simd
