package kpls

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/blas"
	"github.com/kpls-go/kpls/internal/kernelop"
)

// storageCases are the oracle cases (every kernel, n ≤ 60: one tile) and
// two with several tiles per strip and several strips, so that hybrid
// storage caches some tiles and recomputes others.
func storageCases() []oracleCase {
	bx, by := gaussData(700, 5, 21)
	return append(oracleCases(),
		oracleCase{"gauss5-700/rbf", bx, by, Options{Kernel: RBF{}}, []int{1, 5, 10}},
		oracleCase{"gauss5-700/matern32", bx, by, Options{Kernel: Matern{Nu: 1.5}}, []int{1, 5, 10}},
	)
}

// relDiff is ‖a − b‖/‖b‖ (‖a − b‖ when b = 0), NaN-safe: NaN anywhere
// gives +Inf.
func relDiff(a, b []float64) float64 {
	var num, den float64
	for i := range b {
		num += (a[i] - b[i]) * (a[i] - b[i])
		den += b[i] * b[i]
	}
	if den == 0 {
		den = 1
	}
	r := math.Sqrt(num / den)
	if math.IsNaN(r) {
		return math.Inf(1)
	}
	return r
}

// TestStorageReproducesDense fits every case with each storage and
// compares everything a user reads (coefficients α_m, RSS, DoF by the
// approx and Lanczos estimators, predictions at new points, confidence
// bands) with the dense float64 fit, whose own numbers the oracle tests
// check against finite differences and eigendecompositions. The float64
// kinds compute the same products in another order, so they must agree to
// 1e-10 (the bar; rounding differences amplified by the Krylov
// recurrence stay orders of magnitude below it for these conditionings).
// float32 storage must stay within 2 %, the bar the DoF estimators are
// held to.
func TestStorageReproducesDense(t *testing.T) {
	ctx := context.Background()
	zx, _ := gaussData(30, 5, 99)
	var direct, refit int // float32 fits compared as they are, and refitted in float64 by auto
	defer func() {
		if direct == 0 || refit == 0 {
			t.Errorf("float32 compared directly in %d fits and through auto's refit in %d: both paths need cases", direct, refit)
		}
	}()
	for _, c := range storageCases() {
		_, d := c.x.Dims()
		n, _ := c.x.Dims()
		z := zx
		if _, ok := c.o.Kernel.(Precomputed); ok {
			z = mat.NewDense(5, n, nil) // cross rows: the first rows of the Gram matrix
			z.Copy(c.x.Slice(0, 5, 0, n))
		} else {
			z = mat.DenseCopyOf(zx.Slice(0, 30, 0, d))
		}
		for _, dof := range []DoFMethod{DoFApprox, DoFLanczos} {
			o := c.o
			o.DoF = dof
			o.Components = c.ms[len(c.ms)-1]
			ref, err := Fit(ctx, Data{X: c.x, Y: vec(c.y)}, o, &Resources{Storage: StorageDense})
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			type kind struct {
				s     Storage
				limit int64
				tol   float64
			}
			kinds := []kind{
				{StorageMatrixFree, 0, 1e-10},
				{StorageHybrid, kernelop.DenseBytes(n) / 3, 1e-10},
				{StorageHybrid, kernelop.DenseBytes(n), 1e-10},
				{StorageFloat32, 0, 0.02},
			}
			if _, ok := o.Kernel.(Linear); ok {
				kinds = append(kinds, kind{StorageFeatures, 0, 1e-10})
			}
			for _, k := range kinds {
				t.Run(fmt.Sprintf("%s/%s/%s/limit=%d", c.name, dof, k.s, k.limit), func(t *testing.T) {
					res := Resources{Storage: k.s, MemoryLimit: k.limit}
					m, err := Fit(ctx, Data{X: c.x, Y: vec(c.y)}, o, &res)
					if err != nil {
						t.Fatal(err)
					}
					if m.storageKind() != k.s {
						t.Fatalf("storage %q, want %q", m.storageKind(), k.s)
					}
					if k.s == StorageFloat32 && m.stopped().Reason != StopNone && dof == DoFApprox {
						// Auto does not use float32 for the approximate DoF.
						res.Storage, res.MemoryLimit = StorageAuto, kernelop.DenseBytes(n)-1
						if m, err = Fit(ctx, Data{X: c.x, Y: vec(c.y)}, o, &res); err != nil {
							t.Fatal(err)
						}
						if s := m.storageKind(); s != StorageHybrid && s != StorageMatrixFree {
							t.Fatalf("auto with approximate DoF: storage %q, want hybrid or matrix-free", s)
						}
						k.tol = 1e-10
						refit++
					} else if k.s == StorageFloat32 && m.stopped().Reason != StopNone && dof == DoFLanczos {
						// Near breakdown float32 can move the stop, and the
						// DoF with it; the fit says it stopped, and auto
						// storage must not keep float32 as it is: it refits
						// on hybrid (float64) and reproduces dense, or, for
						// a resolution stop after all the components, runs
						// the remaining steps in float64 (TestFloat32Continuation).
						if !hasWarning(m.Warnings(), WarnStopped) {
							t.Fatalf("float32 stopped (%s) without a warning: %v", m.stopped().Message, m.Warnings())
						}
						// A continuation can itself stop short of the Lanczos
						// steps, which refits on hybrid too.
						cont := m.stopped().Reason == StopStorage && m.validComponents() == o.Components
						res.Storage, res.MemoryLimit = StorageAuto, kernelop.DenseBytes(n)-1
						if m, err = Fit(ctx, Data{X: c.x, Y: vec(c.y)}, o, &res); err != nil {
							t.Fatal(err)
						}
						s := m.storageKind()
						if !hasWarning(m.Warnings(), WarnStorage) || (s != StorageHybrid && s != StorageMatrixFree && !(cont && s == StorageFloat32)) {
							t.Fatalf("auto after a float32 stop: storage %q, warnings %v", s, m.Warnings())
						}
						if s != StorageFloat32 {
							k.tol = 1e-10
							refit++
						}
					} else if k.s == StorageFloat32 {
						direct++
					}
					if k.tol < 1e-9 && m.validComponents() != ref.validComponents() {
						t.Errorf("%d components, dense %d", m.validComponents(), ref.validComponents())
					}
					compareFits(t, ctx, m, ref, z, min(m.validComponents(), ref.validComponents()), k.tol, 0)
				})
			}
		}
	}
}

