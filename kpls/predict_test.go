package kpls

import (
	"context"
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestPredictTo checks PredictTo against the definition
// ȳ + k_c(x)ᵀα written out with a naive kernel and centring, its
// destination check and cancellation.
func TestPredictTo(t *testing.T) {
	x, y := gaussData(30, 2, 41)
	q, _ := gaussData(700, 2, 42) // more than one block of predictChunk rows
	m, err := Fit(context.Background(), Data{X: x, Y: vec(y)}, Options{Kernel: RBF{Width: 1.5}, Components: 4, RawFeatures: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	n := 30
	alpha, _ := m.Alpha(4)
	kern := func(a, b []float64) float64 { return naiveKernel(RBF{Width: 1.5}, a, b) }
	colMean := make([]float64, n)
	var grand float64
	for i := range n {
		for j := range n {
			colMean[j] += kern(x.RawRowView(i), x.RawRowView(j)) / float64(n)
		}
	}
	for _, v := range colMean {
		grand += v / float64(n)
	}
	dst := make([]float64, 700)
	if err := m.predictDst(context.Background(), dst, q, 4); err != nil {
		t.Fatal(err)
	}
	for r := range 700 {
		kr := make([]float64, n)
		var rowMean float64
		for j := range n {
			kr[j] = kern(q.RawRowView(r), x.RawRowView(j))
			rowMean += kr[j] / float64(n)
		}
		want := m.Intercept()
		for j := range n {
			want += (kr[j] - rowMean - colMean[j] + grand) * alpha[j]
		}
		if !(math.Abs(dst[r]-want) <= 1e-12*math.Max(1, math.Abs(want))) {
			t.Fatalf("row %d: %g, the definition gives %g", r, dst[r], want)
		}
	}
	if err := m.predictDst(context.Background(), make([]float64, 699), q, 4); !errors.Is(err, ErrShape) {
		t.Errorf("a short destination: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.predictAt(ctx, q, 4); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled context: %v", err)
	}
	if _, err := m.predictEvery(ctx, q); !errors.Is(err, context.Canceled) {
		t.Errorf("PredictEvery with a cancelled context: %v", err)
	}
	if _, err := m.predictAt(context.Background(), mat.Matrix(nil), 4); !errors.Is(err, ErrShape) {
		t.Errorf("nil x: %v", err)
	}
}

// TestLinearPrimalPredictions checks the linear kernel's predictions,
// computed in the primal ((z − x̄)ᵀX_cᵀα_m), against the dual sum
// ȳ + Σ_j α_m,j k_c(z, x_j) with the centred kernel vector formed by plain
// loops from zᵀx_j and the training means, for every m. The inputs sit far
// from the origin, without standardisation, so a wrong centre shows.
func TestLinearPrimalPredictions(t *testing.T) {
	ctx := context.Background()
	x, y := gaussData(80, 3, 21)
	z, _ := gaussData(9, 3, 22)
	for _, mm := range []*mat.Dense{x, z} {
		r, c := mm.Dims()
		for i := range r {
			for j := range c {
				mm.Set(i, j, mm.At(i, j)+float64(5+3*j))
			}
		}
	}
	for _, raw := range []bool{true, false} {
		m, err := Fit(ctx, Data{X: x, Y: vec(y)}, Options{Kernel: Linear{}, Components: 3, RawFeatures: raw}, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := m.predictEvery(ctx, z)
		if err != nil {
			t.Fatal(err)
		}
		n, d := m.n, m.d
		zs, p, err := m.inputs(z)
		if err != nil {
			t.Fatal(err)
		}
		// Training kernel means, by plain loops over the (standardised) rows.
		k := func(a, b []float64) float64 {
			var s float64
			for l := range a {
				s += a[l] * b[l]
			}
			return s
		}
		row := func(j int) []float64 { return m.x[j*d : j*d+d] }
		colMean := make([]float64, n)
		var grand float64
		for i := range n {
			for j := range n {
				colMean[i] += k(row(i), row(j)) / float64(n)
			}
			grand += colMean[i] / float64(n)
		}
		for i := range p {
			zi := zs[i*d : i*d+d]
			kc := make([]float64, n)
			var mean float64
			for j := range n {
				kc[j] = k(zi, row(j))
				mean += kc[j] / float64(n)
			}
			for j := range n {
				kc[j] += -mean - colMean[j] + grand
			}
			for c := 0; c <= m.valid; c++ {
				want := m.yMean
				for j := range n {
					want += m.alpha[c*n+j] * kc[j]
				}
				if g := got.At(i, c); !(math.Abs(g-want) <= 1e-10*(1+math.Abs(want))) {
					t.Errorf("raw %v: point %d, m = %d: %v, dual sum %v", raw, i, c, g, want)
				}
			}
		}
	}
}

// TestPredictReach holds PredictReach and PredictDiagnostics to Predict
// and Reach, bit for bit, over more rows than one chunk of kernel vectors,
// and their leverages to each row's alone.
func TestPredictReach(t *testing.T) {
	ctx := context.Background()
	x, y := gaussData(120, 3, 91)
	q, _ := gaussData(2*predictChunk+7, 3, 92)
	for _, k := range []Kernel{RBF{Width: 0.5}, Matern{Nu: 1.5}} {
		m, err := Fit(ctx, Data{X: x, Y: vec(y)}, Options{Kernel: k, Components: 6}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []int{0, 4} {
			yhat, reach, err := m.predictReach(ctx, q, c)
			if err != nil {
				t.Fatal(err)
			}
			p, err := m.predictAt(ctx, q, c)
			if err != nil {
				t.Fatal(err)
			}
			r, err := m.reach(q)
			if err != nil {
				t.Fatal(err)
			}
			if len(yhat) != len(p) || len(reach) != len(r) {
				t.Fatalf("%d predictions and %d reaches for %d rows", len(yhat), len(reach), len(p))
			}
			for i := range p {
				if math.Float64bits(yhat[i]) != math.Float64bits(p[i]) || math.Float64bits(reach[i]) != math.Float64bits(r[i]) {
					t.Errorf("%s m=%d row %d: %v, %v; Predict and Reach %v, %v", k.Name(), c, i, yhat[i], reach[i], p[i], r[i])
				}
			}
			dy, dr, dl, err := m.predictDiagnostics(ctx, q, c)
			if err != nil {
				t.Fatal(err)
			}
			for i := range p {
				if math.Float64bits(dy[i]) != math.Float64bits(p[i]) || math.Float64bits(dr[i]) != math.Float64bits(r[i]) {
					t.Errorf("%s m=%d row %d: diagnostics %v, %v; Predict and Reach %v, %v", k.Name(), c, i, dy[i], dr[i], p[i], r[i])
				}
				// Each row alone: the chunks give every row its own leverage.
				one, err := m.leverage(ctx, q.Slice(i, i+1, 0, 3), c)
				if err != nil {
					t.Fatal(err)
				}
				if e := relErr(dl[i], one[0]); !(e <= 1e-12) {
					t.Errorf("%s m=%d row %d: leverage %v in the block, %v alone", k.Name(), c, i, dl[i], one[0])
				}
			}
		}
	}
}
