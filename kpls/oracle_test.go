package kpls

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/mat"
)

// sincData is the paper's simulation: x ~ U(−π, π), y = sin(x)/x + N(0, 0.1²).
func sincData(n int, seed uint64) (*mat.Dense, []float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	x := mat.NewDense(n, 1, nil)
	y := make([]float64, n)
	for i := range y {
		v := (2*rng.Float64() - 1) * math.Pi
		x.Set(i, 0, v)
		y[i] = math.Sin(v)/v + 0.1*rng.NormFloat64()
	}
	return x, y
}

// gaussData is y = Xb + noise with d Gaussian features.
func gaussData(n, d int, seed uint64) (*mat.Dense, []float64) {
	rng := rand.New(rand.NewPCG(seed, 2))
	x := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := range y {
		for j := 0; j < d; j++ {
			v := rng.NormFloat64()
			x.Set(i, j, v)
			y[i] += float64(j+1) * v * math.Sin(float64(j)+v)
		}
		y[i] += 0.5 * rng.NormFloat64()
	}
	return x, y
}

// fdStep is the central-difference step of docs/design.md §3.
func fdStep(y []float64) float64 {
	var mean, mx float64
	for _, v := range y {
		mean += v / float64(len(y))
	}
	for _, v := range y {
		mx = math.Max(mx, math.Abs(v-mean))
	}
	return math.Cbrt(0x1p-52) * mx
}

