package kpls

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/internal/gram"
)

// naiveKernel is each built-in kernel written out from its definition,
// independently of the package's vectorised paths and of Eval.
func naiveKernel(k Kernel, a, b []float64) float64 {
	var dot, sq float64
	for i := range a {
		dot += a[i] * b[i]
		sq += (a[i] - b[i]) * (a[i] - b[i])
	}
	r := math.Sqrt(sq)
	switch k := k.(type) {
	case RBF:
		return math.Exp(-sq / (2 * k.Width))
	case Linear:
		return dot
	case Polynomial:
		return math.Pow(dot/float64(len(a))+k.Offset, float64(k.Degree))
	case Laplacian:
		return math.Exp(-r / k.Width)
	case Matern:
		if k.Nu == 1.5 {
			return (1 + math.Sqrt(3)*r/k.Width) * math.Exp(-math.Sqrt(3)*r/k.Width)
		}
		s := math.Sqrt(5) * r / k.Width
		return (1 + s + 5*sq/(3*k.Width*k.Width)) * math.Exp(-s)
	}
	panic("no naive form")
}

// TestBuiltinKernelsAgainstNaiveLoops compares the kernel matrices and
// cross matrices of every built-in kernel with the definitions, on the
// direct-difference (d < 24) and matrix-product (d ≥ 24) paths of the
// squared distances, and Eval with the same.
func TestBuiltinKernelsAgainstNaiveLoops(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, d := range []int{1, 5, 30} {
		n, m := 67, 9
		x := make([]float64, n*d)
		z := make([]float64, m*d)
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		for i := range z {
			z[i] = rng.NormFloat64()
		}
		copy(z[:d], x[3*d:4*d]) // a coincident point: distance exactly 0
		for _, k := range []Kernel{RBF{}, Linear{}, Polynomial{Degree: 3, Offset: 1}, Polynomial{Degree: 1},
			Laplacian{}, Laplacian{Width: 0.3}, Matern{Nu: 1.5}, Matern{}, Matern{Width: 7}} {
			k, err := resolveKernel(k, n, d)
			if err != nil {
				t.Fatal(err)
			}
			name := kernelLabel(k)
			kk := make([]float64, n*n)
			if err := kernelMatrix(context.Background(), kk, k, x, n, d); err != nil {
				t.Fatal(err)
			}
			c := make([]float64, m*n)
			crossKernel(c, k, z, m, gram.NewPoints(x, n, d))
			// The matrix product forms ‖a‖² + ‖b‖² − 2aᵀb: its error is a
			// few ulps of the squared spread (≈ 2d here) in the squared
			// distance, which √ turns into about √(eps·d) absolute near
			// r = 0 for the Laplacian and Matérn kernels.
			tol := 1e-12 * float64(d)
			if _, ok := WidthOf(k); ok && d >= 24 {
				tol = 1e-6
			}
			var compared int
			check := func(what string, got float64, a, b []float64) {
				want := naiveKernel(k, a, b)
				if !(math.Abs(got-want) <= tol*math.Max(1, math.Abs(want))) {
					t.Errorf("d=%d %s %s: %g, naive %g", d, name, what, got, want)
				}
				compared++
			}
			for i := range n {
				for j := range n {
					check("matrix", kk[i*n+j], x[i*d:i*d+d], x[j*d:j*d+d])
				}
			}
			for i := range m {
				for j := range n {
					check("cross", c[i*n+j], z[i*d:i*d+d], x[j*d:j*d+d])
				}
			}
			ev := k.(evaluator)
			for i := range m {
				check("Eval", ev.Eval(z[i*d:i*d+d], x[i*d:i*d+d]), z[i*d:i*d+d], x[i*d:i*d+d])
			}
			if compared != n*n+m*n+m {
				t.Fatalf("%s: compared %d values", name, compared)
			}
		}
	}
}

// TestKernelDefaults checks the documented defaults and that the command
// names parse to them.
func TestKernelDefaults(t *testing.T) {
	const n, d = 10, 9
	for _, c := range []struct {
		in, want Kernel
	}{
		{nil, RBF{Width: 4.5}},
		{RBF{}, RBF{Width: 4.5}},
		{Laplacian{}, Laplacian{Width: 3}},
		{Matern{}, Matern{Nu: 2.5, Width: 3}},
		{Matern{Nu: 1.5}, Matern{Nu: 1.5, Width: 3}},
		{Polynomial{}, Polynomial{Degree: 3}},
		{Linear{}, Linear{}},
	} {
		got, err := resolveKernel(c.in, n, d)
		if err != nil || got != c.want {
			t.Errorf("%v resolves to %v (%v), want %v", c.in, got, err, c.want)
		}
	}
	for _, name := range kernelNames {
		k, err := ParseKernel(strings.ToUpper(name))
		if err != nil || k.Name() != name {
			t.Errorf("ParseKernel(%q) = %v, %v", name, k, err)
		}
	}
	if k, _ := ParseKernel("polynomial"); k != (Polynomial{Degree: 3, Offset: 1}) {
		t.Errorf("the polynomial kernel's default is %v", k)
	}
	if _, err := ParseKernel("sigmoid"); !errors.Is(err, ErrKernel) {
		t.Errorf("an unknown kernel: %v", err)
	}
}

