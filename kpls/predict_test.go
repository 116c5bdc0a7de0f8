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
	m, err := Fit(context.Background(), x, y, Options{Kernel: RBF{Width: 1.5}, Components: 4, RawFeatures: true})
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
	if err := m.PredictTo(context.Background(), dst, q, 4); err != nil {
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
	if err := m.PredictTo(context.Background(), make([]float64, 699), q, 4); !errors.Is(err, ErrShape) {
		t.Errorf("a short destination: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.Predict(ctx, q, 4); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled context: %v", err)
	}
	if _, err := m.PredictEvery(ctx, q); !errors.Is(err, context.Canceled) {
		t.Errorf("PredictEvery with a cancelled context: %v", err)
	}
	if _, err := m.Predict(context.Background(), mat.Matrix(nil), 4); !errors.Is(err, ErrShape) {
		t.Errorf("nil x: %v", err)
	}
}
