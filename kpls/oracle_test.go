package kpls

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/internal/gram"
	"github.com/kpls-go/kpls/internal/kernelop"
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
	m, err := Fit(context.Background(), Data{X: x, Y: vec(y)}, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.validComponents() < comp {
		t.Fatalf("refit has %d components, want %d", m.validComponents(), comp)
	}
	p, err := m.predictAt(context.Background(), z, comp)
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
//
// Tolerance (absolute, on the trace), from the oracle's own error: with
// step h = ε^⅓·s (s = max|y_c|) each diagonal term has a rounding error of
// about ρ·F/h, F = max|ŷ| and ρ the refit's relative rounding (allowed to
// be 10ε), i.e. 10·ε^⅔·F/s, and a truncation error h²/6·|∂³ŷ_i/∂y_i³|,
// measured rather than assumed: the trace with step 2h differs from the
// one with h by 3× the truncation (it scales as h²) plus rounding. Over n
// terms: n·10·ε^⅔·F/s + |tr(2h) − tr(h)|.
func TestExactDoFFiniteDifferences(t *testing.T) {
	gx, gy := gaussData(50, 4, 11)
	// A near-identity kernel too: DoF ≈ n after one component.
	near := oracleCase{"gauss4/w=0.001", gx, gy, Options{Kernel: RBF{Width: 0.001}}, []int{1}}
	for _, c := range append(oracleCases(), near) {
		t.Run(c.name, func(t *testing.T) {
			o := c.o
			o.DoF = DoFExact
			o.Components = c.ms[len(c.ms)-1]
			m, err := Fit(context.Background(), Data{X: c.x, Y: vec(c.y)}, o, nil)
			if err != nil {
				t.Fatal(err)
			}
			n := len(c.y)
			h := fdStep(c.y)
			s := h / math.Cbrt(0x1p-52)
			var worst, worstTol float64
			for _, comp := range c.ms {
				fdTrace := func(h float64) (tr, fmax float64) {
					yp := append([]float64(nil), c.y...)
					for i := 0; i < n; i++ {
						yp[i] = c.y[i] + h
						fp := refitPredict(t, c.x, yp, c.o, comp, c.x)
						yp[i] = c.y[i] - h
						fm := refitPredict(t, c.x, yp, c.o, comp, c.x)
						yp[i] = c.y[i]
						tr += (fp[i] - fm[i]) / (2 * h)
						fmax = math.Max(fmax, math.Max(math.Abs(fp[i]), math.Abs(fm[i])))
					}
					return tr, fmax
				}
				tr, fmax := fdTrace(h)
				tr2, _ := fdTrace(2 * h)
				tol := float64(n)*10*math.Pow(0x1p-52, 2.0/3)*fmax/s + math.Abs(tr2-tr)
				got := m.Stats()[comp].DoF
				e := math.Abs(got - tr)
				worst = math.Max(worst, e)
				worstTol = math.Max(worstTol, tol)
				if !(e <= tol) {
					t.Errorf("m=%d: exact DoF %.12g, finite differences %.12g (diff %.2g, tolerance %.2g)", comp, got, tr, e, tol)
				}
			}
			t.Logf("max abs error %.2g (largest tolerance %.2g)", worst, worstTol)
		})
	}
}

// TestLanczosSecondTerm checks the Lanczos DoF (the paper's Definition,
// DoF₀(m) = Σ_{k≤M} p_m(μ_k) + 2 tr(T_mᵀ q_m(K) T_m)) against the same
// quantities built from gonum's eigendecomposition K = UΛUᵀ of the fit's
// centred kernel matrix, with neither L nor the package's ritz or
// polyWithError: with w = Uᵀy_c,
//   - θ (m steps) and μ (M steps) are the Ritz values of D = R̂ᵀK²R̂ with
//     R̂ K-orthonormal on the Krylov space, i.e. the eigenvalues of Λ on
//     span{Λ^½w, …, Λ^(j−½)w} (K^½R̂ is orthonormal and R̂ᵀK²R̂ = (K^½R̂)ᵀK(K^½R̂));
//   - tr(T_mᵀ q_m(K) T_m) = Σ_k ‖B_k‖² q_m(λ_k) for an orthonormal basis B
//     of span{Λw, …, Λ^m w} (= span T_m in eigen-coordinates);
//
// both bases by Lanczos with two full reorthogonalisation passes.
//
// Tolerance: every Ritz value, on both sides, carries an absolute error of
// about δ = n·ε·λ_max (a backward-stable eigensolver) times
// √λ_max‖y_c‖/‖r_j‖_K for the last residual r_j behind it (j = m−1 for θ,
// M−1 for μ: the residuals behind D lose that much relative accuracy);
// the test's
// first-order bound on the Definition's error for that δ, doubled for the
// two sides, plus 64ε relative for the sums. A refused value (NaN) is an
// error unless that bound exceeds lanczosTol relative: float64 can
// deliver the value, so it must.
func TestLanczosSecondTerm(t *testing.T) {
	const eps = 0x1p-52
	for _, c := range oracleCases() {
		t.Run(c.name, func(t *testing.T) {
			o := c.o
			o.DoF = DoFLanczos
			o.Components = c.ms[len(c.ms)-1]
			m, err := Fit(context.Background(), Data{X: c.x, Y: vec(c.y)}, o, nil)
			if err != nil {
				t.Fatal(err)
			}
			k, err := centredKernel(m)
			if err != nil {
				t.Fatal(err)
			}
			n := m.n
			ks := mat.NewSymDense(n, nil)
			for i := 0; i < n; i++ {
				for j := i; j < n; j++ {
					ks.SetSym(i, j, (k[i*n+j]+k[j*n+i])/2)
				}
			}
			var eig mat.EigenSym
			if !eig.Factorize(ks, true) {
				t.Fatal("eigendecomposition of K failed")
			}
			lambda := eig.Values(nil)
			var u mat.Dense
			eig.VectorsTo(&u)
			var ybar float64
			for _, v := range c.y {
				ybar += v / float64(n)
			}
			yc := mat.NewVecDense(n, nil)
			for i, v := range c.y {
				yc.SetVec(i, v-ybar)
			}
			var wv mat.VecDense
			wv.MulVec(u.T(), yc)
			w := wv.RawVector().Data
			lmax := lambda[n-1]
			delta := float64(n) * eps * lmax
			// Eigenvalues within δ of 0 are 0 to the solver's accuracy (the
			// linear kernel's K_c has rank p exactly); left as they are,
			// Λ^½ would turn their error δ into √δ.
			for i, l := range lambda {
				if math.Abs(l) <= delta {
					lambda[i] = 0
				}
			}
			half := make([]float64, n) // Λ^½ w
			full := make([]float64, n) // Λ w
			for i, l := range lambda {
				half[i] = math.Sqrt(math.Max(l, 0)) * w[i]
				full[i] = l * w[i]
			}
			M := m.lanczosSteps()
			if M < c.ms[len(c.ms)-1] {
				t.Fatalf("%d Lanczos steps for %d components", M, c.ms[len(c.ms)-1])
			}
			// D's entries come from K-normalised residuals r_j/‖r_j‖_K,
			// j < M, and a residual computed as y_c − ŷ_j carries an
			// absolute error of about ε‖y_c‖, which is up to
			// √λ_max·ε‖y_c‖ in the K-norm: relative to r_j that is
			// amplified by √λ_max‖y_c‖/‖r_j‖_K, largest at the last
			// residual used: j = m−1 for θ, j = M−1 for μ
			// (r_j = w minus its projection on span{Λw, …, Λ^j w}).
			amp := func(j int) float64 {
				var ww, rr float64
				proj := make([]float64, n)
				for _, b := range eigKrylov(lambda, full, j) {
					floats.AddScaled(proj, floats.Dot(b, w), b)
				}
				for i := range w {
					ww += w[i] * w[i]
					rr += lambda[i] * (w[i] - proj[i]) * (w[i] - proj[i])
				}
				return math.Sqrt(lmax * ww / rr)
			}
			deltaMu := delta * amp(M-1)
			mu := eigRitz(lambda, eigKrylov(lambda, half, M))
			compared := 0
			for _, comp := range c.ms {
				if comp > m.valid {
					t.Fatalf("m=%d past the %d valid components", comp, m.valid)
				}
				theta := eigRitz(lambda, eigKrylov(lambda, half, comp))
				deltaTheta := delta * amp(comp-1)
				basis := eigKrylov(lambda, full, comp)
				// q_m and the first-order effect of δ on every θ_i (and on μ).
				q := func(x float64) (v, dTheta, dX float64) {
					v = 1
					for _, th := range theta {
						v *= 1 - x/th
					}
					for i, th := range theta {
						rest := 1.0
						for j, tj := range theta {
							if j != i {
								rest *= 1 - x/tj
							}
						}
						dTheta += math.Abs(rest) * math.Abs(x) / (th * th)
						dX += math.Abs(rest) / th
					}
					return v, dTheta, dX
				}
				want, bound := 1.0, 0.0
				for _, mk := range mu {
					v, dT, dX := q(mk)
					want += 1 - v
					bound += deltaTheta*dT + deltaMu*dX
				}
				for kk, l := range lambda {
					var c2 float64
					for _, b := range basis {
						c2 += b[kk] * b[kk]
					}
					v, dT, _ := q(l)
					want += 2 * c2 * v
					bound += 2 * c2 * deltaTheta * dT
				}
				got := m.Stats()[comp].DoF
				if math.IsNaN(got) {
					if !(bound > lanczosTol*math.Abs(want)) {
						t.Errorf("m=%d: refused, but the eigendecomposition gives %.12g with an error bound of %.2g", comp, want, bound)
					}
					continue
				}
				tol := 2*bound + 64*eps*math.Abs(want)
				if e := math.Abs(got - want); !(e <= tol) {
					t.Errorf("m=%d: small-matrix Lanczos DoF %.12g, from the eigendecomposition %.12g (diff %.2g, tolerance %.2g)", comp, got, want, e, tol)
				}
				compared++
				t.Logf("m=%d M=%d: diff %.2g, tolerance %.2g", comp, M, math.Abs(got-want), tol)
			}
			if compared == 0 {
				t.Error("no value compared")
			}
		})
	}
}

// eigKrylov returns an orthonormal basis of span{v, Λv, …, Λ^(steps−1)v}
// for the diagonal matrix Λ = diag(lambda), by Lanczos with two full
// reorthogonalisation passes.
func eigKrylov(lambda, v []float64, steps int) [][]float64 {
	var basis [][]float64
	cur := append([]float64(nil), v...)
	for j := 0; j < steps; j++ {
		for pass := 0; pass < 2; pass++ {
			for _, b := range basis {
				floats.AddScaled(cur, -floats.Dot(cur, b), b)
			}
		}
		nv := floats.Norm(cur, 2)
		if nv == 0 {
			break
		}
		floats.Scale(1/nv, cur)
		basis = append(basis, cur)
		next := make([]float64, len(cur))
		for i, l := range lambda {
			next[i] = l * cur[i]
		}
		cur = next
	}
	return basis
}

// eigRitz returns the eigenvalues of BᵀΛB for the rows b of basis.
func eigRitz(lambda []float64, basis [][]float64) []float64 {
	s := len(basis)
	h := mat.NewSymDense(s, nil)
	for i := 0; i < s; i++ {
		for j := i; j < s; j++ {
			var v float64
			for k, l := range lambda {
				v += basis[i][k] * l * basis[j][k]
			}
			h.SetSym(i, j, v)
		}
	}
	var e mat.EigenSym
	if !e.Factorize(h, false) {
		panic("eigenvalues of the Ritz matrix failed")
	}
	return e.Values(nil)
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
			m, err := Fit(context.Background(), Data{X: c.x, Y: vec(c.y)}, o, nil)
			if err != nil {
				t.Fatal(err)
			}
			h := fdStep(c.y)
			for _, comp := range []int{1, 2, 5} {
				if comp > m.validComponents() {
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
					b, err := m.predictBands(context.Background(), z, comp, bandOpts{Level: 0.95, NoIntercept: noInt})
					if err != nil {
						t.Fatalf("m=%d: %v", comp, err)
					}
					sigma := m.Stats()[comp].Sigma
					for i, bi := range b {
						want := math.Sqrt(grad2[i])
						if noInt {
							want = math.Sqrt(grad2NoInt[i])
						}
						if e := relErr(bi.SE/sigma, want); !(e <= 1e-5) {
							t.Errorf("m=%d point %d (no intercept %v): se/σ̂ = %.10g, finite differences %.10g", comp, i, noInt, bi.SE/sigma, want)
						}
						if zq := (bi.Upper - bi.Yhat) / bi.SE; !(math.Abs(zq-1.959963984540054) <= 1e-9) {
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
			m, err := Fit(context.Background(), Data{X: c.x, Y: vec(c.y)}, o, nil)
			if err != nil {
				t.Fatal(err)
			}
			k, err := centredKernel(m)
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
			kr, err := nipals(context.Background(), m.opts.Backend, kernelop.NewDense(k, n, n, kernelop.Stats{}, m.opts.Backend), yc, 12, nil)
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
					if e := math.Abs(got - want); !(e <= 1e-9*kr2Norm(kr2[i], kr2[j])) {
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

// centredKernel builds the model's centred training kernel matrix directly
// (n×n), not through the operator the fit used.
func centredKernel(m *Model) ([]float64, error) {
	k := make([]float64, m.n*m.n)
	if err := kernelMatrix(context.Background(), k, m.opts.Kernel, m.x, m.n, m.d); err != nil {
		return nil, err
	}
	gram.Center(k, m.n, m.n, make([]float64, m.n))
	return k, nil
}
