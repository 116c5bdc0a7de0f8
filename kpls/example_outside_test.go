package kpls_test

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/kpls"
)

// A linear model says which new points it extrapolates to: one among the
// training inputs, one far beyond their ranges (the distance rule, here
// the range excess, and the leverage too), and one inside both features'
// ranges but against their correlation (the leverage alone).
func ExampleExtrapolation() {
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
	z := mat.NewDense(3, 2, []float64{0.5, 0.5, 30, 30, 0.5, -0.5})
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
	ex := p.Extrapolation
	for i, out := range ex.Outside {
		fmt.Printf("point %d: outside %v (%s above %g: %v, leverage above %g: %v)\n", i+1, out,
			ex.Measure, ex.Threshold, ex.Distance[i] > ex.Threshold, kpls.LeverageLimit, ex.Leverage[i] > kpls.LeverageLimit)
	}
	// Output:
	// point 1: outside false (range_excess above 0.1: false, leverage above 1: false)
	// point 2: outside true (range_excess above 0.1: true, leverage above 1: true)
	// point 3: outside true (range_excess above 0.1: false, leverage above 1: true)
}
