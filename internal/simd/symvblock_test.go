package simd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestSymvBlock compares SymvBlock with sums over the full symmetric
// matrix, written out here entry by entry: the lower triangle, which
// SymvBlock must not read, holds NaN, so every product is checked against
// the mirror image of what it read. Strides with padding (also NaN) and
// sizes around the eight-row groups, the column blocks and the parallel
// split are tried, with each alpha and beta.
func TestSymvBlock(t *testing.T) {
	allPaths(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(21, 22))
		for _, n := range []int{0, 1, 3, 8, 9, 15, 17, 33, 263, 530} {
			for _, k := range []int{1, 2, 5, 9} {
				t.Run(fmt.Sprintf("n=%d/k=%d", n, k), func(t *testing.T) {
					symvBlockCase(t, rng, k, n, n+rng.IntN(3), n+rng.IntN(3)+1, n+rng.IntN(2))
				})
			}
		}
	})
}

func symvBlockCase(t *testing.T, rng *rand.Rand, k, n, lda, ldx, ldy int) {
	t.Helper()
	lda, ldx, ldy = max(lda, 1), max(ldx, 1), max(ldy, 1)
	a := randMat(rng, n, n, lda)
	full := make([]float64, n*n) // the symmetric matrix the upper triangle stands for
	for i := range n {
		for j := range n {
			if j >= i {
				full[i*n+j] = a[i*lda+j]
				full[j*n+i] = a[i*lda+j]
			}
		}
		for j := range i {
			a[i*lda+j] = math.NaN()
		}
	}
	x := randMat(rng, k, n, ldx)
	y0 := randMat(rng, k, n, ldy)
	for _, alpha := range scales {
		for _, beta := range scales {
			y := make([]float64, len(y0))
			copy(y, y0)
			if beta == 0 {
				for q := range k {
					for i := range n {
						y[q*ldy+i] = math.NaN() // output only
					}
				}
			}
			SymvBlock(k, n, alpha, a, lda, x, ldx, beta, y, ldy)
			for q := range k {
				for i := range n {
					var s, abs float64
					for j := range n {
						s += full[i*n+j] * x[q*ldx+j]
						abs += math.Abs(full[i*n+j] * x[q*ldx+j])
					}
					want := alpha * s
					if beta != 0 {
						want += beta * y0[q*ldy+i]
					}
					if got := y[q*ldy+i]; !closeTo(got, want, abs+1) {
						t.Fatalf("alpha=%v beta=%v: y[%d][%d] = %v, want %v", alpha, beta, q, i, got, want)
					}
				}
				for i := n; i < ldy && q*ldy+i < len(y); i++ {
					if !math.IsNaN(y[q*ldy+i]) {
						t.Fatalf("padding y[%d][%d] written", q, i)
					}
				}
			}
		}
	}
}

// TestSymvBlockVectorAlone checks that each vector's product does not
// depend on the others in the block, bit for bit: SymvBlock of k vectors
// against SymvBlock of each vector alone, with the vectors paired on the
// AVX-512 path and without pairing. A fit's results (and the bands of
// model files recorded under one build) must not change with how many
// folds, probes or targets share its products.
func TestSymvBlockVectorAlone(t *testing.T) {
	allPaths(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(23, 24))
		for _, n := range []int{17, 530} {
			for _, k := range []int{2, 3, 5} {
				lda := n + 3
				a := randMat(rng, n, n, lda)
				x := randMat(rng, k, n, n)
				for _, pairs := range []bool{true, false} {
					t.Run(fmt.Sprintf("n=%d/k=%d/pairs=%v", n, k, pairs), func(t *testing.T) {
						defer func(p bool) { symvPairs = p }(symvPairs)
						symvPairs = pairs
						y := make([]float64, k*n)
						SymvBlock(k, n, 1, a, lda, x, n, 0, y, n)
						for q := range k {
							alone := make([]float64, n)
							SymvBlock(1, n, 1, a, lda, x[q*n:], n, 0, alone, n)
							for i, v := range alone {
								if y[q*n+i] != v {
									t.Fatalf("vector %d, entry %d: %v in the block, %v alone", q, i, y[q*n+i], v)
								}
							}
						}
					})
				}
			}
		}
	})
}
