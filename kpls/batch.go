package kpls

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/kpls-go/kpls/internal/kernelop"
)

// foldBatch runs the kernel PLS fits of several row subsets in lock-step
// on one centred kernel matrix over all rows: every step is one block
// product K_c·[u₁ … u_k] through the operator seam, whatever the storage,
// instead of a product with each subset's own matrix. A sequence trains
// on its rows T: its residual goes into the block with zeros elsewhere
// (centred over T), and the rows T of the product, centred over T again,
// are the product with its own centred training kernel (the principal
// submatrix of K_c, centred over T: for u that sums to zero over T, the
// full centring's correction is a constant on T, which the second
// centring removes). The product's other rows give the held-out
// predictions (outOfFold). Sequences stop independently, each with its
// reason, and an idle one leaves the block.
type foldBatch struct {
	n    int
	seqs []*foldSeq
}

// foldSeq is one sequence of a foldBatch.
type foldSeq struct {
	target, fold int       // whose response, and which fold of it
	train, test  []int     // rows it trains on and predicts
	yMean        float64   // mean of the training response
	yc           []float64 // centred training response, over train
	kr           *krylov   // in the coordinates of train, as a fit to those rows alone
}

// add sets up one sequence per fold for target t's response y, each to
// run maxSteps steps.
func (b *foldBatch) add(t int, y []float64, folds []foldIndex, maxSteps int) error {
	for f, fi := range folds {
		ytr := make([]float64, len(fi.train))
		for i, r := range fi.train {
			ytr[i] = y[r]
		}
		if isConstant(ytr) {
			return fmt.Errorf("fold %d: %w: every value is %g", f+1, ErrConstantY, ytr[0])
		}
		b.seqs = append(b.seqs, newFoldSeq(t, f, fi.train, fi.test, ytr, maxSteps))
	}
	return nil
}

// addFull sets up target t's fit to all rows, for maxSteps steps: a
// sequence that trains on every row and predicts none (fold −1). It rides
// in the folds' block products, one vector more in a read of the matrix
// they make anyway, and gives the model to all rows at the grid point
// without a build and a pass of its own (selector.keepRide).
func (b *foldBatch) addFull(t int, y []float64, maxSteps int) {
	all := make([]int, b.n)
	for i := range all {
		all[i] = i
	}
	b.seqs = append(b.seqs, newFoldSeq(t, -1, all, nil, slices.Clone(y), maxSteps))
}

// newFoldSeq sets up target t's sequence that trains on the rows train,
// whose responses are ytr (taken, centred), and predicts the rows test.
func newFoldSeq(t, fold int, train, test []int, ytr []float64, maxSteps int) *foldSeq {
	s := &foldSeq{target: t, fold: fold, train: train, test: test}
	var sum float64
	for _, v := range ytr {
		sum += v
	}
	s.yMean = sum / float64(len(ytr))
	for i := range ytr {
		ytr[i] -= s.yMean
	}
	s.yc = ytr
	s.kr = newKrylov(len(train), maxSteps)
	s.kr.rss[0] = dot(s.yc, s.yc)
	if test != nil {
		s.kr.out = newOutOfFold(len(test), maxSteps)
	}
	return s
}

// full returns target t's fit to all rows (addFull), or nil.
func (b *foldBatch) full(t int) *foldSeq {
	for _, s := range b.seqs {
		if s.target == t && s.fold < 0 {
			return s
		}
	}
	return nil
}

// grow makes room for maxSteps steps in the sequences of the targets ts.
func (b *foldBatch) grow(maxSteps int, ts []int) {
	for _, s := range b.seqs {
		if slices.Contains(ts, s.target) {
			s.kr.grow(maxSteps)
		}
	}
}

