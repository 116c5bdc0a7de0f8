package kernelop

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/kpls-go/kpls/internal/gram"
	"github.com/kpls-go/kpls/internal/localcomm"
)

// TestDistributed checks the operator spread over 1, 2 and 3 ranks (goroutines
// with localcomm) against the plain K_c·V of a kernel matrix written out
// entry by entry, with every rank's product and statistics the same bits,
// matrix-free and with part of each rank's share cached.
func TestDistributed(t *testing.T) {
	const d = 4
	for _, n := range []int{7, 193, 517} {
		rng := rand.New(rand.NewPCG(uint64(n), 3))
		x := make([]float64, n*d)
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		width := 2.0
		kc, mean, grand := naiveCentred(x, n, d, width)
		for _, size := range []int{1, 2, 3} {
			for _, budget := range []int64{0, DenseBytes(n) / 5} {
				t.Run(fmt.Sprintf("n=%d/ranks=%d/budget=%d", n, size, budget), func(t *testing.T) {
					comms := localcomm.New(size)
					ops := make([]Operator, size)
					errs := make([]error, size)
					var wg sync.WaitGroup
					for p := range size {
						wg.Go(func() {
							ops[p], errs[p] = NewDistributed(context.Background(), gram.NewRBFRows(x, n, d, width), budget, nil, comms[p], nil)
						})
					}
					wg.Wait()
					for _, err := range errs {
						if err != nil {
							t.Fatal(err)
						}
					}
					checkDistributedStats(t, ops, kc, mean, grand, n)
					for _, k := range []int{1, 3, 20} {
						v := make([]float64, k*n)
						for i := range v {
							v[i] = rng.NormFloat64()
						}
						dsts := make([][]float64, size)
						for p := range size {
							dsts[p] = make([]float64, k*n)
							wg.Go(func() { errs[p] = ops[p].Mul(context.Background(), dsts[p], v, k) })
						}
						wg.Wait()
						for p := range size {
							if errs[p] != nil {
								t.Fatal(errs[p])
							}
							for i, got := range dsts[p] {
								if math.Float64bits(got) != math.Float64bits(dsts[0][i]) {
									t.Fatalf("k=%d: rank %d entry %d = %v, rank 0 has %v", k, p, i, got, dsts[0][i])
								}
							}
						}
						checkProduct(t, dsts[0], kc, v, n, k, 1e-13)
					}
				})
			}
		}
	}
}

// naiveCentred returns K_c of the RBF kernel exp(−‖x_i − x_j‖²/(2·width))
// as gram.NewRBFRows defines it, from its formula, with the column means
// and grand mean of K.
func naiveCentred(x []float64, n, d int, width float64) (kc, mean []float64, grand float64) {
	k := make([]float64, n*n)
	for i := range n {
		for j := range n {
			var s float64
			for c := range d {
				diff := x[i*d+c] - x[j*d+c]
				s += diff * diff
			}
			k[i*n+j] = math.Exp(-s / (2 * width))
		}
	}
	mean = make([]float64, n)
	for i := range n {
		for j := range n {
			mean[j] += k[i*n+j] / float64(n)
		}
	}
	for _, m := range mean {
		grand += m / float64(n)
	}
	kc = make([]float64, n*n)
	for i := range n {
		for j := range n {
			kc[i*n+j] = k[i*n+j] - mean[i] - mean[j] + grand
		}
	}
	return kc, mean, grand
}

func checkDistributedStats(t *testing.T, ops []Operator, kc, mean []float64, grand float64, n int) {
	t.Helper()
	var trace, frob2 float64
	for i := range n {
		trace += kc[i*n+i]
		for j := range n {
			frob2 += kc[i*n+j] * kc[i*n+j]
		}
	}
	st0 := ops[0].Stats()
	for p, op := range ops {
		st := op.Stats()
		if st.Grand != st0.Grand || st.Trace != st0.Trace || st.Frob2 != st0.Frob2 {
			t.Fatalf("rank %d stats %+v differ from rank 0's", p, st)
		}
		for j, m := range st.ColMean {
			if math.Float64bits(m) != math.Float64bits(st0.ColMean[j]) {
				t.Fatalf("rank %d column mean %d differs from rank 0's", p, j)
			}
		}
	}
	for j := range n {
		if math.Abs(st0.ColMean[j]-mean[j]) > 1e-14 {
			t.Fatalf("column mean %d = %v, want %v", j, st0.ColMean[j], mean[j])
		}
	}
	if math.Abs(st0.Grand-grand) > 1e-14 || math.Abs(st0.Trace-trace) > 1e-12*float64(n) || math.Abs(st0.Frob2-frob2) > 1e-11*frob2 {
		t.Fatalf("grand %v trace %v frob2 %v, want %v %v %v", st0.Grand, st0.Trace, st0.Frob2, grand, trace, frob2)
	}
}

// checkProduct compares dst (k×n) with K·v_q summed entry by entry from
// the n×n matrix kc, to tol times the sum of the terms' magnitudes (plus
// one, for sums that cancel to nothing).
func checkProduct(t *testing.T, dst, kc, v []float64, n, k int, tol float64) {
	t.Helper()
	for q := range k {
		for i := range n {
			var want, scale float64
			for j := range n {
				want += kc[i*n+j] * v[q*n+j]
				scale += math.Abs(kc[i*n+j] * v[q*n+j])
			}
			if diff := math.Abs(dst[q*n+i] - want); diff > tol*(scale+1) {
				t.Fatalf("k=%d vector %d entry %d: %v, want %v", k, q, i, dst[q*n+i], want)
			}
		}
	}
}
