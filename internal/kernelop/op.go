package kernelop

import "context"

// Rows computes rows of the uncentred kernel matrix between fixed training
// rows.
type Rows interface {
	N() int
	// Rows fills dst ((r1−r0)×N(), row-major) with K[r0:r1, :]. Safe for
	// concurrent calls on disjoint ranges; serial inside (the operator
	// parallelises).
	Rows(dst []float64, r0, r1 int)
}

// Blocks is a Rows that can also compute any rectangular block of K. The
// operators use it to compute only the upper triangle of the symmetric K,
// which halves the kernel evaluations of every pass.
type Blocks interface {
	Rows
	// Block fills dst ((r1−r0)×(c1−c0), row-major) with K[r0:r1, c0:c1],
	// with the same concurrency contract as Rows.
	Block(dst []float64, r0, r1, c0, c1 int)
}

// Kind names an operator's storage.
type Kind string

// The kinds of operator.
const (
	KindDense      Kind = "dense"
	KindFloat32    Kind = "float32"
	KindMatrixFree Kind = "matrix-free"
	KindHybrid     Kind = "hybrid"
	KindFeatures   Kind = "features" // the linear kernel through its inputs
)

// Operator multiplies blocks of vectors by the centred kernel matrix K_c.
// Mul is safe for concurrent use.
type Operator interface {
	N() int
	Kind() Kind
	// Bytes is the memory the operator holds (what a memory limit is
	// compared with): the stored matrix or cached tiles, and the column
	// means. Per-call scratch of Mul (k×n per goroutine, and one tile) is
	// not included.
	Bytes() int64
	// Mul sets dst = V·K_c for the k vectors stored as the rows of v (k×n
	// row-major, vector i = v[i*n:(i+1)*n]), i.e. row i of dst is K_c·v_i.
	// It checks ctx between tiles or row blocks (cancellation within one
	// pass); on error dst is unspecified.
	Mul(ctx context.Context, dst, v []float64, k int) error
	// Stats returns the statistics of K computed once at construction.
	Stats() Stats
}

// Stats of the kernel matrix: what centring a new point needs (ColMean,
// Grand) and what the DoF need (Trace, Frob2 of K_c).
type Stats struct {
	ColMean []float64 // column means of the uncentred K (length n)
	Grand   float64   // mean of all entries of the uncentred K
	Trace   float64   // trace of K_c
	Frob2   float64   // squared Frobenius norm of K_c

	// StoredTrace and StoredFrob2 are the trace and squared Frobenius
	// norm of the matrix Mul applies when that is not K_c itself (float32
	// storage's rounded entries); zero otherwise. See Applied.
	StoredTrace, StoredFrob2 float64
}

// Applied returns the trace and squared Frobenius norm of the matrix Mul
// applies. Estimators that combine products with known traces (control
// variates) need these: float32's rounding moves them by about 2⁻²⁴ of
// themselves, which is far beyond float64 rounding and can exceed what is
// left of them once the largest eigenvalues are deflated.
func (s Stats) Applied() (trace, frob2 float64) {
	if s.StoredFrob2 != 0 {
		return s.StoredTrace, s.StoredFrob2
	}
	return s.Trace, s.Frob2
}

// Progress, when not nil, is told how many units of construction work are
// done out of total. Calls are serialised and done never decreases; they
// may come from any goroutine.
type Progress func(done, total int)

// checkMul panics on inconsistent Mul arguments, as BLAS does.
func checkMul(n int, dst, v []float64, k int) {
	if k < 0 || len(dst) < k*n || len(v) < k*n {
		panic("kernelop: Mul slice too short")
	}
}