// TestFloat32Continuation covers wide kernels whose float32 fit has all
// its components but stops resolving its products among the extra Krylov
// steps. With the Lanczos DoF, auto keeps float32 for the components,
// runs the rest on matrix-free float64 products and says so; everything
// must then stay within float32's 2 % of the dense fit, and the fit must
// reach the steps asked for. With the approximate DoF auto does not use
// float32 at all (storageFor) and must reproduce dense: there float32's
// rounding keeps converged Ritz pairs from being deflated and the
// estimate scatters far wider, which the log shows for forced float32.
func TestFloat32Continuation(t *testing.T) {
	ctx := context.Background()
	x, y := gaussData(700, 5, 21)
	z, _ := gaussData(30, 5, 99)
	n, _ := x.Dims()
	for _, c := range []struct {
		width float64
		comp  int
	}{{50, 15}, {100, 12}, {300, 8}} {
		for _, dof := range []DoFMethod{DoFLanczos, DoFApprox} {
			t.Run(fmt.Sprintf("width=%g/m=%d/%s", c.width, c.comp, dof), func(t *testing.T) {
				o := Options{Kernel: RBF{Width: c.width}, Components: c.comp, Lanczos: 2*c.comp + 1, DoF: dof}
				res := Resources{Storage: StorageFloat32}
				forced, err := Fit(ctx, Data{X: x, Y: vec(y)}, o, &res)
				if err != nil {
					t.Fatal(err)
				}
				if st := forced.stopped(); st.Reason != StopStorage || forced.validComponents() != c.comp || st.Component > 2*c.comp+1 {
					t.Fatalf("the case needs a float32 resolution stop among the extra steps: %d components, stop %q", forced.validComponents(), st.Message)
				}
				res.Storage, res.MemoryLimit = StorageAuto, kernelop.DenseBytes(n)-1
				m, err := Fit(ctx, Data{X: x, Y: vec(y)}, o, &res)
				if err != nil {
					t.Fatal(err)
				}
				tol, dofTol := 0.02, 0.0
				if dof == DoFLanczos {
					if m.storageKind() != StorageFloat32 || !hasWarning(m.Warnings(), WarnStorage) || m.stopped().Reason != StopNone {
						t.Fatalf("auto: storage %q, stop %q, warnings %v", m.storageKind(), m.stopped().Message, m.Warnings())
					}
				} else {
					if m.storageKind() != StorageHybrid {
						t.Fatalf("auto with approximate DoF: storage %q, want hybrid", m.storageKind())
					}
					tol = 1e-10
				}
				res.Storage, res.MemoryLimit = StorageDense, 0
				ref, err := Fit(ctx, Data{X: x, Y: vec(y)}, o, &res)
				if err != nil {
					t.Fatal(err)
				}
				if dof == DoFApprox {
					// Hybrid sums the same products in another order, and on
					// these wide kernels the approximate DoF's recurrence of
					// degree 2m+1, through nearly singular directions,
					// amplifies rounding by up to about 1e7 (1.5e-10 and,
					// without assembly, 1.3e-9 at width 50). Its gauge: two
					// dense fits that differ only in their BLAS backend's
					// summation order. Hybrid must agree with dense within
					// ten times their spread, and never worse than 1e-7.
					res.Backend = blas.Gonum()
					alt, err := Fit(ctx, Data{X: x, Y: vec(y)}, o, &res)
					if err != nil {
						t.Fatal(err)
					}
					res.Backend = nil
					var spread float64
					for i, s := range alt.Stats() {
						if r := ref.Stats()[i].DoF; !math.IsNaN(r) {
							spread = math.Max(spread, math.Abs(s.DoF-r)/r)
						}
					}
					dofTol = min(1e-7, max(tol, 10*spread))
					t.Logf("dense backends' DoF spread %.2g: DoF tolerance %.2g", spread, dofTol)
				}
				compareFits(t, ctx, m, ref, z, c.comp, tol, dofTol)
				var worst, worstForced float64
				for i, s := range m.Stats() {
					if r := ref.Stats()[i].DoF; !math.IsNaN(r) {
						worst = math.Max(worst, math.Abs(s.DoF-r)/r)
						worstForced = math.Max(worstForced, math.Abs(forced.Stats()[i].DoF-r)/r)
					}
				}
				t.Logf("auto on %s: largest relative DoF difference from dense %.2g (forced float32: %.2g)", m.storageKind(), worst, worstForced)
			})
		}
	}
}

