package kpls

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// twoTargets returns inputs with two responses of different smoothness
// (a slow and a fast function of the same inputs, plus noise), so that a
// search for each alone chooses different widths and components.
func twoTargets(n int, seed uint64) (*mat.Dense, *mat.Dense) {
	r := rand.New(rand.NewPCG(seed, 7))
	x := mat.NewDense(n, 2, nil)
	y := mat.NewDense(n, 2, nil)
	for i := range n {
		a, b := 4*r.Float64()-2, 4*r.Float64()-2
		x.Set(i, 0, a)
		x.Set(i, 1, b)
		y.Set(i, 0, a+0.5*b+0.1*r.NormFloat64())
		y.Set(i, 1, math.Sin(4*a)*math.Cos(3*b)+0.05*r.NormFloat64())
	}
	return x, y
}

func column(y *mat.Dense, j int) []float64 { return mat.Col(nil, j, y) }

// TestFitTargets: every target's model from one shared kernel matrix is
// the model Fit gives for its column alone: the same statistics, DoF and
// predictions to 1e-10, on every storage kind.
func TestFitTargets(t *testing.T) {
	x, y := twoTargets(90, 1)
	z, _ := twoTargets(20, 2)
	ctx := context.Background()
	for _, s := range []Storage{StorageDense, StorageFloat32, StorageHybrid, StorageMatrixFree} {
		t.Run(string(s), func(t *testing.T) {
			o := Options{Components: 8, Seed: 3}
			res := &Resources{Storage: s}
			if s == StorageHybrid {
				res.MemoryLimit = 90 * 90 * 4 // half the matrix cached
			}
			names := []string{"slow", "fast"}
			models, err := FitTargets(ctx, Data{X: x, Y: y, TargetNames: names}, o, res)
			if err != nil {
				t.Fatal(err)
			}
			for j, m := range models {
				want, err := Fit(ctx, Data{X: x, Y: vec(column(y, j)), TargetNames: names[j : j+1]}, o, res)
				if err != nil {
					t.Fatal(err)
				}
				if got := m.Summary().TargetName; got != names[j] {
					t.Errorf("target %d records name %q", j, got)
				}
				if m.validComponents() != want.validComponents() || m.Chosen() != want.Chosen() {
					t.Fatalf("target %d: %d components, choice %+v; alone %d, %+v", j, m.validComponents(), m.Chosen(), want.validComponents(), want.Chosen())
				}
				for i, st := range m.Stats() {
					w := want.Stats()[i]
					if relErr(st.RSS, w.RSS) > 1e-10 || relErr(st.DoF, w.DoF) > 1e-10 {
						t.Errorf("target %d, m=%d: RSS %g DoF %g; alone %g %g", j, i, st.RSS, st.DoF, w.RSS, w.DoF)
					}
				}
				checkSamePredictions(t, m, want, z)
			}
		})
	}
}

// checkSamePredictions compares two models' predictions at every m, and
// their confidence bands at the chosen m.
func checkSamePredictions(t *testing.T, got, want *Model, z mat.Matrix) {
	t.Helper()
	ctx := context.Background()
	for m := 0; m <= want.validComponents(); m++ {
		p, err := got.predictAt(ctx, z, m)
		if err != nil {
			t.Fatal(err)
		}
		q, err := want.predictAt(ctx, z, m)
		if err != nil {
			t.Fatal(err)
		}
		if d := maxAbsDiff(p, q); d > 1e-10*(1+maxAbs(q)) {
			t.Errorf("m=%d: predictions differ by %g", m, d)
		}
	}
	c := want.Chosen().M
	bg, errG := got.predictBands(ctx, z, c, bandOpts{})
	bw, errW := want.predictBands(ctx, z, c, bandOpts{})
	if errW != nil {
		// The model alone has no bands here (an unknown DoF): neither
		// may the shared fit's.
		if !errors.Is(errG, ErrUnreliable) || !errors.Is(errW, ErrUnreliable) {
			t.Errorf("bands: %v; alone: %v", errG, errW)
		}
		return
	}
	if errG != nil {
		t.Fatal(errG)
	}
	for i := range bw {
		if relErr(bg[i].SE, bw[i].SE) > 1e-8 {
			t.Errorf("band %d: SE %g, alone %g", i, bg[i].SE, bw[i].SE)
		}
	}
}

func maxAbsDiff(a, b []float64) float64 {
	var d float64
	for i := range a {
		d = math.Max(d, math.Abs(a[i]-b[i]))
	}
	return d
}

func maxAbs(a []float64) float64 {
	var d float64
	for _, v := range a {
		d = math.Max(d, math.Abs(v))
	}
	return d
}

