package kpls

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestReachAgainstNaiveLoop(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n, d, p = 60, 3, 7
	x := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := range n {
		for j := range d {
			x.Set(i, j, rng.NormFloat64()*float64(j+1)+float64(j))
		}
		y[i] = math.Sin(x.At(i, 0)) + x.At(i, 1)
	}
	q := mat.NewDense(p, d, nil)
	for i := range p {
		for j := range d {
			q.Set(i, j, rng.NormFloat64()*float64(j+1)*float64(i)+float64(j))
		}
	}
	q.Set(p-1, 0, 1e6)
	for _, k := range []Kernel{RBF{Width: 2}, Linear{}} {
		for _, raw := range []bool{false, true} {
			o := Options{Kernel: k, Components: 2, DoF: DoFNone, RawFeatures: raw}
			m, err := Fit(context.Background(), Data{X: x, Y: vec(y)}, o, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := m.reach(q)
			if err != nil {
				t.Fatal(err)
			}
			ex, err := m.rangeExcess(q)
			if err != nil {
				t.Fatal(err)
			}
			// Naive: standardise with the training columns' mean and
			// standard deviation, as the model does.
			mean, sd := make([]float64, d), make([]float64, d)
			lo, hi := make([]float64, d), make([]float64, d)
			for j := range d {
				col := mat.Col(nil, j, x)
				for _, v := range col {
					mean[j] += v / n
				}
				for _, v := range col {
					sd[j] += (v - mean[j]) * (v - mean[j])
				}
				sd[j] = math.Sqrt(sd[j] / (n - 1))
				if raw {
					mean[j], sd[j] = 0, 1
				}
				lo[j], hi[j] = math.Inf(1), math.Inf(-1)
				for _, v := range col {
					lo[j], hi[j] = min(lo[j], (v-mean[j])/sd[j]), max(hi[j], (v-mean[j])/sd[j])
				}
			}
			compared := 0
			for r := range p {
				want := math.Inf(-1)
				for i := range n {
					var kv float64
					for j := range d {
						a, b := (q.At(r, j)-mean[j])/sd[j], (x.At(i, j)-mean[j])/sd[j]
						if k == (Linear{}) {
							kv += a * b
						} else {
							kv += (a - b) * (a - b)
						}
					}
					if k != (Linear{}) {
						kv = math.Exp(-kv / (2 * 2))
					}
					want = max(want, kv)
				}
				if !(math.Abs(got[r]-want) <= 1e-9*max(1, math.Abs(want))) {
					t.Errorf("%s raw=%v row %d: Reach %g, naive %g", k, raw, r, got[r], want)
				}
				var wantEx float64
				for j := range d {
					v := (q.At(r, j) - mean[j]) / sd[j]
					if b := max(lo[j]-v, v-hi[j]); b > 0 {
						wantEx = max(wantEx, b/(hi[j]-lo[j]))
					}
				}
				if !(math.Abs(ex[r]-wantEx) <= 1e-9*max(1, wantEx)) {
					t.Errorf("%s raw=%v row %d: RangeExcess %g, naive %g", k, raw, r, ex[r], wantEx)
				}
				compared++
			}
			if compared != p {
				t.Fatalf("compared %d rows", compared)
			}
			if k != (Linear{}) && got[p-1] > 1e-12 {
				t.Errorf("a point at 1e6 has reach %g", got[p-1])
			}
		}
	}
}