// compareFits compares m with the dense fit ref to tol, and the DoF to
// dofTol when that is larger.
func compareFits(t *testing.T, ctx context.Context, m, ref *Model, z *mat.Dense, comp int, tol, dofTol float64) {
	t.Helper()
	st, rst := m.Stats(), ref.Stats()
	dofTol = max(dofTol, tol)
	if m.Options().DoF == DoFLanczos {
		// The Lanczos DoF is reported as reliable while its own rounding
		// estimate stays below lanczosTol: the dense value is no more
		// accurate than that, so neither need the others be.
		dofTol = max(tol, lanczosTol)
	}
	for i := 0; i <= comp; i++ {
		a, _ := m.Alpha(i)
		ra, _ := ref.Alpha(i)
		// α is compared for the float64 kinds only: its coefficients are
		// ill-conditioned (predictions are what float32 must keep).
		if e := relDiff(a, ra); tol <= 1e-9 && !(e <= tol) {
			t.Errorf("α_%d differs by %.2g", i, e)
		}
		if e := math.Abs(st[i].RSS-rst[i].RSS) / rst[i].RSS; !(e <= tol) {
			t.Errorf("RSS_%d %g, dense %g (%.2g)", i, st[i].RSS, rst[i].RSS, e)
		}
		if math.IsNaN(rst[i].DoF) {
			continue
		}
		if e := math.Abs(st[i].DoF-rst[i].DoF) / rst[i].DoF; !(e <= dofTol) {
			t.Errorf("DoF_%d %g, dense %g (%.2g)", i, st[i].DoF, rst[i].DoF, e)
		}
	}
	p, err := m.predictEvery(ctx, z)
	if err != nil {
		t.Fatal(err)
	}
	rp, err := ref.predictEvery(ctx, z)
	if err != nil {
		t.Fatal(err)
	}
	rows, _ := z.Dims()
	for i := 0; i <= comp; i++ {
		// Relative to the predictions' spread about ȳ, which is what the
		// model says; ȳ itself is exact in every storage.
		a, b := make([]float64, rows), make([]float64, rows)
		for r := range rows {
			a[r], b[r] = p.At(r, i)-m.Intercept(), rp.At(r, i)-ref.Intercept()
		}
		if e := relDiff(a, b); i > 0 && !(e <= tol) {
			t.Errorf("predictions with m = %d differ by %.2g", i, e)
		}
	}
	bands, err := m.predictBands(ctx, z, comp, bandOpts{})
	rbands, rerr := ref.predictBands(ctx, z, comp, bandOpts{})
	if (err == nil) != (rerr == nil) {
		if errors.Is(rerr, ErrUnreliable) || errors.Is(err, ErrUnreliable) {
			if tol > 1e-9 {
				return // float32 may resolve fewer digits of the Ritz polynomial
			}
		}
		t.Fatalf("bands: %v, dense %v", err, rerr)
	}
	if err != nil {
		return
	}
	se, rse := make([]float64, len(bands)), make([]float64, len(bands))
	for i := range bands {
		se[i], rse[i] = bands[i].SE, rbands[i].SE
	}
	if e := relDiff(se, rse); !(e <= tol) {
		t.Errorf("band standard errors at m = %d differ by %.2g", comp, e)
	}
}

