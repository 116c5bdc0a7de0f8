package kernelop

import "context"

// Comm is what an operator spread over several processes needs from them:
// MPI's communicator (internal/mpi), or an in-process one in tests,
// through kpls.Resources.Comm.
// Every rank calls the same methods in the same order (the fit above the
// operator runs the same on every rank).
type Comm interface {
	Rank() int
	Size() int
	// AllreduceSum replaces buf, on every rank, by the element-wise sum
	// of every rank's buf, bit for bit the same on every rank (so that
	// the ranks' fits never diverge).
	AllreduceSum(buf []float64) error
}

// NewDistributed returns K_c as an operator whose work is spread over the
// ranks of comm. The upper triangle's tiles are split into Size runs of
// equal area, one per rank. Each rank computes its run, keeps as many of
// its tiles as budgetBytes allows (hybrid; 0 is matrix-free), and applies
// them to both sides of every product into a full-length partial product.
// One AllreduceSum of the k×n partials ends each Mul, so every rank holds
// the whole product.
//
// A rank computes n²/(2·Size) kernel entries per pass, as a split of the
// rows into blocks would not (a row block cannot use the symmetry without
// the rows of the other ranks), and exchanges one k×n block per pass:
// about 2·8kn bytes in and out per rank with a ring reduction.
// Construction is two passes, with an AllreduceSum of the column sums and
// one of the trace and Frobenius norm. buf is as NewHybrid's.
//
// Unlike the other operators, a distributed one is not for concurrent
// use: every Mul is a collective call, which the ranks must make in the
// same order, so each rank multiplies from one goroutine at a time (kpls
// does; the command is sequential).
func NewDistributed(ctx context.Context, rows Rows, budgetBytes int64, buf []float64, comm Comm, progress Progress) (Operator, error) {
	kind := KindHybrid
	if budgetBytes <= 0 {
		kind = KindMatrixFree
	}
	return newTiled(ctx, rows, budgetBytes, buf, kind, comm, progress)
}
