package kpls

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	m, err := Fit(context.Background(), x, y, Options{Kernel: Linear{}, Components: 5, DoF: DoFExact})
	if err != nil {
		t.Fatal(err)
	}
	var worstDoF, worstRSS, worstFit float64
	for k, st := range m.Stats() {
		worstDoF = math.Max(worstDoF, relErr(st.DoFClipped, ref.Fit.DoF[k]))
		worstRSS = math.Max(worstRSS, relErr(st.RSS, ref.Fit.RSS[k]))
		p, err := m.Predict(context.Background(), x, k)
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range p {
			worstFit = math.Max(worstFit, math.Abs(v-ref.Fit.Yhat[k][i])/math.Max(1, math.Abs(ref.Fit.Yhat[k][i])))
		}
	}
	t.Logf("max rel error vs plsdof: DoF %.2g, RSS %.2g, fitted %.2g", worstDoF, worstRSS, worstFit)
	if worstDoF > 1e-8 || worstRSS > 1e-10 || worstFit > 1e-10 {
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
				m, err := Fit(context.Background(), rc.x, rc.y, o)
				if err != nil {
					t.Fatal(err)
				}
				stats := m.Stats()
				for _, c := range []Criterion{AIC, BIC, GMDL} {
					ref := s.IC.Exact[string(c)]
					var worst float64
					for k, want := range ref.Score {
						if want == nil || k >= len(stats) {
							continue
						}
						e := math.Abs(stats[k].Score(c)-*want) / math.Max(1, math.Abs(*want))
						worst = math.Max(worst, e)
					}
					if worst > 1e-7 {
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

// TestBreakdown: sinc with width 1 asked for 30 components stops near 16,
// says so, and reports no DoF past the point where it is reliable.
func TestBreakdown(t *testing.T) {
	rc := loadRef(t, "sinc_100")
	for _, dof := range []DoFMethod{DoFExact, DoFLanczos} {
		m, err := Fit(context.Background(), rc.x, rc.y, Options{Kernel: RBF{Width: 1}, RawFeatures: true, Components: 30, DoF: dof})
		if err != nil {
			t.Fatal(err)
		}
		if c := m.Components(); c != 16 {
			t.Errorf("%s: %d valid components, want 16 (the reference: the Ritz values span more than 1e9 past it)", dof, c)
		}
		if !hasWarning(m.Warnings(), WarnFewerComponents) || !hasWarning(m.Warnings(), WarnStopped) {
			t.Errorf("%s: no warning about the breakdown: %q", dof, m.Warnings())
		}
		if s := m.Stop(); s.Reason != StopRitzSpread || s.Component != 17 {
			t.Errorf("%s: stop %+v, want the Ritz spread at component 17", dof, s)
		}
		// Every DoF reported must match the high-precision reference.
		var s refSetting
		for _, st := range rc.Settings {
			if st.Key == "rbf_w1" {
				s = st
			}
		}
		for k, st := range m.Stats() {
			if math.IsNaN(st.DoF) {
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
			if e := relErr(st.DoF, *want); e > 1e-3 {
				t.Errorf("%s m=%d: DoF %.8g, reference %.8g", dof, k, st.DoF, *want)
			}
		}
		if _, err := m.Predict(context.Background(), rc.x, m.Components()+1); !errors.Is(err, ErrComponents) {
			t.Errorf("prediction past the valid components: %v", err)
		}
	}
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
		{"one probe", x, y, Options{Kernel: RBF{Width: 1}, Probes: 1}, ErrBadOption, "1 probes"},
		{"negative probes", x, y, Options{Kernel: RBF{Width: 1}, Probes: -3}, ErrBadOption, "-3 probes"},
		{"kernel", x, y, Options{Kernel: namedOnly("poly")}, ErrKernel, "poly"},
		{"dof", x, y, Options{DoF: "magic"}, ErrDoFMethod, "magic"},
		{"linear too many", x, y, Options{Kernel: Linear{}, Components: 2}, ErrComponents, "at most 1"},
		{"constant features", mat.NewDense(5, 1, []float64{1, 1, 1, 1, 1}), []float64{1, 2, 3, 4, 5}, Options{}, ErrDegenerate, "constant"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Fit(ctx, c.x, c.y, c.o)
			if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("got %v, want %v mentioning %q", err, c.want, c.msg)
			}
		})
	}
	m, err := Fit(ctx, x, y, Options{Components: 3})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Predict(context.Background(), mat.NewDense(2, 2, nil), 1); !errors.Is(err, ErrShape) {
		t.Errorf("wrong feature count: %v", err)
	}
	if _, err := m.Predict(context.Background(), nan, 1); !errors.Is(err, ErrNonFinite) {
		t.Errorf("NaN input: %v", err)
	}
	lin, err := Fit(ctx, x, y, Options{Kernel: Linear{}, Components: 1, RawFeatures: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lin.Predict(context.Background(), mat.NewDense(1, 1, []float64{1e308}), 1); !errors.Is(err, ErrNonFinite) || !strings.Contains(err.Error(), "row 1") {
		t.Errorf("overflowing linear prediction: %v", err)
	}
	for _, lv := range []float64{-0.1, 1, 1.5, math.NaN()} {
		if _, err := m.PredictBands(ctx, x, 1, BandOptions{Level: lv}); !errors.Is(err, ErrLevel) {
			t.Errorf("level %g: %v", lv, err)
		}
	}
	old := maxKernelBytes
	maxKernelBytes = func() uint64 { return 1000 }
	defer func() { maxKernelBytes = old }()
	if _, err := Fit(ctx, x, y, Options{}); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "GB") {
		t.Errorf("kernel too large: %v", err)
	}
}

func TestModelFileRoundTrip(t *testing.T) {
	ctx := context.Background()
	x, y := gaussData(60, 3, 5)
	z, _ := gaussData(7, 3, 6)
	m, err := Fit(ctx, x, y, Options{Kernel: RBF{Width: 1.5}, Components: 6, FeatureNames: []string{"a", "b", "c"}})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := m.Save(&buf); err != nil {
		t.Fatal(err)
	}
	file := buf.Bytes()
	m2, err := Load(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	for comp := 0; comp <= m.Components(); comp++ {
		p1, _ := m.Predict(context.Background(), z, comp)
		p2, err := m2.Predict(context.Background(), z, comp)
		if err != nil {
			t.Fatal(err)
		}
		b1, _ := m.PredictBands(ctx, z, comp, BandOptions{})
		b2, err := m2.PredictBands(ctx, z, comp, BandOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range p1 {
			if p1[i] != p2[i] || b1[i] != b2[i] {
				t.Fatalf("m=%d row %d: %v/%v before, %v/%v after loading", comp, i, p1[i], b1[i], p2[i], b2[i])
			}
		}
	}
	bad := map[string][]byte{
		"checksum": bytes.Replace(file, []byte(`"n":60`), []byte(`"n":61`), 1),
		"JSON":     file[:len(file)/2],
		"newer":    bytes.Replace(file, []byte(fmt.Sprintf(`"version":%d`, FormatVersion)), []byte(`"version":99`), 1),
		"format":   []byte(`{"format":"something","version":1}`),
	}
	for want, b := range bad {
		if _, err := Load(bytes.NewReader(b)); !errors.Is(err, ErrModelFile) || !strings.Contains(err.Error(), want) {
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