// TestStorageChoice checks the automatic choice against the byte counts
// it is made from, and that a loaded model rebuilds its kernel matrix in
// a storage that fits the limit it is given.
func TestStorageChoice(t *testing.T) {
	x, y := gaussData(600, 3, 5)
	n := 600
	cases := []struct {
		limit int64
		dof   DoFMethod
		want  Storage
	}{
		{kernelop.DenseBytes(n), DoFApprox, StorageDense},
		{kernelop.DenseBytes(n) - 1, DoFLanczos, StorageFloat32},
		{kernelop.DenseBytes(n) - 1, DoFNone, StorageFloat32},
		{kernelop.DenseBytes(n) - 1, DoFExact, StorageHybrid},  // exact DoF never on float32
		{kernelop.DenseBytes(n) - 1, DoFApprox, StorageHybrid}, // nor the approximate DoF
		{kernelop.Float32Bytes(n) - 1, DoFLanczos, StorageHybrid},
		{100 << 10, DoFApprox, StorageMatrixFree}, // not one 64×512 tile
		// The linear kernel through its inputs, whatever the limit.
		{kernelop.DenseBytes(n), DoFExact, StorageFeatures},
		{100 << 10, DoFApprox, StorageFeatures},
	}
	for _, c := range cases {
		var k Kernel = RBF{}
		if c.want == StorageFeatures {
			k = Linear{}
		}
		m, err := Fit(context.Background(), Data{X: x, Y: vec(y)}, Options{Kernel: k, DoF: c.dof, Components: 3}, &Resources{MemoryLimit: c.limit})
		if err != nil {
			t.Fatal(err)
		}
		if m.storageKind() != c.want {
			t.Errorf("limit %d, %s DoF: storage %q, want %q", c.limit, c.dof, m.storageKind(), c.want)
		}
	}
}

