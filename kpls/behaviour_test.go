package kpls

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// TestPlsdofLinear compares the linear kernel with R's plsdof 0.3-2
// (kernel.pls.fit with the Jacobian): RSS, fitted values and DoF clipped
// at min(n−1, p+1), as plsdof reports them.
func TestPlsdofLinear(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(refDir, "lin_gauss_50x5.plsdof.json"))
	if err != nil {
		t.Fatalf("reference values missing (they are part of the repository): %v", err)
	}
	var ref struct {
		Fit struct {
			DoF  []float64   `json:"DoF"`
			RSS  []float64   `json:"RSS"`
			Yhat [][]float64 `json:"Yhat"`
			Last []float64   `json:"yhat"` // named so that it does not match Yhat

		} `json:"kernel_pls_fit_jacobian"`
	}
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	x, y := readCSVTest(t, filepath.Join(refDir, "lin_gauss_50x5.csv"))
	m, err := Fit(context.Background(), Data{X: x, Y: vec(y)}, Options{Kernel: Linear{}, Components: 5, DoF: DoFExact}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Stats()) != len(ref.Fit.DoF) || len(ref.Fit.RSS) != len(ref.Fit.DoF) || len(ref.Fit.Yhat) != len(ref.Fit.DoF) || len(ref.Fit.DoF) != 6 {
		t.Fatalf("%d components + 1 fitted, plsdof has %d DoF, %d RSS, %d fits; want 6 each (p = 5)", len(m.Stats()), len(ref.Fit.DoF), len(ref.Fit.RSS), len(ref.Fit.Yhat))
	}
	var worstDoF, worstRSS, worstFit float64
	for k, st := range m.Stats() {
		worstDoF = math.Max(worstDoF, relErr(st.DoFClipped, ref.Fit.DoF[k]))
		worstRSS = math.Max(worstRSS, relErr(st.RSS, ref.Fit.RSS[k]))
		p, err := m.predictAt(context.Background(), x, k)
		if err != nil {
			t.Fatal(err)
		}
		if len(ref.Fit.Yhat[k]) != len(p) {
			t.Fatalf("m=%d: plsdof has %d fitted values, want %d", k, len(ref.Fit.Yhat[k]), len(p))
		}
		for i, v := range p {
			worstFit = math.Max(worstFit, math.Abs(v-ref.Fit.Yhat[k][i])/math.Max(1, math.Abs(ref.Fit.Yhat[k][i])))
		}
	}
	t.Logf("max rel error vs plsdof: DoF %.2g, RSS %.2g, fitted %.2g", worstDoF, worstRSS, worstFit)
	// math.Max propagates NaN, and NaN > tol is false: compare with !(≤).
	if !(worstDoF <= 1e-8 && worstRSS <= 1e-10 && worstFit <= 1e-10) {
		t.Errorf("differs from plsdof: DoF %.3g, RSS %.3g, fitted %.3g", worstDoF, worstRSS, worstFit)
	}
}

// TestReferenceCriteria compares AIC, BIC and gMDL (σ̂ = √(RSS/(n−DoF)),
// exact DoF) and the first-local-minimum choice with the reference.
func TestReferenceCriteria(t *testing.T) {
	for _, name := range []string{"sinc_100", "lin_gauss_50x5"} {
		rc := loadRef(t, name)
		for _, s := range rc.Settings {
			t.Run(name+"/"+s.Key, func(t *testing.T) {
				o := s.options(DoFExact)
				o.Components = s.MValidMax
				m, err := Fit(context.Background(), Data{X: rc.x, Y: vec(rc.y)}, o, nil)
				if err != nil {
					t.Fatal(err)
				}
				stats := m.Stats()
				for _, c := range []Criterion{AIC, BIC, GMDL} {
					ref := s.IC.Exact[string(c)]
					var worst float64
					compared, want := 0, 0
					for k, w := range ref.Score {
						if w == nil || k > s.MValidMax {
							continue
						}
						want++
						if k >= len(stats) {
							continue
						}
						e := math.Abs(stats[k].Score(c)-*w) / math.Max(1, math.Abs(*w))
						worst = math.Max(worst, e)
						compared++
					}
					if compared == 0 || compared != want {
						t.Errorf("%s: compared %d scores, the reference has %d", c, compared, want)
					}
					if !(worst <= 1e-7) {
						t.Errorf("%s: scores differ by %.3g", c, worst)
					}
					if got := m.ComponentsBy(c); got != ref.MOpt {
						t.Errorf("%s selects m=%d, reference %d", c, got, ref.MOpt)
					}
				}
			})
		}
	}
}

