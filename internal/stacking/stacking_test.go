package stacking

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestWeightsAgainstEnumeration compares Weights with the optimum found
// by trying every support S: on S, the constrained least squares problem
// is an ordinary one after eliminating the last weight (w_last = 1 − Σ
// the others), solved by gonum's QR; the best feasible S wins. Random
// problems, problems whose optimum mixes several columns, and ones with
// a repeated column (where only the objective is unique).
func TestWeightsAgainstEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for c := range 60 {
		n, k := 20+rng.IntN(30), 1+rng.IntN(6)
		p := mat.NewDense(n, k, nil)
		y := make([]float64, n)
		for i := range n {
			y[i] = rng.NormFloat64()
			for j := range k {
				// columns are noisy versions of y, as models' predictions are
				p.Set(i, j, y[i]+(0.3+float64(j)/4)*rng.NormFloat64()+0.2*float64(c%3)*float64(j))
			}
		}
		repeated := k > 2 && c%4 == 0
		if repeated {
			for i := range n {
				p.Set(i, k-1, p.At(i, 0))
			}
		}
		t.Run(fmt.Sprintf("case=%d/k=%d", c, k), func(t *testing.T) {
			w, err := Weights(p, y)
			if err != nil {
				t.Fatal(err)
			}
			var sum float64
			for j, v := range w {
				if v < 0 {
					t.Errorf("w[%d] = %v < 0", j, v)
				}
				sum += v
			}
			if math.Abs(sum-1) > 1e-12 {
				t.Errorf("Σw = %v", sum)
			}
			wantW, wantF := enumerate(p, y)
			gotF := objective(p, y, w)
			if gotF > wantF*(1+1e-9)+1e-12 {
				t.Errorf("objective %v, enumeration %v", gotF, wantF)
			}
			if !repeated {
				for j := range w {
					if math.Abs(w[j]-wantW[j]) > 1e-7 {
						t.Errorf("w = %v, enumeration %v", w, wantW)
						break
					}
				}
			}
		})
	}
}

// TestWeightsShapes: no columns or a response of the wrong length is an
// error; one column gets all the weight.
func TestWeightsShapes(t *testing.T) {
	if _, err := Weights(mat.NewDense(3, 2, nil), []float64{1, 2}); err == nil {
		t.Error("3 rows against 2 responses: no error")
	}
	w, err := Weights(mat.NewDense(3, 1, []float64{1, 2, 3}), []float64{0, 0, 0})
	if err != nil || len(w) != 1 || w[0] != 1 {
		t.Errorf("one column: %v, %v", w, err)
	}
}

func objective(p *mat.Dense, y, w []float64) float64 {
	n, _ := p.Dims()
	var f float64
	for i := range n {
		r := -y[i]
		for j, v := range w {
			r += p.At(i, j) * v
		}
		f += r * r
	}
	return f
}

// enumerate returns the best feasible weights over every support.
func enumerate(p *mat.Dense, y []float64) ([]float64, float64) {
	n, k := p.Dims()
	best, bestF := []float64(nil), math.Inf(1)
	for mask := 1; mask < 1<<k; mask++ {
		var s []int
		for j := range k {
			if mask&(1<<j) != 0 {
				s = append(s, j)
			}
		}
		w := make([]float64, k)
		last := s[len(s)-1]
		if len(s) == 1 {
			w[last] = 1
		} else {
			a := mat.NewDense(n, len(s)-1, nil)
			r := mat.NewVecDense(n, nil)
			for i := range n {
				for l, j := range s[:len(s)-1] {
					a.Set(i, l, p.At(i, j)-p.At(i, last))
				}
				r.SetVec(i, y[i]-p.At(i, last))
			}
			var v mat.VecDense
			if err := v.SolveVec(a, r); err != nil {
				continue
			}
			rest := 1.0
			for l, j := range s[:len(s)-1] {
				w[j] = v.AtVec(l)
				rest -= w[j]
			}
			w[last] = rest
		}
		feasible := true
		for _, v := range w {
			if v < -1e-12 {
				feasible = false
			}
		}
		if f := objective(p, y, w); feasible && f < bestF {
			best, bestF = w, f
		}
	}
	return best, bestF
}
