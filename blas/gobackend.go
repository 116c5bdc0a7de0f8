package blas

import (
	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"

	"github.com/kpls-go/kpls/internal/simd"
)

// goBackend is gonum's implementation with the two level-2 routines that
// dominate a KPLS fit replaced by the SIMD kernels of internal/simd. Calls
// the kernels do not cover (strides other than 1, transposes, empty or
// malformed arguments) go to gonum, which also raises gonum's panics.
type goBackend struct{ gonum.Implementation }

func (goBackend) Name() string { return "go" }

// SymmReadsTriangleOnce marks the go backend as a OnePassSymm.
func (goBackend) SymmReadsTriangleOnce() {}

// Dsymv computes y = alpha·A·x + beta·y for symmetric A, reading only the
// ul triangle.
func (b goBackend) Dsymv(ul gblas.Uplo, n int, alpha float64, a []float64, lda int, x []float64, incX int, beta float64, y []float64, incY int) {
	b.DsymvStop(nil, ul, n, alpha, a, lda, x, incX, beta, y, incY)
}

// DsymvStop, DsymmStop and DgemmStop are Dsymv, Dsymm and Dgemm that
// call stop between blocks of rows of the matrix (simd.SymvStop,
// SymvBlockStop, GemmNTStop) and, once it reports true, return false
// with the output unspecified. The products of a context-aware caller
// (the kernel-matrix operators of internal/kernelop, whose interface
// names these methods) stop with the context instead of running to the
// end. Calls that go to gonum run to the end and return true.
func (b goBackend) DsymvStop(stop func() bool, ul gblas.Uplo, n int, alpha float64, a []float64, lda int, x []float64, incX int, beta float64, y []float64, incY int) bool {
	if incX != 1 || incY != 1 || n == 0 || ul != gblas.Upper && ul != gblas.Lower ||
		lda < n || len(a) < lda*(n-1)+n || len(x) < n || len(y) < n {
		b.Implementation.Dsymv(ul, n, alpha, a, lda, x, incX, beta, y, incY)
		return true
	}
	return simd.SymvStop(stop, ul == gblas.Upper, n, alpha, a, lda, x, beta, y)
}

// Dgemv computes y = alpha·op(A)·x + beta·y.
func (b goBackend) Dgemv(tA gblas.Transpose, m, n int, alpha float64, a []float64, lda int, x []float64, incX int, beta float64, y []float64, incY int) {
	if tA != gblas.NoTrans || incX != 1 || incY != 1 || m == 0 || n == 0 ||
		lda < n || len(a) < lda*(m-1)+n || len(x) < n || len(y) < m {
		b.Implementation.Dgemv(tA, m, n, alpha, a, lda, x, incX, beta, y, incY)
		return
	}
	simd.Gemv(m, n, alpha, a, lda, x, beta, y)
}

// Dgemm computes C = alpha·op(A)·op(B) + beta·C. With at least eight
// columns, the products of kpls's recurrences use internal/simd: without
// transposes (K·V, Vᵀ·K) simd.Gemm, AVX2 rank-4 updates blocked for the
// caches that read B from memory once per 32 rows of A; with B transposed
// (V·Kᵀ, which is V·K for the symmetric K) simd.GemmNT, register-blocked
// dot products of rows, faster still. Both are several times faster than
// gonum's SSE2 kernels. Other shapes go to gonum.
func (b goBackend) Dgemm(tA, tB gblas.Transpose, m, n, k int, alpha float64, a []float64, lda int, bm []float64, ldb int, beta float64, c []float64, ldc int) {
	b.DgemmStop(nil, tA, tB, m, n, k, alpha, a, lda, bm, ldb, beta, c, ldc)
}

// DgemmStop is Dgemm that stops with stop (see DsymvStop) where B is
// transposed (simd.GemmNTStop); the other shapes run to the end.
func (b goBackend) DgemmStop(stop func() bool, tA, tB gblas.Transpose, m, n, k int, alpha float64, a []float64, lda int, bm []float64, ldb int, beta float64, c []float64, ldc int) bool {
	if tA != gblas.NoTrans || m == 0 || n < 8 || k == 0 || lda < k || ldc < n ||
		len(a) < lda*(m-1)+k || len(c) < ldc*(m-1)+n {
		b.Implementation.Dgemm(tA, tB, m, n, k, alpha, a, lda, bm, ldb, beta, c, ldc)
		return true
	}
	switch {
	case tB == gblas.NoTrans && ldb >= n && len(bm) >= ldb*(k-1)+n:
		simd.Gemm(m, n, k, alpha, a, lda, bm, ldb, beta, c, ldc)
	case tB == gblas.Trans && ldb >= k && len(bm) >= ldb*(n-1)+k:
		return simd.GemmNTStop(stop, m, n, k, alpha, a, lda, bm, ldb, beta, c, ldc)
	default:
		b.Implementation.Dgemm(tA, tB, m, n, k, alpha, a, lda, bm, ldb, beta, c, ldc)
	}
	return true
}

// Dsymm computes C = alpha·A·B + beta·C (side Left) or alpha·B·A + beta·C
// (Right) for symmetric A. The Right, Upper product is kpls's block of
// Krylov vectors times the kernel matrix (the vectors as the m rows of B):
// simd.SymvBlock, which reads the upper triangle once for all m vectors,
// where gonum's Dsymm reads it once per vector. Other shapes go to gonum.
func (b goBackend) Dsymm(s gblas.Side, ul gblas.Uplo, m, n int, alpha float64, a []float64, lda int, bm []float64, ldb int, beta float64, c []float64, ldc int) {
	b.DsymmStop(nil, s, ul, m, n, alpha, a, lda, bm, ldb, beta, c, ldc)
}

// DsymmStop is Dsymm that stops with stop (see DsymvStop) on the Right,
// Upper product (simd.SymvBlockStop); the other shapes run to the end.
func (b goBackend) DsymmStop(stop func() bool, s gblas.Side, ul gblas.Uplo, m, n int, alpha float64, a []float64, lda int, bm []float64, ldb int, beta float64, c []float64, ldc int) bool {
	if s != gblas.Right || ul != gblas.Upper || m == 0 || n == 0 || lda < n || ldb < n || ldc < n ||
		len(a) < lda*(n-1)+n || len(bm) < ldb*(m-1)+n || len(c) < ldc*(m-1)+n {
		b.Implementation.Dsymm(s, ul, m, n, alpha, a, lda, bm, ldb, beta, c, ldc)
		return true
	}
	return simd.SymvBlockStop(stop, m, n, alpha, a, lda, bm, ldb, beta, c, ldc)
}
