package kpls_test

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/kpls"
)

// Two features that move together in training: a new point inside both
// features' ranges but against their correlation has a leverage above 1,
// which no training row can have, and the model extrapolates there.
func ExampleExtrapolation_leverage() {
	x := mat.NewDense(40, 2, nil)
	y := make([]float64, 40)
	for i := range 40 {
		a := float64(i)/10 - 2
		x.Set(i, 0, a)
		x.Set(i, 1, a+0.05*math.Sin(float64(5*i)))
		y[i] = a + 0.1*math.Cos(float64(3*i))
	}
	m, err := kpls.Fit(context.Background(), kpls.Data{X: x, Y: mat.NewVecDense(len(y), y)}, kpls.Options{Kernel: kpls.Linear{}, Components: 2}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	z := mat.NewDense(2, 2, []float64{0.5, 0.5, 0.5, -0.5})
	m2, err := m.At(2)
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := m2.Predict(context.Background(), z, kpls.PredictOptions{Diagnostics: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, v := range p.Extrapolation.Leverage {
		fmt.Printf("point %d: leverage above the limit: %v\n", i+1, v > kpls.LeverageLimit)
	}
	// Output:
	// point 1: leverage above the limit: false
	// point 2: leverage above the limit: true
}