// TestSelectTargets: each target's selection from the shared search (one
// kernel matrix and one block product for every fold of every target) is
// the one Select makes for its column alone: the same table, grid points
// (the default widths extend differently for the two), choice and model,
// for cross-validation and a DoF criterion.
func TestSelectTargets(t *testing.T) {
	x, y := twoTargets(120, 3)
	z, _ := twoTargets(15, 4)
	ctx := context.Background()
	for _, c := range []Criterion{CV, GCV} {
		t.Run(string(c), func(t *testing.T) {
			so := SelectOptions{Isotropic: true, Seed: 5, Components: 4, DoF: DoFLanczos, By: c}
			sels, err := SelectTargets(ctx, Data{X: x, Y: y}, so, nil)
			if err != nil {
				t.Fatal(err)
			}
			var widths []float64
			for j, sel := range sels {
				alone, err := Select(ctx, Data{X: x, Y: vec(column(y, j))}, so, nil)
				if err != nil {
					t.Fatal(err)
				}
				if len(sel.Table) != len(alone.Table) {
					t.Fatalf("target %d: %d rows, alone %d", j, len(sel.Table), len(alone.Table))
				}
				for i, r := range sel.Table {
					a := alone.Table[i]
					if kernelLabel(r.Kernel) != kernelLabel(a.Kernel) || r.M != a.M ||
						relErr(r.Score(c), a.Score(c)) > 1e-10 {
						t.Fatalf("target %d row %d: %s m=%d %g; alone %s m=%d %g", j, i, kernelLabel(r.Kernel), r.M, r.Score(c), kernelLabel(a.Kernel), a.M, a.Score(c))
					}
				}
				if kernelLabel(sel.Best.Kernel) != kernelLabel(alone.Best.Kernel) || sel.Best.M != alone.Best.M {
					t.Fatalf("target %d chose %s m=%d, alone %s m=%d", j, kernelLabel(sel.Best.Kernel), sel.Best.M, kernelLabel(alone.Best.Kernel), alone.Best.M)
				}
				checkSamePredictions(t, sel.Model, alone.Model, z)
				widths = append(widths, sel.Best.Width())
			}
			if c == CV && widths[0] == widths[1] {
				t.Errorf("both targets chose width %g: the test does not exercise separate choices", widths[0])
			}
		})
	}
}

// TestSelectTargetsShared: with a shared kernel, every target gets the
// grid point with the smallest mean of 1 − Q² over the targets, each at
// its own best m there, computed from the targets' separate tables.
func TestSelectTargetsShared(t *testing.T) {
	x, y := twoTargets(100, 6)
	ctx := context.Background()
	widths := []float64{0.25, 1, 4}
	so := SelectOptions{Seed: 2, Components: 6, Kernels: []Kernel{RBF{}}, Widths: widths, MaxComponents: 12}
	var tables [][]SelectionRow
	for j := range 2 {
		alone, err := Select(ctx, Data{X: x, Y: vec(column(y, j))}, so, nil)
		if err != nil {
			t.Fatal(err)
		}
		tables = append(tables, alone.Table)
	}
	bestW, bestScore := 0.0, math.Inf(1)
	for _, w := range widths {
		var sum float64
		for _, tab := range tables {
			q := math.Inf(-1)
			for _, r := range tab {
				if r.Width() == w && r.Q2 > q {
					q = r.Q2
				}
			}
			sum += 1 - q
		}
		if sum < bestScore {
			bestW, bestScore = w, sum
		}
	}
	so.By = CrossValidation{SharedKernel: true}
	sels, err := SelectTargets(ctx, Data{X: x, Y: y}, so, nil)
	if err != nil {
		t.Fatal(err)
	}
	for j, sel := range sels {
		if sel.Best.Width() != bestW {
			t.Errorf("target %d: width %g, want the shared best %g", j, sel.Best.Width(), bestW)
		}
	}
	if sels[0].Best.M == sels[1].Best.M {
		t.Logf("both targets chose m = %d", sels[0].Best.M)
	}
}

func TestTargetsErrors(t *testing.T) {
	x, y := twoTargets(40, 8)
	ctx := context.Background()
	if _, err := FitTargets(ctx, Data{X: x, Y: y, TargetNames: []string{"a"}}, Options{}, nil); !errors.Is(err, ErrBadOption) {
		t.Errorf("one name for two columns: %v", err)
	}
	for i := range 40 {
		y.Set(i, 1, 3)
	}
	_, err := SelectTargets(ctx, Data{X: x, Y: y, TargetNames: []string{"a", "b"}}, SelectOptions{}, nil)
	if !errors.Is(err, ErrConstantY) || !strings.Contains(err.Error(), `target "b"`) {
		t.Errorf("a constant second target: %v", err)
	}
}
