package ard

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func randomRows(rng *rand.Rand, n, d int) *mat.Dense {
	x := mat.NewDense(n, d, nil)
	for i := range n {
		for j := range d {
			x.Set(i, j, rng.NormFloat64())
		}
	}
	return x
}

// The gradient against central differences of the objective.
func TestGradientAgainstFiniteDifferences(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	n, d := 40, 3
	x := randomRows(rng, n, d)
	y := make([]float64, n)
	for i := range y {
		y[i] = math.Sin(x.At(i, 0)) + 0.3*x.At(i, 1) + 0.1*rng.NormFloat64()
	}
	yc, _ := scaled(y)
	o := newObjective(x, yc)
	for _, theta := range [][]float64{
		{0, 0.5, -0.3, 0.2, math.Log(0.1)},
		{-0.7, 1.2, 2, -0.5, math.Log(0.02)},
	} {
		g := make([]float64, len(theta))
		o.eval(theta, g)
		for i := range theta {
			h := 1e-5
			tp, tm := append([]float64{}, theta...), append([]float64{}, theta...)
			tp[i] += h
			tm[i] -= h
			fp, _ := o.eval(tp, nil)
			fm, _ := o.eval(tm, nil)
			fd := (fp - fm) / (2 * h)
			if math.Abs(fd-g[i]) > 1e-5*max(1, math.Abs(fd)) {
				t.Errorf("θ %v: ∂f/∂θ_%d = %.8g, central difference %.8g", theta, i, g[i], fd)
			}
		}
	}
}

// The objective against the marginal likelihood computed with an LU
// determinant and a solve.
func TestObjectiveAgainstLU(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n, d := 25, 2
	x := randomRows(rng, n, d)
	y := make([]float64, n)
	for i := range y {
		y[i] = x.At(i, 0) - x.At(i, 1)*x.At(i, 1) + 0.2*rng.NormFloat64()
	}
	yc, _ := scaled(y)
	theta := []float64{0.3, -0.4, 0.5, math.Log(0.05)}
	f, _ := newObjective(x, yc).eval(theta, nil)
	l := []float64{math.Exp(0.3), math.Exp(-0.4)}
	k := mat.NewDense(n, n, nil)
	for a := range n {
		for b := range n {
			s := 0.0
			for j := range d {
				t := (x.At(a, j) - x.At(b, j)) / l[j]
				s += t * t
			}
			v := math.Exp(0.5) * math.Exp(-s/2)
			if a == b {
				v += 0.05 + jitter
			}
			k.Set(a, b, v)
		}
	}
	var lu mat.LU
	lu.Factorize(k)
	logDet, sign := lu.LogDet()
	var alpha mat.VecDense
	if err := lu.SolveVecTo(&alpha, false, mat.NewVecDense(n, yc)); err != nil {
		t.Fatal(err)
	}
	want := 0.5*mat.Dot(&alpha, mat.NewVecDense(n, yc)) + 0.5*logDet + 0.5*float64(n)*math.Log(2*math.Pi)
	if sign < 0 || math.Abs(f-want) > 1e-9*math.Abs(want) {
		t.Errorf("objective %.12g, LU's %.12g (sign %v)", f, want, sign)
	}
}

// A target of feature 0 alone: the three noise features get long scales.
func TestFitLearnsIrrelevance(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	n, d := 200, 4
	x := randomRows(rng, n, d)
	y := make([]float64, n)
	for i := range y {
		y[i] = math.Sin(2*x.At(i, 0)) + 0.1*rng.NormFloat64()
	}
	r, err := Fit(context.Background(), x, y)
	if err != nil {
		t.Fatal(err)
	}
	w := r.Weights(0.01)
	if w[0] != 1 {
		t.Errorf("weights %v: want feature 0 the largest", w)
	}
	for j := 1; j < d; j++ {
		if w[j] > 0.1 {
			t.Errorf("weights %v: noise feature %d above 0.1", w, j)
		}
	}
	// The noise the GP finds is the target's: 0.1² of a variance of about
	// one half.
	if r.Noise < 0.005 || r.Noise > 0.05 {
		t.Errorf("noise %g relative to the target's variance, want about 0.02", r.Noise)
	}
	t.Logf("scales %v, signal %g, noise %g, %d evaluations", r.Scales, r.Signal, r.Noise, r.Evaluations)
}

func TestFitRefusesAConstant(t *testing.T) {
	x := randomRows(rand.New(rand.NewPCG(7, 8)), 10, 2)
	if _, err := Fit(context.Background(), x, make([]float64, 10)); err == nil {
		t.Error("a constant target: no error")
	}
}

func BenchmarkFit(b *testing.B) {
	for _, n := range []int{250, 500, 1000} {
		rng := rand.New(rand.NewPCG(9, 10))
		d := 8
		x := randomRows(rng, n, d)
		y := make([]float64, n)
		for i := range y {
			y[i] = math.Sin(x.At(i, 0)) + x.At(i, 1)*x.At(i, 2) + 0.1*rng.NormFloat64()
		}
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := Fit(context.Background(), x, y); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// referenceRows are the rows of testdata/sklearn_reference.py.
func referenceRows() (*mat.Dense, []float64) {
	n, d := 60, 3
	x := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := range n {
		for j := range d {
			x.Set(i, j, math.Sin(1.7*float64(i)+0.9*float64(j*j)+float64(j))*float64(1+j))
		}
		y[i] = math.Sin(2*x.At(i, 0)) + 0.3*x.At(i, 1) + 0.05*math.Cos(7*float64(i))
	}
	return x, y
}

// The objective against scikit-learn's log marginal likelihood at fixed
// parameters, and Fit's optimum against scikit-learn's
// (testdata/sklearn_reference.py).
func TestAgainstScikitLearn(t *testing.T) {
	b, err := os.ReadFile("testdata/sklearn_reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Points []struct {
			Theta []float64
			LML   float64
		}
		Optimum struct{ LML float64 }
	}
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	x, y := referenceRows()
	yc, _ := scaled(y)
	o := newObjective(x, yc)
	for _, p := range ref.Points {
		// scikit-learn orders θ as log σ_f², log ℓ_1…ℓ_d, log σ_n².
		th := append(append(slices.Clone(p.Theta[1:4]), p.Theta[0]), p.Theta[4])
		f, _ := o.eval(th, nil)
		if math.Abs(-f-p.LML) > 1e-6 {
			t.Errorf("θ %v: log marginal likelihood %.10g, scikit-learn's %.10g", p.Theta, -f, p.LML)
		}
	}
	r, err := Fit(context.Background(), x, y)
	if err != nil {
		t.Fatal(err)
	}
	// Fit stops once the likelihood changes by less than 10⁻⁵ relative a
	// step: within 0.1 % of scikit-learn's optimum, the scales in its
	// order.
	if -r.NegLogML < ref.Optimum.LML-1e-3*math.Abs(ref.Optimum.LML) {
		t.Errorf("Fit's optimum %.6g below scikit-learn's %.6g", -r.NegLogML, ref.Optimum.LML)
	}
	if !(r.Scales[0] < r.Scales[1] && r.Scales[1] < r.Scales[2]) {
		t.Errorf("scales %.4g: want them in scikit-learn's order (1.18, 10.5, 18.6)", r.Scales)
	}
	t.Logf("optimum %.6g (scikit-learn %.6g), scales %.4g", -r.NegLogML, ref.Optimum.LML, r.Scales)
}

// A cancelled context stops Fit at the optimiser's next step.
func TestFitCancelled(t *testing.T) {
	x, y := referenceRows()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Fit(ctx, x, y); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
