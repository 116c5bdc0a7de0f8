package kernelop

import (
	"context"

	gblas "gonum.org/v1/gonum/blas"

	"github.com/kpls-go/kpls/blas"
	"github.com/kpls-go/kpls/internal/simd"
)

// dense is K_c stored in full, n×n row-major float64, rows ld apart.
type dense struct {
	kc   []float64
	ld   int
	n    int
	st   Stats
	sb   stoppable // the backend, or it wrapped as an unstoppable
	symm bool      // the backend reads the triangle once for a block (blas.OnePassSymm)
}

// NewDense wraps an already centred n×n float64 matrix kc (both triangles,
// rows ld apart, as DenseStride gives; kept, not copied) and its
// statistics, as gram.RBF and gram.CenterStats produce them. Products go
// through bl: Dsymv for one vector; on a blas.OnePassSymm backend ("go")
// and n ≥ symmMinN, Dsymm (the vectors times K_c from the right) for
// blocks of up to symmMaxVectors, reading one triangle once for the block;
// otherwise Dgemm with K_c passed transposed, which the "go" backend does
// as register-blocked dot products of rows.
func NewDense(kc []float64, ld, n int, st Stats, bl blas.Float64) Operator {
	if ld < max(n, 1) || n > 0 && len(kc) < (n-1)*ld+n {
		panic("kernelop: NewDense matrix too short")
	}
	_, symm := bl.(blas.OnePassSymm)
	sb, ok := bl.(stoppable)
	if !ok {
		sb = unstoppable{bl}
	}
	return &dense{kc: kc, ld: ld, n: n, st: st, sb: sb, symm: symm}
}

// DenseStride is the row stride NewDense wants for an n×n matrix: n below
// symmMinN; from there on n rounded up to a multiple of 8 (rows start on
// a cache line when the matrix does) whose count of lines is odd. Eight
// consecutive rows then fall in eight different sets of the first-level
// cache, where with n = 8192 (rows 64 KiB apart) they all fell in one,
// evicting each other while SymvBlock reuses them for every vector: five
// vectors at n = 8192 took 15.6 ms at stride 8192 and 12.2–13.1 ms at
// 8200, 8216, 8328 and 8456 (2026-11-27, AVX-512, prefetching on; medians
// of eight). The padding costs at most 15 entries a row.
func DenseStride(n int) int {
	if n < symmMinN {
		return n
	}
	ld := (n + 7) &^ 7
	if ld/8%2 == 0 {
		ld += 8
	}
	return ld
}

func (d *dense) N() int       { return d.n }
func (d *dense) Kind() Kind   { return KindDense }
func (d *dense) Stats() Stats { return d.st }
func (d *dense) Bytes() int64 { return 8 * (int64(d.n)*int64(d.ld) + int64(len(d.st.ColMean))) }

// symmMaxVectors is the largest block Mul multiplies through Dsymm. With
// the "go" backend, reading the triangle once for the block costs, per
// extra vector, the arithmetic of one pass where Dgemm reads both
// triangles; from some block on, Dgemm's register blocking wins. Where
// depends on the SIMD path, fixed at start-up (simd.SymvBlockMaxVectors):
// 8 on AVX2; 32 on AVX-512, where vectors go through the triangle in
// pairs, and the approximate DoF's blocks of 9 (probes and y_c) and
// cross-validation's folds times targets gain the one read.
var symmMaxVectors = simd.SymvBlockMaxVectors()

// symmMinN is the order from which Mul takes blocks through Dsymm. Below
// it the matrix stays in this machine's 32 MiB L3 between products and
// Dgemm is faster whatever the block: 5 vectors at n = 1030 take 0.39 ms
// through Dgemm against 0.44 through Dsymm, at n = 379 0.08 against
// 0.12. At n = 2048 (a 16 MiB triangle) Dsymm wins, 1.76 against 2.2 ms.
// Keeping Dgemm below also keeps the last bits of the products (and of
// the bands) that older releases gave.
const symmMinN = 2048

// stoppable is a backend whose products can stop part way (the go
// backend): each method calls stop between blocks of rows of the matrix
// and returns false, the output unspecified, once it reports true; a nil
// stop never stops.
type stoppable interface {
	DsymvStop(stop func() bool, ul gblas.Uplo, n int, alpha float64, a []float64, lda int, x []float64, incX int, beta float64, y []float64, incY int) bool
	DsymmStop(stop func() bool, s gblas.Side, ul gblas.Uplo, m, n int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) bool
	DgemmStop(stop func() bool, tA, tB gblas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) bool
}

// unstoppable is any other backend as a stoppable: its products run to
// the end.
type unstoppable struct{ bl blas.Float64 }

func (u unstoppable) DsymvStop(_ func() bool, ul gblas.Uplo, n int, alpha float64, a []float64, lda int, x []float64, incX int, beta float64, y []float64, incY int) bool {
	u.bl.Dsymv(ul, n, alpha, a, lda, x, incX, beta, y, incY)
	return true
}

func (u unstoppable) DsymmStop(_ func() bool, s gblas.Side, ul gblas.Uplo, m, n int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) bool {
	u.bl.Dsymm(s, ul, m, n, alpha, a, lda, b, ldb, beta, c, ldc)
	return true
}

func (u unstoppable) DgemmStop(_ func() bool, tA, tB gblas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) bool {
	u.bl.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
	return true
}

// Mul checks ctx before the product and, on a stoppable backend (the
// go backend), inside it: every goroutine of the product checks before
// each block of 64 rows of the matrix (a millisecond or so at n = 8192),
// so that a cancelled or expired context ends a pass of 40 ms to a
// second (more on a starved machine) within a block, where it used to
// wait for the pass. The checks leave the sums and their order alone: the
// results are those of an unchecked pass, bit for bit. Other backends'
// products are one BLAS call each, checked before only.
func (d *dense) Mul(ctx context.Context, dst, v []float64, k int) error {
	checkMul(d.n, dst, v, k)
	if err := ctx.Err(); err != nil {
		return err
	}
	var stop func() bool
	if ctx.Done() != nil { // nil: it can never be cancelled
		stop = func() bool { return ctx.Err() != nil }
	}
	n, done := d.n, true
	switch {
	case k == 0 || n == 0:
	case k == 1:
		done = d.sb.DsymvStop(stop, gblas.Upper, n, 1, d.kc, d.ld, v, 1, 0, dst, 1)
	case d.symm && k <= symmMaxVectors && n >= symmMinN:
		done = d.sb.DsymmStop(stop, gblas.Right, gblas.Upper, k, n, 1, d.kc, d.ld, v, n, 0, dst, n)
	default:
		done = d.sb.DgemmStop(stop, gblas.NoTrans, gblas.Trans, k, n, n, 1, v, n, d.kc, d.ld, 0, dst, n)
	}
	if !done {
		return ctx.Err()
	}
	return nil
}