// TestKernelsRoundTripModelFiles saves and loads a model with each
// stored kernel and compares the kernel and the predictions; a Func
// kernel cannot be saved.
func TestKernelsRoundTripModelFiles(t *testing.T) {
	x, y := gaussData(40, 3, 21)
	q, _ := gaussData(5, 3, 22)
	for _, k := range []Kernel{RBF{Width: 1.3}, Linear{}, Polynomial{Degree: 2, Offset: 0.5}, Polynomial{Degree: 4},
		Laplacian{Width: 2}, Matern{Nu: 1.5}, Matern{Nu: 2.5, Width: 0.7}} {
		m, err := Fit(context.Background(), Data{X: x, Y: vec(y)}, Options{Kernel: k, Components: 3}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := m.save(&buf); err != nil {
			t.Fatal(err)
		}
		l, err := loadModel(&buf)
		if err != nil {
			t.Fatalf("%v: %v", k, err)
		}
		if got, want := l.Options().Kernel, m.Options().Kernel; got != want {
			t.Errorf("kernel %v loads as %v", want, got)
		}
		p1, _ := m.predictAt(context.Background(), q, 3)
		p2, err := l.predictAt(context.Background(), q, 3)
		if err != nil {
			t.Fatal(err)
		}
		for i := range p1 {
			if p1[i] != p2[i] {
				t.Errorf("%v: prediction %d is %g after loading, %g before", k, i, p2[i], p1[i])
			}
		}
	}
	// Precomputed: the file holds the training kernel matrix.
	g := naiveGram(x, cauchy)
	m, err := Fit(context.Background(), Data{X: g, Y: vec(y)}, Options{Kernel: Precomputed{}, Components: 3}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := m.save(&buf); err != nil {
		t.Fatal(err)
	}
	if l, err := loadModel(&buf); err != nil || l.Options().Kernel != (Precomputed{}) {
		t.Fatalf("precomputed: %v", err)
	}
	f, err := Fit(context.Background(), Data{X: x, Y: vec(y)}, Options{Kernel: Func{Label: "cauchy", K: cauchy}, Components: 3}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.save(&buf); !errors.Is(err, ErrKernel) {
		t.Errorf("saving a Func kernel: %v", err)
	}
}

// TestOldModelFilesLoad reads files written by format version 2 (the
// kernel as a name with a separate width) and predicts what that version
// predicted (predictions-v2.json, written by it).
func TestOldModelFilesLoad(t *testing.T) {
	raw, err := os.ReadFile("testdata/oldformat/predictions-v2.json")
	if err != nil {
		t.Fatal(err)
	}
	var want map[string][]float64
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	q := mat.NewDense(3, 2, []float64{0.5, 0.1, 2.5, -0.7, 4, 0.9})
	kernels := map[string]Kernel{"rbf": RBF{Width: 1.5}, "linear": Linear{}}
	if len(want) != len(kernels) {
		t.Fatalf("predictions for %d models, want %d", len(want), len(kernels))
	}
	for name, k := range kernels {
		f, err := os.Open("testdata/oldformat/model-v2-" + name + ".json")
		if err != nil {
			t.Fatal(err)
		}
		m, err := loadModel(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := m.Options().Kernel; got != k {
			t.Errorf("%s: kernel %v, want %v", name, got, k)
		}
		p, err := m.predictAt(context.Background(), q, m.validComponents())
		if err != nil {
			t.Fatal(err)
		}
		if len(p) != len(want[name]) {
			t.Fatalf("%s: %d predictions, want %d", name, len(p), len(want[name]))
		}
		for i := range p {
			if math.Abs(p[i]-want[name][i]) > 1e-12*math.Max(1, math.Abs(want[name][i])) {
				t.Errorf("%s row %d: %g, version 2 predicted %g", name, i, p[i], want[name][i])
			}
		}
	}
}

// TestApproxDoFNewKernels holds the approximate DoF of the new kernels to
// the exact DoF (the cubic oracle checked against finite differences in
// TestExactDoFFiniteDifferences) within the 2 % bar of the DoF test bed
// or its own ±3 standard errors.
func TestApproxDoFNewKernels(t *testing.T) {
	x, y := gaussData(300, 5, 31)
	for _, k := range []Kernel{Laplacian{}, Matern{Nu: 1.5}, Matern{}, Polynomial{Degree: 2, Offset: 1}, Func{Label: "cauchy", K: cauchy}} {
		comp := 25
		if f := featureDim(k, 5); f > 0 {
			comp = f - 5 // below the feature space's dimension, 20
		}
		o := Options{Kernel: k, Components: comp, Seed: 1}
		ap, err := Fit(context.Background(), Data{X: x, Y: vec(y)}, o, nil)
		if err != nil {
			t.Fatal(err)
		}
		o.DoF = DoFExact
		ex, err := Fit(context.Background(), Data{X: x, Y: vec(y)}, o, nil)
		if err != nil {
			t.Fatal(err)
		}
		se, sx := ap.Stats(), ex.Stats()
		var compared int
		for i := 1; i < min(len(se), len(sx)); i++ {
			// Within the bar, or within three of its own standard errors:
			// near breakdown (the polynomial kernel's fit stops at 15 of
			// its 20 dimensions) it says how little it knows.
			if e := math.Abs(se[i].DoF - sx[i].DoF); !(e <= 0.02*sx[i].DoF || e <= 3*se[i].DoFSE) {
				t.Errorf("%s m=%d: approx DoF %.6g ± %.2g, exact %.6g", k.Name(), i, se[i].DoF, se[i].DoFSE, sx[i].DoF)
			}
			compared++
		}
		if compared < 10 {
			t.Errorf("%s: only %d components compared", k.Name(), compared)
		}
	}
}
