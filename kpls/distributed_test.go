package kpls

import (
	"context"
	"fmt"
	"math"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/internal/localcomm"
)

// onRanks runs f on size goroutine ranks, each with the communicator
// that makes its fits (Resources.Comm) build their kernel matrix
// distributed over the group, and returns each rank's result.
func onRanks[R any](t *testing.T, size int, f func(comm Comm) (R, error)) []R {
	t.Helper()
	comms := localcomm.New(size)
	out := make([]R, size)
	errs := make([]error, size)
	var wg sync.WaitGroup
	for p := range size {
		wg.Go(func() { out[p], errs[p] = f(comms[p]) })
	}
	wg.Wait()
	for p, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", p, err)
		}
	}
	return out
}

// TestDistributedFitReproducesOneProcess fits over 1, 2 and 3 ranks
// (matrix-free, and with each rank's share cached) and compares what a user
// reads, RSS and DoF (approximate, Lanczos and exact) per m, the coefficients,
// predictions at new points and confidence bands, with the one-process
// dense fit, to 1e-10. Every rank's model must be the same bits as rank 0's.
func TestDistributedFitReproducesOneProcess(t *testing.T) {
	nx, _ := gaussData(40, 5, 32)
	for _, c := range []struct {
		dof  DoFMethod
		rows int
	}{{DoFApprox, 700}, {DoFLanczos, 700}, {DoFExact, 150}} {
		dof := c.dof
		x, y := gaussData(c.rows, 5, 31)
		opts := Options{Kernel: RBF{}, Components: 12, DoF: dof, Seed: 5}
		ref, err := Fit(context.Background(), Data{X: x, Y: vec(y)}, opts, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, size := range []int{1, 2, 3} {
			for _, s := range []Storage{StorageMatrixFree, StorageDense} {
				t.Run(fmt.Sprintf("dof=%s/ranks=%d/storage=%s", dof, size, s), func(t *testing.T) {
					o := opts
					type fitted struct {
						m     *Model
						bands []bandValue
					}
					// Bands multiply by the kernel matrix too, so every rank asks for them.
					res := onRanks(t, size, func(comm Comm) (fitted, error) {
						ctx := context.Background()
						m, err := Fit(ctx, Data{X: x, Y: vec(y)}, o, &Resources{Storage: s, Comm: comm})
						if err != nil {
							return fitted{}, err
						}
						b, err := m.predictBands(ctx, nx, 10, bandOpts{})
						return fitted{m, b}, err
					})
					for p, r := range res {
						compareModels(t, fmt.Sprint("rank ", p), r.m, res[0].m, nx, 0)
						compareBands(t, fmt.Sprint("rank ", p), r.bands, res[0].bands, 0)
					}
					compareModels(t, "one process", res[0].m, ref, nx, 1e-10)
					wb, err := ref.predictBands(context.Background(), nx, 10, bandOpts{})
					if err != nil {
						t.Fatal(err)
					}
					compareBands(t, "one process", res[0].bands, wb, 1e-10)
				})
			}
		}
	}
}

// TestDistributedSelectReproducesOneProcess runs cross-validation (the
// folds in lock-step on one kernel matrix per width) over 2 and 3 ranks
// and compares every cell's RMSECV and the choice with one process's.
func TestDistributedSelectReproducesOneProcess(t *testing.T) {
	x, y := gaussData(300, 4, 33)
	// Given widths and at most 40 components: the default search reaches
	// width 16 and m = 79 on these data, where so many Krylov steps on a
	// wide kernel amplify the order of the products' sums to 1e-10 of
	// RMSECV (seen on the generic kernels with 3 ranks).
	so := SelectOptions{Isotropic: true, Seed: 2, DoF: DoFNone, Kernels: []Kernel{RBF{}}, Widths: []float64{1, 2, 4}, MaxComponents: 40}
	ref, err := Select(context.Background(), Data{X: x, Y: vec(y)}, so, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, size := range []int{2, 3} {
		sels := onRanks(t, size, func(comm Comm) (*Selection, error) {
			return Select(context.Background(), Data{X: x, Y: vec(y)}, so, &Resources{Comm: comm})
		})
		for p, sel := range sels {
			if len(sel.Table) != len(ref.Table) || sel.Best.Width() != ref.Best.Width() || sel.Best.M != ref.Best.M {
				t.Fatalf("ranks=%d rank %d: %d cells, best width %v m %d; one process: %d, %v, %d",
					size, p, len(sel.Table), sel.Best.Width(), sel.Best.M, len(ref.Table), ref.Best.Width(), ref.Best.M)
			}
			for i, r := range sel.Table {
				if w := ref.Table[i].RMSECV; !(math.Abs(r.RMSECV-w) <= 1e-10*w) {
					t.Fatalf("ranks=%d rank %d: cell %d (width %v, m %d) RMSECV %v, one process %v", size, p, i, r.Width(), r.M, r.RMSECV, w)
				}
			}
		}
	}
}

// TestDistributedSelectMeanRides: over ranks, the fits to all rows ride in
// the folds' block products as on one process (whose dense matrix they
// ride too, with the threshold lowered): the same passes, the same
// members at the same m, and each member predicts as one process's to
// 1e-9 (the ranks sum the products in another order).
func TestDistributedSelectMeanRides(t *testing.T) {
	x, y := gaussData(300, 4, 33)
	z, _ := gaussData(20, 4, 34)
	defer func(r int) { rideMinRows = r }(rideMinRows)
	rideMinRows = 100
	so := SelectOptions{Isotropic: true, Seed: 2, Kernels: []Kernel{RBF{}}, Widths: []float64{1, 2, 4}, MaxComponents: 40, By: CrossValidation{AverageWithin: 0.5, AverageBy: AverageAll}}
	ref, err := Select(context.Background(), Data{X: x, Y: vec(y)}, so, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ref.mean() == nil || len(ref.mean().Members()) < 2 {
		t.Fatal("one process: no mean of several models")
	}
	sels := onRanks(t, 2, func(comm Comm) (*Selection, error) {
		return Select(context.Background(), Data{X: x, Y: vec(y)}, so, &Resources{Comm: comm})
	})
	for p, sel := range sels {
		if sel.Passes != ref.Passes {
			t.Errorf("rank %d: %d passes, one process %d", p, sel.Passes, ref.Passes)
		}
		got, want := sel.mean().Members(), ref.mean().Members()
		if len(got) != len(want) {
			t.Fatalf("rank %d: %d members, one process %d", p, len(got), len(want))
		}
		for k, m := range got {
			c := m.Chosen().M
			if w := want[k]; c != w.Chosen().M || m.Options().Kernel != w.Options().Kernel {
				t.Fatalf("rank %d: member %d is %v at m = %d, one process %v at m = %d", p, k+1, m.Options().Kernel, c, w.Options().Kernel, w.Chosen().M)
			}
			g, err := m.predictAt(context.Background(), z, c)
			if err != nil {
				t.Fatal(err)
			}
			w, err := want[k].predictAt(context.Background(), z, c)
			if err != nil {
				t.Fatal(err)
			}
			if d := relDiff(g, w); !(d <= 1e-9) {
				t.Errorf("rank %d: member %d predicts %.3g apart from one process's", p, k+1, d)
			}
		}
	}
}

func compareBands(t *testing.T, what string, got, want []bandValue, tol float64) {
	t.Helper()
	flat := func(bs []bandValue) []float64 {
		var f []float64
		for _, b := range bs {
			f = append(f, b.Yhat, b.SE)
		}
		return f
	}
	g, w := flat(got), flat(want)
	if d := relDiff(g, w); len(g) != len(w) || tol == 0 && d != 0 || !(d <= tol) {
		t.Fatalf("%s: bands differ (relative %.3g)", what, d)
	}
}

// compareModels checks got against want: per-m RSS and DoF, α, predictions
// and bands at nx, to tol relative (0: the same bits).
func compareModels(t *testing.T, what string, got, want *Model, nx mat.Matrix, tol float64) {
	t.Helper()
	near := func(name string, a, b []float64) {
		t.Helper()
		for i := range b {
			if tol == 0 && math.Float64bits(a[i]) != math.Float64bits(b[i]) || tol > 0 && !(relDiff(a, b) <= tol) {
				t.Fatalf("%s: %s differs: %v against %v (relative %.3g)", what, name, a[i], b[i], relDiff(a, b))
			}
		}
	}
	gs, ws := got.Stats(), want.Stats()
	if len(gs) != len(ws) {
		t.Fatalf("%s: %d components, want %d", what, len(gs), len(ws))
	}
	for m := range ws {
		near(fmt.Sprintf("m=%d rss, dof", m), []float64{gs[m].RSS, gs[m].DoF}, []float64{ws[m].RSS, ws[m].DoF})
	}
	ctx := context.Background()
	for _, comp := range []int{1, len(ws) / 2, len(ws) - 1} {
		ga, err := got.Alpha(comp)
		if err != nil {
			t.Fatal(err)
		}
		wa, _ := want.Alpha(comp)
		near(fmt.Sprintf("α_%d", comp), ga, wa)
		gp, err := got.predictAt(ctx, nx, comp)
		if err != nil {
			t.Fatal(err)
		}
		wp, _ := want.predictAt(ctx, nx, comp)
		near(fmt.Sprintf("predictions at m=%d", comp), gp, wp)
	}
}
