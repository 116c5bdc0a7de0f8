package kpls

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestApproxDoFAccuracy holds the approximate DoF to 2 % of the exact DoF
// (the reference's high-precision values, or the forward-mode Jacobian
// trace, itself checked against finite differences) on slowly and quickly
// decaying spectra, where the paper's estimate is off by up to 45 %
// (sinc, width 0.01) and 80 % (8-D uniform data). For m ≤ 2, p_m is a
// polynomial of degree ≤ 2 and the control variates make it exact.
func TestApproxDoFAccuracy(t *testing.T) {
	rc := loadRef(t, "sinc_100")
	type bed struct {
		name  string
		x     *mat.Dense
		y     []float64
		o     Options
		exact func(m int) float64
	}
	var beds []bed
	for _, s := range rc.Settings[1:] {
		s := s
		beds = append(beds, bed{"sinc/" + s.Key, rc.x, rc.y, s.options(DoFApprox), func(m int) float64 {
			if v := s.PerM.DoFBest[m]; v != nil {
				return *v
			}
			return math.NaN()
		}})
	}
	rng := rand.New(rand.NewPCG(8, 8))
	ux := mat.NewDense(150, 8, nil)
	uy := make([]float64, 150)
	for i := range uy {
		for j := 0; j < 8; j++ {
			v := rng.Float64()
			ux.Set(i, j, v)
			uy[i] += math.Sin(3 * v)
		}
		uy[i] += 0.3 * rng.NormFloat64()
	}
	for _, w := range []float64{2, 4} {
		o := Options{Width: w, Components: 10, DoF: DoFExact}
		ex, err := Fit(context.Background(), ux, uy, o)
		if err != nil {
			t.Fatal(err)
		}
		o.DoF = DoFApprox
		beds = append(beds, bed{"uniform8/w=" + ftoa(w), ux, uy, o, func(m int) float64 { return ex.Stats()[m].DoF }})
	}
	for _, b := range beds {
		t.Run(b.name, func(t *testing.T) {
			b.o.Components = 10
			m, err := Fit(context.Background(), b.x, b.y, b.o)
			if err != nil {
				t.Fatal(err)
			}
			b.o.DoF = DoFLanczos
			ml, err := Fit(context.Background(), b.x, b.y, b.o)
			if err != nil {
				t.Fatal(err)
			}
			var worst, worstL float64
			for k := 1; k <= m.Components(); k++ {
				want := b.exact(k)
				got := m.Stats()[k].DoF
				if math.IsNaN(want) {
					continue
				}
				if math.IsNaN(got) {
					if k <= 8 {
						t.Errorf("m=%d: approx DoF refused", k)
					}
					continue
				}
				e := relErr(got, want)
				worst = math.Max(worst, e)
				if l := ml.Stats()[k].DoF; !math.IsNaN(l) {
					worstL = math.Max(worstL, relErr(l, want))
				}
				tol := 0.02
				if k <= 2 {
					tol = 1e-7
				}
				if e > tol {
					t.Errorf("m=%d: approx DoF %.6g ± %.2g, exact %.6g (rel %.3g)", k, got, m.dofSE[k], want, e)
				}
			}
			t.Logf("max rel error: approx %.2g, lanczos %.2g", worst, worstL)
		})
	}
}

func ftoa(v float64) string { return string(rune('0' + int(v))) }

// TestApproxDoFDeterministic: equal seeds give equal results, other seeds
// differ by about the reported standard error.
func TestApproxDoFDeterministic(t *testing.T) {
	x, y := sincData(80, 3)
	o := Options{Width: 0.01, RawFeatures: true, Components: 8, DoF: DoFApprox, Seed: 5}
	a, _ := Fit(context.Background(), x, y, o)
	b, _ := Fit(context.Background(), x, y, o)
	o.Seed = 6
	c, _ := Fit(context.Background(), x, y, o)
	for k := 1; k <= 8; k++ {
		if a.Stats()[k].DoF != b.Stats()[k].DoF {
			t.Errorf("m=%d: same seed, different DoF", k)
		}
		if d := math.Abs(a.Stats()[k].DoF - c.Stats()[k].DoF); k > 2 && d > 6*(a.dofSE[k]+c.dofSE[k]) {
			t.Errorf("m=%d: seeds differ by %.3g, standard errors %.2g and %.2g", k, d, a.dofSE[k], c.dofSE[k])
		}
	}
}