// refitPredict fits with comp components (no DoF) and predicts at z.
func refitPredict(t *testing.T, x *mat.Dense, y []float64, o Options, comp int, z mat.Matrix) []float64 {
	t.Helper()
	o.DoF = DoFNone
	o.Components = comp
	m, err := Fit(context.Background(), x, y, o)
	if err != nil {
		t.Fatal(err)
	}
	if m.Components() < comp {
		t.Fatalf("refit has %d components, want %d", m.Components(), comp)
	}
	p, err := m.Predict(context.Background(), z, comp)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

type oracleCase struct {
	name string
	x    *mat.Dense
	y    []float64
	o    Options
	ms   []int
}

func oracleCases() []oracleCase {
	sx, sy := sincData(40, 7)
	gx, gy := gaussData(50, 4, 11)
	hx, hy := gaussData(60, 3, 13)
	return []oracleCase{
		{"sinc/w=0.01", sx, sy, Options{Kernel: RBF{Width: 0.01}, RawFeatures: true}, []int{1, 2, 5, 8}},
		{"sinc/w=0.1", sx, sy, Options{Kernel: RBF{Width: 0.1}, RawFeatures: true}, []int{1, 2, 5, 8}},
		{"sinc/w=1", sx, sy, Options{Kernel: RBF{Width: 1}, RawFeatures: true}, []int{1, 2, 5}},
		{"gauss3/w=2", hx, hy, Options{Kernel: RBF{Width: 2}}, []int{1, 2, 5, 8}},
		{"gauss4/linear", gx, gy, Options{Kernel: Linear{}}, []int{1, 2, 3, 4}},
		{"gauss3/laplacian", hx, hy, Options{Kernel: Laplacian{}}, []int{1, 2, 5}},
		{"gauss3/matern32", hx, hy, Options{Kernel: Matern{Nu: 1.5}}, []int{1, 2, 5}},
		{"gauss3/matern52", hx, hy, Options{Kernel: Matern{Width: 0.8}}, []int{1, 2, 5}},
		{"gauss4/polynomial", gx, gy, Options{Kernel: Polynomial{Degree: 2, Offset: 1}}, []int{1, 2, 5}},
		{"gauss3/func", hx, hy, Options{Kernel: Func{Label: "cauchy", K: cauchy}}, []int{1, 2, 5}},
		{"gauss3/precomputed", naiveGram(hx, cauchy), hy, Options{Kernel: Precomputed{}}, []int{1, 2, 5}},
	}
}

// cauchy is a user kernel, 1/(1 + ‖x − z‖²), positive definite.
func cauchy(x, z []float64) float64 {
	var s float64
	for i := range x {
		s += (x[i] - z[i]) * (x[i] - z[i])
	}
	return 1 / (1 + s)
}

// naiveGram is the n×n matrix f(x_i, x_j) of the raw rows of x.
func naiveGram(x *mat.Dense, f func(a, b []float64) float64) *mat.Dense {
	n, _ := x.Dims()
	k := mat.NewDense(n, n, nil)
	for i := range n {
		for j := range n {
			k.Set(i, j, f(x.RawRowView(i), x.RawRowView(j)))
		}
	}
	return k
}

// TestExactDoFFiniteDifferences compares the exact DoF with the trace of
// the Jacobian ∂ŷ/∂y by central differences of full refits.
func TestExactDoFFiniteDifferences(t *testing.T) {
	gx, gy := gaussData(50, 4, 11)
	// A near-identity kernel too: DoF ≈ n after one component.
	near := oracleCase{"gauss4/w=0.001", gx, gy, Options{Kernel: RBF{Width: 0.001}}, []int{1}}
	for _, c := range append(oracleCases(), near) {
		t.Run(c.name, func(t *testing.T) {
			o := c.o
			o.DoF = DoFExact
			o.Components = c.ms[len(c.ms)-1]
			m, err := Fit(context.Background(), c.x, c.y, o)
			if err != nil {
				t.Fatal(err)
			}
			n := len(c.y)
			h := fdStep(c.y)
			var worst float64
			for _, comp := range c.ms {
				var tr float64
				yp := append([]float64(nil), c.y...)
				for i := 0; i < n; i++ {
					yp[i] = c.y[i] + h
					fp := refitPredict(t, c.x, yp, c.o, comp, c.x)
					yp[i] = c.y[i] - h
					fm := refitPredict(t, c.x, yp, c.o, comp, c.x)
					yp[i] = c.y[i]
					tr += (fp[i] - fm[i]) / (2 * h)
				}
				got := m.Stats()[comp].DoF
				e := relErr(got, tr)
				worst = math.Max(worst, e)
				if e > 1e-6 {
					t.Errorf("m=%d: exact DoF %.10g, finite differences %.10g", comp, got, tr)
				}
			}
			t.Logf("max rel error %.2g", worst)
		})
	}
}

// TestLanczosSecondTerm checks the small-matrix identity behind the
// Lanczos DoF, tr(T_mᵀ q_m(K) T_m) = tr([L q_m(D) L⁻¹]_{1:m,1:m}), against the
// same trace computed with n×n matvecs, and the full Definition against
// Σ_k p_m(μ_k) over the Ritz values plus that trace.
func TestLanczosSecondTerm(t *testing.T) {
	for _, c := range oracleCases() {
		t.Run(c.name, func(t *testing.T) {
			o := c.o
			o.DoF = DoFLanczos
			o.Components = c.ms[len(c.ms)-1]
			m, err := Fit(context.Background(), c.x, c.y, o)
			if err != nil {
				t.Fatal(err)
			}
			k, err := m.kernel(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			n := m.n
			mu, _, _ := ritz(m.l, m.steps, m.lanczos)
			for _, comp := range c.ms {
				if comp > m.valid {
					continue
				}
				theta, _, _ := ritz(m.l, m.steps, comp)
				// q_m(K) T_m column by column with matvecs.
				var tr float64
				v := make([]float64, n)
				kv := make([]float64, n)
				for l := 0; l < comp; l++ {
					tl := m.t[l*n : (l+1)*n]
					copy(v, tl)
					for _, th := range theta {
						blasImpl(m).Dsymv(gblas.Upper, n, 1, k, n, v, 1, 0, kv, 1)
						for i := range v {
							v[i] -= kv[i] / th
						}
					}
					for i := range v {
						tr += tl[i] * v[i]
					}
				}
				want := 1.0
				for _, mk := range mu {
					q, _ := polyWithError(theta, mk, 0)
					want += 1 - q
				}
				want += 2 * tr
				got := m.Stats()[comp].DoF
				if math.IsNaN(got) {
					t.Logf("m=%d: refused as unreliable", comp)
					continue
				}
				if e := relErr(got, want); e > 1e-8 {
					t.Errorf("m=%d: small-matrix Lanczos DoF %.12g, matvec form %.12g (rel %.2g)", comp, got, want, e)
				}
			}
		})
	}
}

func blasImpl(m *Model) interface {
	Dsymv(gblas.Uplo, int, float64, []float64, int, []float64, int, float64, []float64, int)
} {
	return m.opts.Backend
}

// TestBandsFiniteDifferences compares se(x)/σ̂ with the norm of the
// gradient of f(x) with respect to y, by central differences of refits:
// ∂f/∂y = 1/n + H_mᵀk_c(x), whose squared norm is ‖H_mᵀk_c(x)‖² + 1/n.
func TestBandsFiniteDifferences(t *testing.T) {
	for _, c := range oracleCases() {
		t.Run(c.name, func(t *testing.T) {
			_, d := c.x.Dims()
			n := len(c.y)
			rng := rand.New(rand.NewPCG(3, 4))
			z := mat.NewDense(4, d, nil)
			for i := 0; i < 4; i++ {
				for j := 0; j < d; j++ {
					z.Set(i, j, c.x.At(rng.IntN(n), j)+0.3*rng.NormFloat64())
				}
			}
			o := c.o
			o.Components = min(5, c.ms[len(c.ms)-1])
			m, err := Fit(context.Background(), c.x, c.y, o)
			if err != nil {
				t.Fatal(err)
			}
			h := fdStep(c.y)
			for _, comp := range []int{1, 2, 5} {
				if comp > m.Components() {
					continue
				}
				grad2 := make([]float64, 4)
				grad2NoInt := make([]float64, 4)
				yp := append([]float64(nil), c.y...)
				for j := 0; j < n; j++ {
					yp[j] = c.y[j] + h
					fp := refitPredict(t, c.x, yp, c.o, comp, z)
					yp[j] = c.y[j] - h
					fm := refitPredict(t, c.x, yp, c.o, comp, z)
					yp[j] = c.y[j]
					for i := range fp {
						g := (fp[i] - fm[i]) / (2 * h)
						grad2[i] += g * g
						grad2NoInt[i] += (g - 1/float64(n)) * (g - 1/float64(n))
					}
				}
				for _, noInt := range []bool{false, true} {
					b, err := m.PredictBands(context.Background(), z, comp, BandOptions{Level: 0.95, NoIntercept: noInt})
					if err != nil {
						t.Fatalf("m=%d: %v", comp, err)
					}
					sigma := m.Stats()[comp].Sigma
					for i, bi := range b {
						want := math.Sqrt(grad2[i])
						if noInt {
							want = math.Sqrt(grad2NoInt[i])
						}
						if e := relErr(bi.SE/sigma, want); e > 1e-5 {
							t.Errorf("m=%d point %d (no intercept %v): se/σ̂ = %.10g, finite differences %.10g", comp, i, noInt, bi.SE/sigma, want)
						}
						if zq := (bi.Upper - bi.Yhat) / bi.SE; math.Abs(zq-1.959963984540054) > 1e-9 {
							t.Errorf("95%% band uses z = %.12g", zq)
						}
					}
				}
			}
		})
	}
}

// TestRunningLanczosMatrix checks the L that the breakdown test grows one
// column per step against its definition: LᵀL = D = (K R̂)ᵀ(K R̂), with
// the K-normalised residuals R̂ and their matvecs recomputed here.
func TestRunningLanczosMatrix(t *testing.T) {
	for _, c := range oracleCases() {
		t.Run(c.name, func(t *testing.T) {
			o := c.o
			o.DoF = DoFNone
			m, err := Fit(context.Background(), c.x, c.y, o)
			if err != nil {
				t.Fatal(err)
			}
			k, err := m.kernel(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			n := m.n
			yc := make([]float64, n)
			var mean float64
			for _, v := range c.y {
				mean += v / float64(n)
			}
			for i, v := range c.y {
				yc[i] = v - mean
			}
			kr, err := nipals(context.Background(), m.opts.Backend, k, n, yc, 12, nil)
			if err != nil {
				t.Fatal(err)
			}
			s := kr.steps
			kr2 := make([][]float64, s) // K r̂_i
			for i := range kr2 {
				r := kr.r[i*n : (i+1)*n]
				kr2[i] = make([]float64, n)
				blasImpl(m).Dsymv(gblas.Upper, n, 1, k, n, r, 1, 0, kr2[i], 1)
				var rKr float64
				for j := range r {
					rKr += r[j] * kr2[i][j]
				}
				for j := range kr2[i] {
					kr2[i][j] /= math.Sqrt(rKr)
				}
			}
			for i := 0; i < s; i++ {
				for j := i; j < s; j++ {
					var want, got float64
					for l := range kr2[i] {
						want += kr2[i][l] * kr2[j][l]
					}
					for r := 0; r <= i; r++ {
						got += kr.lRun[r*kr.ld+i] * kr.lRun[r*kr.ld+j]
					}
					if e := math.Abs(got - want); e > 1e-9*kr2Norm(kr2[i], kr2[j]) {
						t.Errorf("D[%d][%d]: running L gives %.12g, matvecs %.12g", i, j, got, want)
					}
				}
			}
		})
	}
}

func kr2Norm(a, b []float64) float64 {
	var sa, sb float64
	for i := range a {
		sa += a[i] * a[i]
		sb += b[i] * b[i]
	}
	return math.Sqrt(sa * sb)
}
