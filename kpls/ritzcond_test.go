package kpls

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/blas"
	"github.com/kpls-go/kpls/internal/kernelop"
)

// TestRitzCondBound checks the breakdown check's shortcut against an SVD
// of L at every step: L⁻¹, grown a column per step, times L is the
// identity; and the fit stops for the Ritz spread at the first step whose
// (σ_max/σ_min)², from gonum's SVD of L, exceeds ritzCondMax, and at no
// step before (the shortcut returns a bound, never the decision's
// opposite). Kernel matrices with geometric spectra spanning 10⁴ to 10¹⁶
// reach that stop or others first.
func TestRitzCondBound(t *testing.T) {
	bl := blas.Default()
	const n = 120
	var spreadStops int
	for _, span := range []float64{4, 8, 12, 16} {
		for seed := range uint64(3) {
			t.Run(fmt.Sprintf("span=1e%g/seed=%d", span, seed), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(seed, 77))
				k := spectrumMatrix(rng, n, span)
				y := make([]float64, n)
				for i := range y {
					y[i] = rng.NormFloat64()
				}
				kr, err := nipals(context.Background(), bl, kernelop.NewDense(k, n, n, kernelop.Stats{}, bl), y, 60, nil)
				if err != nil {
					t.Fatal(err)
				}
				s := kr.steps
				last := s
				if kr.stop.Reason == StopRitzSpread {
					last = s + 1 // the rejected step's column is in L
					spreadStops++
				}
				for m := 2; m <= last; m++ {
					c := svdCond(kr.lRun, kr.ld, m)
					if over := c > ritzCondMax; over != (m == s+1) {
						t.Fatalf("step %d: SVD gives (σ_max/σ_min)² = %.3g against the limit %g, but the fit ran %d steps (stop %q)", m, c, ritzCondMax, s, kr.stop.Reason)
					}
					for i := range m {
						for j := range m {
							var p float64
							for l := range m {
								p += kr.lInv[i*kr.ld+l] * kr.lRun[l*kr.ld+j]
							}
							want := 0.0
							if i == j {
								want = 1
							}
							if math.Abs(p-want) > 1e-9*math.Sqrt(c) {
								t.Fatalf("step %d: (L⁻¹L)[%d][%d] = %v", m, i, j, p)
							}
						}
					}
				}
			})
		}
	}
	if spreadStops == 0 {
		t.Fatal("no case stopped for the Ritz spread: the decision's SVD path is untested")
	}
}

// spectrumMatrix returns Q diag(λ) Qᵀ for a random orthogonal Q and λ
// spaced geometrically from 1 down to 10^−span.
func spectrumMatrix(rng *rand.Rand, n int, span float64) []float64 {
	g := mat.NewDense(n, n, nil)
	for i := range n {
		for j := range n {
			g.Set(i, j, rng.NormFloat64())
		}
	}
	var qr mat.QR
	qr.Factorize(g)
	var q mat.Dense
	qr.QTo(&q)
	k := make([]float64, n*n)
	for i := range n {
		for j := range n {
			var s float64
			for l := range n {
				s += q.At(i, l) * math.Pow(10, -span*float64(l)/float64(n-1)) * q.At(j, l)
			}
			k[i*n+j] = s
		}
	}
	return k
}

// svdCond is (σ_max/σ_min)² of the leading m×m upper triangle of l.
func svdCond(l []float64, ld, m int) float64 {
	a := mat.NewDense(m, m, nil)
	for i := range m {
		for j := i; j < m; j++ {
			a.Set(i, j, l[i*ld+j])
		}
	}
	var svd mat.SVD
	if !svd.Factorize(a, mat.SVDNone) {
		return math.Inf(1)
	}
	sv := svd.Values(nil)
	r := sv[0] / sv[m-1]
	return r * r
}