// TestBreakdown: sinc with width 1 asked for 30 components stops early,
// says so, and reports nothing past the point where it is reliable:
//   - the valid components c are at least the reference's m_valid_max
//     (its high-precision fit) and at most the numerical rank of K_c
//     (eigenvalues above n·ε·λ_max, gonum's EigenSym), past which the
//     Krylov space has no float64 directions left;
//   - at every m ≤ c the fitted values are the least-squares projection
//     of y_c onto span{K_c y_c, …, K_c^m y_c}, built here from the
//     eigendecomposition by Lanczos on diag(λ) with full
//     reorthogonalisation (no NIPALS);
//   - every DoF reported matches the reference's high-precision value.
func TestBreakdown(t *testing.T) {
	rc := loadRef(t, "sinc_100")
	var s refSetting
	for _, st := range rc.Settings {
		if st.Key == "rbf_w1" {
			s = st
		}
	}
	if s.Key == "" || *s.Width != 1 {
		t.Fatal("reference setting rbf_w1 missing")
	}
	proj, rank := krylovProjections(rc.x, rc.y, *s.Width, 30)
	// The float64 fit's own error against the high-precision one grows to
	// fit_maxabs_err_vs_gold near breakdown; the projection here carries
	// rounding of the same kind (another basis, another order). Allow 10×
	// the reference's worst float64 error over its valid range, relative
	// to max|y_c|, and no less than 1e-10 (both well conditioned early).
	var fitTol float64 = 1e-10
	var ybar, ycMax float64
	for _, v := range rc.y {
		ybar += v / float64(len(rc.y))
	}
	for _, v := range rc.y {
		ycMax = math.Max(ycMax, math.Abs(v-ybar))
	}
	for k := 0; k <= s.MValidMax; k++ {
		if fe := s.PerM.FitErr; k < len(fe) && fe[k] != nil {
			fitTol = math.Max(fitTol, 10**fe[k]/ycMax)
		}
	}
	// A float64 DoF near breakdown is good only to what the reference's own
	// float64 finite differences achieve against its best values: allow 10×
	// their worst gap over the valid range (exact), and 10·lanczosTol for
	// the Lanczos DoF, which refuses values whose estimated error exceeds
	// lanczosTol.
	var fdGap float64
	for k := 1; k <= s.MValidMax; k++ {
		if b, f := s.PerM.DoFBest[k], s.PerM.DoFFD[k]; b != nil && f != nil {
			fdGap = math.Max(fdGap, relErr(*f, *b))
		}
	}
	for _, dof := range []DoFMethod{DoFExact, DoFLanczos} {
		m, err := Fit(context.Background(), Data{X: rc.x, Y: vec(rc.y)}, Options{Kernel: RBF{Width: 1}, RawFeatures: true, Components: 30, DoF: dof}, nil)
		if err != nil {
			t.Fatal(err)
		}
		c := m.validComponents()
		if c < s.MValidMax || c > rank || c >= 30 {
			t.Errorf("%s: %d valid components; the reference's fit is reliable to %d, the numerical rank of K_c is %d, 30 were asked for", dof, c, s.MValidMax, rank)
		}
		if !hasWarning(m.Warnings(), WarnFewerComponents) || m.stopped().Reason == StopNone || m.stopped().Component != c+1 {
			t.Errorf("%s: no warning or stop status for the breakdown: %q, %+v", dof, m.Warnings(), m.stopped())
		}
		if len(proj) <= c {
			t.Errorf("%s: %d valid components, but the Krylov space built here is exhausted after %d", dof, c, len(proj)-1)
		}
		var worstProj float64
		for k := 0; k <= c && k < len(proj); k++ {
			p, err := m.predictAt(context.Background(), rc.x, k)
			if err != nil {
				t.Fatal(err)
			}
			var worst float64
			for i, v := range p {
				worst = math.Max(worst, math.Abs(v-ybar-proj[k][i])/ycMax)
			}
			if !(worst <= fitTol) {
				t.Errorf("%s m=%d: fitted values off the Krylov projection by %.3g (relative to max|y_c|; tolerance %.2g)", dof, k, worst, fitTol)
			}
			if st := m.Stats()[k]; isNaNOrInf(st.RSS) || math.IsNaN(st.Sigma) != math.IsNaN(st.DoF) {
				t.Errorf("%s m=%d: RSS %v, σ̂ %v with DoF %v", dof, k, st.RSS, st.Sigma, st.DoF)
			}
			worstProj = math.Max(worstProj, worst)
		}
		t.Logf("%s: %d valid components, numerical rank %d, Krylov space here %d; fitted values within %.2g of the projection (tolerance %.2g)", dof, c, rank, len(proj)-1, worstProj, fitTol)
		// Every DoF reported must match the high-precision reference.
		tol := 10 * fdGap
		if dof == DoFLanczos {
			tol = 10 * lanczosTol
		}
		compared := 0
		for k, st := range m.Stats() {
			if math.IsNaN(st.DoF) {
				if dof == DoFExact {
					t.Errorf("exact m=%d: DoF refused", k)
				}
				continue
			}
			var want *float64
			if dof == DoFExact {
				want = s.PerM.DoFBest[k]
			} else if k > 0 {
				want = s.Approx["30"].Gold[k]
			}
			if want == nil {
				if k > 0 {
					t.Errorf("%s m=%d: DoF %.6g reported where the reference has no reliable value", dof, k, st.DoF)
				}
				continue
			}
			if e := relErr(st.DoF, *want); !(e <= tol) {
				t.Errorf("%s m=%d: DoF %.8g, reference %.8g (tolerance %.2g)", dof, k, st.DoF, *want, tol)
			}
			if k > 0 {
				compared++
			}
		}
		if compared == 0 {
			t.Errorf("%s: no DoF compared", dof)
		}
		if _, err := m.predictAt(context.Background(), rc.x, m.validComponents()+1); !errors.Is(err, ErrComponents) {
			t.Errorf("prediction past the valid components: %v", err)
		}
	}
}