// TestSelectStorage runs Select with automatic storage under a limit that
// excludes dense, on the cases where float32 stops early (so auto refits
// on hybrid, also when a grid point is refitted with more components) and
// where it does not, and compares every row of the table with Select on
// dense storage.
func TestSelectStorage(t *testing.T) {
	ctx := context.Background()
	gx, gy := gaussData(50, 4, 11)
	bx, by := gaussData(700, 5, 21)
	for _, c := range []struct {
		name string
		x    *mat.Dense
		y    []float64
		so   SelectOptions
		dof  DoFMethod
		warn bool // a float32 fit stops early
		tol  float64
	}{
		{"polynomial/gcv", gx, gy, SelectOptions{Kernels: []Kernel{Polynomial{Degree: 2, Offset: 1}}, MaxComponents: 12, By: GCV}, DoFLanczos, true, lanczosTol},
		// The folds share one float32 matrix over all rows and, without
		// DoF, keep it where it stops early: their predictions are held
		// to float32's 1e-5 (docs/scale.md), not to the Lanczos DoF's.
		{"polynomial/cv", gx, gy, SelectOptions{Kernels: []Kernel{Polynomial{Degree: 2, Offset: 1}}, By: CV}, DoFLanczos, true, 1e-5},
		{"rbf/gcv", bx, by, SelectOptions{Kernels: []Kernel{RBF{}}, Widths: []float64{2, 4}, By: GCV}, DoFApprox, false, 0.02},
	} {
		t.Run(c.name, func(t *testing.T) {
			n, _ := c.x.Dims()
			so := c.so
			so.DoF = c.dof
			res := Resources{Storage: StorageDense}
			ref, err := Select(ctx, Data{X: c.x, Y: vec(c.y)}, so, &res)
			if err != nil {
				t.Fatal(err)
			}
			res.Storage, res.MemoryLimit = StorageAuto, kernelop.DenseBytes(n)-1
			sel, err := Select(ctx, Data{X: c.x, Y: vec(c.y)}, so, &res)
			if err != nil {
				t.Fatal(err)
			}
			if got := hasWarning(sel.Warnings, WarnStorage) || hasWarning(sel.Model.Warnings(), WarnStorage); got != c.warn {
				t.Errorf("storage warning %v, want %v: %v", got, c.warn, sel.Warnings)
			}
			// Cross-validation's folds, without DoF, keep float32 where it
			// stops early (their predictions stay within its rounding):
			// their table may end sooner; its rows must agree.
			if len(sel.Table) != len(ref.Table) && (c.so.By != CV || len(sel.Table) > len(ref.Table)) {
				t.Fatalf("%d rows, dense %d", len(sel.Table), len(ref.Table))
			}
			for i, r := range ref.Table[:len(sel.Table)] {
				g := sel.Table[i]
				for _, v := range [][2]float64{{g.RSS, r.RSS}, {g.DoF, r.DoF}, {g.RMSECV, r.RMSECV}} {
					if math.IsNaN(v[1]) && math.IsNaN(v[0]) {
						continue
					}
					if !(math.Abs(v[0]-v[1]) <= c.tol*math.Abs(v[1])) {
						t.Errorf("row %d (m = %d): %g, dense %g", i, r.M, v[0], v[1])
					}
				}
			}
			if sel.Best.M != ref.Best.M || sel.Best.Kernel != ref.Best.Kernel {
				t.Errorf("best %v m = %d, dense %v m = %d", sel.Best.Kernel, sel.Best.M, ref.Best.Kernel, ref.Best.M)
			}
		})
	}
}