// run advances every sequence that has steps to go, one block product a
// step, until each has run the steps it has room for or stopped.
func (b *foldBatch) run(ctx context.Context, o *config, op kernelop.Operator, progress func(done, total int)) error {
	bl := o.Backend
	var active []*foldSeq
	states := map[*foldSeq]*stepState{}
	for _, s := range b.seqs {
		if s.kr.steps < s.kr.ld && s.kr.stop.Reason == StopNone {
			active = append(active, s)
			states[s] = s.kr.stepper(op)
		}
	}
	n := b.n
	block := make([]float64, len(active)*n)
	prod := make([]float64, len(active)*n)
	goOn := make([]bool, len(active))
	// The fits to all rows ride along: they never make a pass of their
	// own once the folds have stopped.
	for slices.ContainsFunc(active, func(s *foldSeq) bool { return s.fold >= 0 }) {
		if err := ctx.Err(); err != nil {
			return err
		}
		k := len(active)
		clear(block[:k*n])
		for j, s := range active {
			s.scatter(block[j*n:(j+1)*n], s.kr.residual(s.kr.steps, s.yc))
		}
		if err := op.Mul(ctx, prod[:k*n], block[:k*n], k); err != nil {
			return err
		}
		eachFold(k, func(j int) {
			s := active[j]
			kr := s.kr
			s.gather(kr.ktr[kr.steps*kr.n:(kr.steps+1)*kr.n], prod[j*n:(j+1)*n])
			goOn[j] = kr.absorb(bl, states[s], s.yc) && kr.steps < kr.ld
		})
		next := active[:0]
		for j, s := range active {
			if goOn[j] {
				next = append(next, s)
			}
		}
		active = next
		if progress != nil {
			done := 0
			for _, s := range b.seqs {
				if s.fold >= 0 {
					done += s.kr.steps
				}
			}
			progress(done, b.totalSteps())
		}
	}
	return nil
}

// eachFold calls step(j) for j = 0..k−1, over up to GOMAXPROCS
// goroutines. Each fold's step is its own arithmetic on its own vectors,
// so the results are those of a loop. On small folds the scores'
// Gram–Schmidt and checks cost as much as the block product with K, and
// one goroutine would leave the other cores idle (docs/scale.md).
func eachFold(k int, step func(j int)) {
	w := min(k, runtime.GOMAXPROCS(0))
	if w < 2 {
		for j := range k {
			step(j)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range w {
		wg.Go(func() {
			for j := int(next.Add(1)) - 1; j < k; j = int(next.Add(1)) - 1 {
				step(j)
			}
		})
	}
	wg.Wait()
}

// totalSteps is the folds' steps to go and gone, for progress (the fits
// to all rows that ride along are not counted).
func (b *foldBatch) totalSteps() int {
	t := 0
	for _, s := range b.seqs {
		if s.fold < 0 {
			continue
		}
		if s.kr.stop.Reason == StopNone {
			t += s.kr.ld
		} else {
			t += s.kr.steps
		}
	}
	return t
}

// scatter writes the residual r (over train) into the full-length block
// row u, centred over train, zero elsewhere.
func (s *foldSeq) scatter(u, r []float64) {
	var mean float64
	for _, v := range r {
		mean += v
	}
	mean /= float64(len(r))
	for i, row := range s.train {
		u[row] = r[i] - mean
	}
}

// gather takes the full product p into the sequence's coordinates: its
// training rows centred over them into tt, and its held-out rows, less
// the same mean, as the pending held-out product.
func (s *foldSeq) gather(tt, p []float64) {
	var mean float64
	for _, row := range s.train {
		mean += p[row]
	}
	mean /= float64(len(s.train))
	for i, row := range s.train {
		tt[i] = p[row] - mean
	}
	for i, row := range s.test {
		s.kr.out.pending[i] = p[row] - mean
	}
}

// predictions returns the held-out predictions of m = 0..valid,
// row-major (test rows)×(valid+1).
func (s *foldSeq) predictions(valid int) []float64 {
	rows := len(s.test)
	out := make([]float64, rows*(valid+1))
	for m := 0; m <= valid; m++ {
		yh := s.kr.out.yhat[m*rows : (m+1)*rows]
		for i, v := range yh {
			out[i*(valid+1)+m] = s.yMean + v
		}
	}
	return out
}
