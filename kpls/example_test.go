package kpls_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/kpls"
)

// sinc returns the paper's simulated data.
func sinc(n int) (*mat.Dense, []float64) {
	rng := rand.New(rand.NewPCG(1, 2))
	x := mat.NewDense(n, 1, nil)
	y := make([]float64, n)
	for i := range y {
		v := (2*rng.Float64() - 1) * math.Pi
		x.Set(i, 0, v)
		y[i] = math.Sin(v)/v + 0.1*rng.NormFloat64()
	}
	return x, y
}

func ExampleFit() {
	x, y := sinc(100)
	m, err := kpls.Fit(context.Background(), kpls.Data{X: x, Y: mat.NewVecDense(len(y), y)}, kpls.Options{Kernel: kpls.RBF{Width: 0.1}, RawFeatures: true, Components: 8, DoF: kpls.DoFExact}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	best := m.ComponentsBy(kpls.GMDL)
	st := m.Stats()[best]
	fmt.Printf("gMDL chooses m = %d: DoF %.4g, σ̂ %.2g\n", best, st.DoF, st.Sigma)
	// Output: gMDL chooses m = 2: DoF 11.67, σ̂ 0.11
}

func ExampleSelect() {
	x, y := sinc(100)
	sel, err := kpls.Select(context.Background(), kpls.Data{X: x, Y: mat.NewVecDense(len(y), y)}, kpls.SelectOptions{RawFeatures: true, Components: 10, DoF: kpls.DoFLanczos, Kernels: []kpls.Kernel{kpls.RBF{}}, Widths: []float64{0.01, 0.1, 1}, MaxComponents: 10, By: kpls.GMDL}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("width %g with %d components\n", sel.Best.Width(), sel.Best.M)
	// Output: width 1 with 4 components
}

func ExampleModel_Predict() {
	x, y := sinc(100)
	m, err := kpls.Fit(context.Background(), kpls.Data{X: x, Y: mat.NewVecDense(len(y), y)}, kpls.Options{Kernel: kpls.RBF{Width: 1}, RawFeatures: true, Components: 4}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	m4, err := m.At(4) // predict with 4 components, whatever GCV chose
	if err != nil {
		fmt.Println(err)
		return
	}
	z := mat.NewDense(2, 1, []float64{0, 2})
	p, err := m4.Predict(context.Background(), z, kpls.PredictOptions{Uncertainty: kpls.ConfidenceBand, Level: 0.98})
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, yhat := range p.Yhat {
		fmt.Printf("f(%g) = %.2f ± %.2f\n", z.At(i, 0), yhat, p.Upper[i]-yhat)
	}
	// Output:
	// f(0) = 0.96 ± 0.08
	// f(2) = 0.42 ± 0.06
}

func ExampleLoad() {
	x, y := sinc(50)
	m, err := kpls.Fit(context.Background(), kpls.Data{X: x, Y: mat.NewVecDense(len(y), y)}, kpls.Options{Kernel: kpls.RBF{Width: 1}, RawFeatures: true, Components: 3}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	var file bytes.Buffer
	if err := kpls.Save(&file, m); err != nil {
		fmt.Println(err)
		return
	}
	loaded, err := kpls.Load(&file)
	if err != nil {
		fmt.Println(err)
		return
	}
	z := mat.NewDense(1, 1, []float64{0.5})
	a, _ := m.Predict(context.Background(), z, kpls.PredictOptions{})
	b, _ := loaded[0].Predict(context.Background(), z, kpls.PredictOptions{})
	fmt.Println("identical after loading:", a.Yhat[0] == b.Yhat[0])
	// Output: identical after loading: true
}

// A memory limit below what a dense kernel matrix needs. With room for
// float32 (a quarter of the bytes), auto storage tries it, but on this
// one-feature data the Krylov space breaks down within the Lanczos steps
// the DoF use, where float32 could move the DoF: the fit is redone in
// float64 on hybrid storage (cached as far as the limit allows) and warns.
// Below one tile nothing n×n is held. The fits agree (docs/scale.md).
func ExampleResources_memoryLimit() {
	x, y := sinc(500)
	for _, limit := range []int64{8 * 500 * 500, 600 << 10, 100 << 10} {
		m, err := kpls.Fit(context.Background(), kpls.Data{X: x, Y: mat.NewVecDense(len(y), y)}, kpls.Options{Kernel: kpls.RBF{Width: 0.5}, RawFeatures: true, Components: 5}, &kpls.Resources{MemoryLimit: limit})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("limit %7d bytes: %s, RSS(5) = %.4f\n", limit, m.Summary().Storage, m.Stats()[5].RSS)
	}
	// Output:
	// limit 2000000 bytes: dense, RSS(5) = 5.1793
	// limit  614400 bytes: hybrid, RSS(5) = 5.1793
	// limit  102400 bytes: matrix-free, RSS(5) = 5.1793
}

// ExampleMean chooses kernel, width and m by cross-validation and
// predicts with the mean of every grid point within 5 % of the best
// RMSECV (Select's default keeps, within 10 %, those stacking weighs).
func ExampleMean() {
	x, y := sinc(100)
	sel, err := kpls.Select(context.Background(), kpls.Data{X: x, Y: mat.NewVecDense(len(y), y)}, kpls.SelectOptions{RawFeatures: true, Seed: 1, Kernels: []kpls.Kernel{kpls.RBF{}}, Widths: []float64{0.1, 0.3, 1}, By: kpls.CrossValidation{AverageWithin: 0.05, AverageBy: kpls.AverageAll}}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	z := mat.NewDense(1, 1, []float64{0.5})
	p, err := sel.Predictor.Predict(context.Background(), z, kpls.PredictOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d models averaged; f(0.5) ≈ %.2f (sinc: %.2f)\n", len(sel.Predictor.Summary().Members), p.Yhat[0], math.Sin(0.5)/0.5)
	// Output: 2 models averaged; f(0.5) ≈ 0.94 (sinc: 0.96)
}

// ExamplePredictor selects a model as kpls select does (kernel, width and
// m by cross-validation, averaging the grid points stacking weighs),
// saves it, loads it back and predicts 95 % intervals from several
// goroutines at once: a Predictor is the same to use whether the file
// holds one model or a mean of several, and safe for concurrent use.
func ExamplePredictor() {
	ctx := context.Background()
	x, y := sinc(200)
	sel, err := kpls.Select(ctx, kpls.Data{X: x, Y: mat.NewVecDense(len(y), y)}, kpls.SelectOptions{Seed: 1}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	var file bytes.Buffer
	if err := kpls.Save(&file, sel.Predictor); err != nil {
		fmt.Println(err)
		return
	}
	ps, err := kpls.Load(&file)
	if err != nil {
		fmt.Println(err)
		return
	}
	p := ps[0] // one predictor per target
	at := []float64{-2, -1, 0.5, 2}
	widths := make([]float64, len(at))
	var wg sync.WaitGroup
	for i, v := range at {
		wg.Go(func() {
			pred, err := p.Predict(ctx, mat.NewDense(1, 1, []float64{v}), kpls.PredictOptions{Uncertainty: kpls.PredictionInterval, Level: 0.95})
			if err != nil {
				fmt.Println(err)
				return
			}
			widths[i] = pred.Upper[0] - pred.Lower[0]
		})
	}
	wg.Wait()
	fmt.Printf("%d models averaged; a new y lies within ±%.2f of its prediction (95 %%)\n", len(p.Summary().Members), widths[2]/2)
	// Output: 2 models averaged; a new y lies within ±0.20 of its prediction (95 %)
}
