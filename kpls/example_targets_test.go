package kpls_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/kpls"
)

// ExampleSelectTargets selects a model for each of two responses of the
// same inputs in one search: a smooth one and a wiggly one, which want
// different kernels.
func ExampleSelectTargets() {
	r := rand.New(rand.NewPCG(3, 4))
	const n = 200
	x := mat.NewDense(n, 1, nil)
	y := mat.NewDense(n, 2, nil)
	for i := range n {
		v := 4*r.Float64() - 2
		x.Set(i, 0, v)
		y.Set(i, 0, 2*v+0.1*r.NormFloat64())
		y.Set(i, 1, math.Sin(4*v)+0.1*r.NormFloat64())
	}
	sels, err := kpls.SelectTargets(context.Background(), kpls.Data{X: x, Y: y, TargetNames: []string{"line", "wave"}}, kpls.SelectOptions{}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range sels {
		fmt.Printf("%s: %s, m = %d\n", s.Predictor.Summary().TargetName, s.Best.Kernel.Name(), s.Best.M)
	}
	// Output:
	// line: linear, m = 1
	// wave: rbf, m = 10
}

// ExamplePredictOptions contrasts a confidence band for f(x) with a
// prediction interval for a new observation at the same x.
func ExamplePredictOptions() {
	x, y := sinc(200)
	m, err := kpls.Fit(context.Background(), kpls.Data{X: x, Y: mat.NewVecDense(len(y), y)}, kpls.Options{Kernel: kpls.RBF{Width: 1}, RawFeatures: true, Components: 6}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	at := mat.NewDense(1, 1, []float64{0.5})
	band, _ := m.Predict(context.Background(), at, kpls.PredictOptions{Uncertainty: kpls.ConfidenceBand, Level: 0.95})
	iv, _ := m.Predict(context.Background(), at, kpls.PredictOptions{Uncertainty: kpls.PredictionInterval, Level: 0.95})
	fmt.Printf("f(0.5) within ±%.2f, a new y within ±%.2f\n", band.Upper[0]-band.Yhat[0], iv.Upper[0]-iv.Yhat[0])
	// Output: f(0.5) within ±0.04, a new y within ±0.20
}