// krylovProjections returns, for m = 0..mMax, the least-squares
// projection of y_c onto span{K_c y_c, …, K_c^m y_c} for the RBF kernel of
// the given width on the raw x, without NIPALS: K_c = UΛUᵀ by gonum's
// EigenSym, then Lanczos with two full reorthogonalisation passes on
// diag(λ) from Λw, w = Uᵀy_c, stopping when the new direction vanishes.
// It also returns the numerical rank of K_c, the number of eigenvalues
// above n·ε·λ_max.
func krylovProjections(x *mat.Dense, y []float64, width float64, mMax int) ([][]float64, int) {
	n, d := x.Dims()
	k := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			var d2 float64
			for c := 0; c < d; c++ {
				v := x.At(i, c) - x.At(j, c)
				d2 += v * v
			}
			k.SetSym(i, j, math.Exp(-d2/(2*width)))
		}
	}
	j := mat.NewDense(n, n, nil)
	for a := 0; a < n; a++ {
		for b := 0; b < n; b++ {
			v := -1 / float64(n)
			if a == b {
				v++
			}
			j.Set(a, b, v)
		}
	}
	var jk, kc mat.Dense
	jk.Mul(j, k)
	kc.Mul(&jk, j)
	ks := mat.NewSymDense(n, nil)
	for a := 0; a < n; a++ {
		for b := a; b < n; b++ {
			ks.SetSym(a, b, (kc.At(a, b)+kc.At(b, a))/2)
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(ks, true) {
		panic("eigendecomposition of K_c failed")
	}
	lambda := eig.Values(nil)
	var u mat.Dense
	eig.VectorsTo(&u)
	top := lambda[n-1]
	rank := 0
	for _, l := range lambda {
		if l > float64(n)*0x1p-52*top {
			rank++
		}
	}
	var ybar float64
	for _, v := range y {
		ybar += v / float64(n)
	}
	yc := mat.NewVecDense(n, nil)
	for i, v := range y {
		yc.SetVec(i, v-ybar)
	}
	var w mat.VecDense
	w.MulVec(u.T(), yc)
	proj := [][]float64{make([]float64, n)}
	var basis [][]float64
	v := make([]float64, n) // next direction: Λ times the last basis vector (Λw first)
	for i := range v {
		v[i] = lambda[i] * w.AtVec(i)
	}
	coef := make([]float64, n) // Uᵀ(projection)
	for m := 1; m <= mMax; m++ {
		norm0 := floats.Norm(v, 2)
		for pass := 0; pass < 2; pass++ {
			for _, q := range basis {
				floats.AddScaled(v, -floats.Dot(v, q), q)
			}
		}
		nv := floats.Norm(v, 2)
		if !(nv > 1e-8*norm0) {
			break // the Krylov space is exhausted in float64
		}
		floats.Scale(1/nv, v)
		basis = append(basis, v)
		floats.AddScaled(coef, floats.Dot(v, w.RawVector().Data), v)
		var p mat.VecDense
		p.MulVec(&u, mat.NewVecDense(n, append([]float64(nil), coef...)))
		proj = append(proj, append([]float64(nil), p.RawVector().Data...))
		next := make([]float64, n)
		for i := range next {
			next[i] = lambda[i] * v[i]
		}
		v = next
	}
	return proj, rank
}

func TestBadInput(t *testing.T) {
	ctx := context.Background()
	x, y := sincData(20, 1)
	nan := mat.DenseCopyOf(x)
	nan.Set(3, 0, math.NaN())
	yInf := append([]float64(nil), y...)
	yInf[5] = math.Inf(1)
	constY := make([]float64, 20)
	yHuge := make([]float64, 20) // finite values whose sum overflows
	for i := range yHuge {
		yHuge[i] = math.MaxFloat64 * float64(i%2)
	}
	cases := []struct {
		name string
		x    mat.Matrix
		y    []float64
		o    Options
		want error
		msg  string
	}{
		{"shape", x, y[:19], Options{}, ErrShape, "19"},
		{"nan x", nan, y, Options{}, ErrNonFinite, "row 4"},
		{"inf y", x, yInf, Options{}, ErrNonFinite, "row 6"},
		{"overflowing y", x, yHuge, Options{}, ErrNonFinite, "overflows"},
		{"few rows", mat.NewDense(2, 1, []float64{1, 2}), []float64{1, 2}, Options{}, ErrTooFewRows, "2"},
		{"constant y", x, constY, Options{}, ErrConstantY, "constant"},
		{"components", x, y, Options{Components: 20}, ErrComponents, "at most 19"},
		{"negative components", x, y, Options{Components: -1}, ErrComponents, "-1"},
		{"width", x, y, Options{Kernel: RBF{Width: -1}}, ErrWidth, "-1"},
		{"laplacian width", x, y, Options{Kernel: Laplacian{Width: math.NaN()}}, ErrWidth, "NaN"},
		{"matern nu", x, y, Options{Kernel: Matern{Nu: 0.5}}, ErrKernel, "0.5"},
		{"polynomial degree", x, y, Options{Kernel: Polynomial{Degree: -2}}, ErrKernel, "-2"},
		{"polynomial offset", x, y, Options{Kernel: Polynomial{Offset: -1}}, ErrKernel, "-1"},
		{"func without function", x, y, Options{Kernel: Func{Label: "mine"}}, ErrKernel, "mine"},
		{"precomputed not square", x, y, Options{Kernel: Precomputed{}}, ErrShape, "square"},
		{"one probe", x, y, Options{Kernel: RBF{Width: 1}, Probes: 1}, ErrBadOption, "Options.Probes: 1 "},
		{"negative probes", x, y, Options{Kernel: RBF{Width: 1}, Probes: -3}, ErrBadOption, "Options.Probes: -3 "},
		{"kernel", x, y, Options{Kernel: namedOnly("poly")}, ErrKernel, "poly"},
		{"dof", x, y, Options{DoF: "magic"}, ErrDoFMethod, "magic"},
		{"linear too many", x, y, Options{Kernel: Linear{}, Components: 2}, ErrComponents, "at most 1"},
		{"constant features", mat.NewDense(5, 1, []float64{1, 1, 1, 1, 1}), []float64{1, 2, 3, 4, 5}, Options{}, ErrDegenerate, "constant"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Fit(ctx, Data{X: c.x, Y: vec(c.y)}, c.o, nil)
			if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("got %v, want %v mentioning %q", err, c.want, c.msg)
			}
		})
	}
	m, err := Fit(ctx, Data{X: x, Y: vec(y)}, Options{Components: 3}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.predictAt(context.Background(), mat.NewDense(2, 2, nil), 1); !errors.Is(err, ErrShape) {
		t.Errorf("wrong feature count: %v", err)
	}
	if _, err := m.predictAt(context.Background(), nan, 1); !errors.Is(err, ErrNonFinite) {
		t.Errorf("NaN input: %v", err)
	}
	lin, err := Fit(ctx, Data{X: x, Y: vec(y)}, Options{Kernel: Linear{}, Components: 1, RawFeatures: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lin.predictAt(context.Background(), mat.NewDense(1, 1, []float64{1e308}), 1); !errors.Is(err, ErrNonFinite) || !strings.Contains(err.Error(), "row 1") {
		t.Errorf("overflowing linear prediction: %v", err)
	}
	for _, lv := range []float64{-0.1, 1, 1.5, math.NaN()} {
		if _, err := m.predictBands(ctx, x, 1, bandOpts{Level: lv}); !errors.Is(err, ErrLevel) {
			t.Errorf("level %g: %v", lv, err)
		}
	}
	for _, s := range []Storage{StorageDense, StorageFloat32} {
		if _, err := Fit(ctx, Data{X: x, Y: vec(y)}, Options{}, &Resources{Storage: s, MemoryLimit: 100}); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "GB") {
			t.Errorf("%s kernel too large: %v", s, err)
		}
	}
	if _, err := Fit(ctx, Data{X: x, Y: vec(y)}, Options{}, &Resources{Storage: "sparse"}); !errors.Is(err, ErrStorage) {
		t.Errorf("unknown storage: %v", err)
	}
	if _, err := Fit(ctx, Data{X: x, Y: vec(y)}, Options{Kernel: RBF{}}, &Resources{Storage: StorageFeatures}); !errors.Is(err, ErrStorage) || !strings.Contains(err.Error(), "linear") {
		t.Errorf("features storage for the rbf kernel: %v", err)
	}
	if _, err := Fit(ctx, Data{X: x, Y: vec(y)}, Options{}, &Resources{MemoryLimit: -1}); !errors.Is(err, ErrBadOption) {
		t.Errorf("negative memory limit: %v", err)
	}
}

func TestModelFileRoundTrip(t *testing.T) {
	ctx := context.Background()
	x, y := gaussData(60, 3, 5)
	z, _ := gaussData(7, 3, 6)
	m, err := Fit(ctx, Data{X: x, Y: vec(y), FeatureNames: []string{"a", "b", "c"}}, Options{Kernel: RBF{Width: 1.5}, Components: 6}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.validComponents() < 1 {
		t.Fatal("no components to round-trip")
	}
	var buf bytes.Buffer
	if err := m.save(&buf); err != nil {
		t.Fatal(err)
	}
	file := buf.Bytes()
	m2, err := loadModel(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	for comp := 0; comp <= m.validComponents(); comp++ {
		p1, err := m.predictAt(context.Background(), z, comp)
		if err != nil {
			t.Fatal(err)
		}
		p2, err := m2.predictAt(context.Background(), z, comp)
		if err != nil {
			t.Fatal(err)
		}
		b1, err := m.predictBands(ctx, z, comp, bandOpts{})
		if err != nil {
			t.Fatal(err)
		}
		b2, err := m2.predictBands(ctx, z, comp, bandOpts{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range p1 {
			if p1[i] != p2[i] || b1[i] != b2[i] {
				t.Fatalf("m=%d row %d: %v/%v before, %v/%v after loading", comp, i, p1[i], b1[i], p2[i], b2[i])
			}
		}
	}
	flipped := bytes.Clone(file)
	flipped[len(file)-5] ^= 1 // the last byte of the last array
	newer := bytes.Clone(file)
	newer[8] = 99 // the version in the prefix
	bad := map[string][]byte{
		"checksum":     flipped,
		"values, want": bytes.Replace(file, []byte(`"n":60`), []byte(`"n":61`), 1),
		"truncated":    file[:len(file)/2],
		"newer":        newer,
		"format":       []byte(`{"format":"something","version":1}`),
	}
	for want, b := range bad {
		if _, err := loadModel(bytes.NewReader(b)); !errors.Is(err, ErrModelFile) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v", want, err)
		}
	}
}

// namedOnly is a Kernel that cannot be evaluated.
type namedOnly string

func (k namedOnly) Name() string { return string(k) }

func hasWarning(ws []Warning, c WarningCode) bool {
	for _, w := range ws {
		if w.Code == c {
			return true
		}
	}
	return false
}
