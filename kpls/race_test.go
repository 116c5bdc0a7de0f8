package kpls

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"
)

// raceData returns n seeded points in d dimensions with a smooth response.
func raceData(n, d int, seed uint64) (*mat.Dense, []float64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	x := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := range y {
		s := 0.0
		for j := 0; j < d; j++ {
			v := 4*rng.Float64() - 2
			x.Set(i, j, v)
			s += math.Sin(float64(j+1) * v)
		}
		y[i] = s + 0.1*rng.NormFloat64()
	}
	return x, y
}

// raceReload round-trips m through its file format, giving a model whose
// centred kernel matrix has not been built yet.
func raceReload(t *testing.T, m *Model) *Model {
	t.Helper()
	var buf bytes.Buffer
	if err := m.save(&buf); err != nil {
		t.Fatal(err)
	}
	loaded, err := loadModel(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return loaded
}

// raceResult is everything one goroutine computes on one model.
type raceResult struct {
	pred  [][]float64   // by component
	bands [][]bandValue // by component
}

// raceWork computes predictions and bands for every component, starting
// with the bands so that the first call on a loaded model builds its
// kernel matrix. Components are visited from start, wrapping around, so
// that goroutines ask for different things at the same time.
func raceWork(m *Model, x mat.Matrix, start int) (raceResult, error) {
	nc := m.validComponents() + 1
	r := raceResult{pred: make([][]float64, nc), bands: make([][]bandValue, nc)}
	for i := range nc {
		c := (start + i) % nc
		b, err := m.predictBands(context.Background(), x, c, bandOpts{Level: 0.98})
		if err != nil {
			return r, err
		}
		p, err := m.predictAt(context.Background(), x, c)
		if err != nil {
			return r, err
		}
		r.bands[c], r.pred[c] = b, p
	}
	return r, nil
}

func sameBit(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }

func raceCompare(t *testing.T, who string, got, want raceResult) {
	t.Helper()
	for c := range want.pred {
		for i, w := range want.pred[c] {
			if !sameBit(got.pred[c][i], w) {
				t.Errorf("%s: Predict m=%d row %d: %v, serially %v", who, c, i, got.pred[c][i], w)
				return
			}
		}
		for i, w := range want.bands[c] {
			g := got.bands[c][i]
			if !sameBit(g.Yhat, w.Yhat) || !sameBit(g.SE, w.SE) || !sameBit(g.Lower, w.Lower) || !sameBit(g.Upper, w.Upper) {
				t.Errorf("%s: PredictBands m=%d row %d: %+v, serially %+v", who, c, i, g, w)
				return
			}
		}
	}
}

// TestRaceConcurrentPredict checks that a model is safe for concurrent use:
// 16 goroutines predict with and without bands, the first band requests
// racing for the lazy kernel build of a freshly loaded model, and every
// result equals, bit for bit, the serial one. Run it with -race.
func TestRaceConcurrentPredict(t *testing.T) {
	const goroutines = 16
	x, y := raceData(200, 3, 1)
	fitted, err := Fit(context.Background(), Data{X: x, Y: vec(y)}, Options{Components: 6}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if fitted.validComponents() < 2 {
		t.Fatalf("only %d components: the test needs several", fitted.validComponents())
	}
	z, _ := raceData(37, 3, 2) // more than one row, fewer than a band chunk

	want, err := raceWork(raceReload(t, fitted), z, 0)
	if err != nil {
		t.Fatal(err)
	}
	// The fitted model predicts the same as its reloaded copy.
	fresh, err := raceWork(fitted, z, 0)
	if err != nil {
		t.Fatal(err)
	}
	for c := range want.pred {
		for i := range want.pred[c] {
			if !sameBit(fresh.pred[c][i], want.pred[c][i]) {
				t.Fatalf("Predict m=%d row %d: fitted %v, loaded %v", c, i, fresh.pred[c][i], want.pred[c][i])
			}
			if d := math.Abs(fresh.bands[c][i].SE - want.bands[c][i].SE); !(d <= 1e-9*want.bands[c][i].SE) {
				t.Fatalf("PredictBands m=%d row %d: se fitted %v, loaded %v", c, i, fresh.bands[c][i].SE, want.bands[c][i].SE)
			}
		}
	}

	for _, tc := range []struct {
		name  string
		model func() *Model
		want  raceResult
	}{
		{"loaded", func() *Model { return raceReload(t, fitted) }, want},
		{"fitted", func() *Model { return fitted }, fresh},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := tc.model()
			got := make([]raceResult, goroutines)
			errs := make([]error, goroutines)
			start := make(chan struct{})
			var wg sync.WaitGroup
			for g := range goroutines {
				wg.Go(func() {
					<-start
					got[g], errs[g] = raceWork(m, z, g)
				})
			}
			close(start)
			wg.Wait()
			for g := range goroutines {
				if errs[g] != nil {
					t.Fatalf("goroutine %d: %v", g, errs[g])
				}
				raceCompare(t, tc.name, got[g], tc.want)
			}
		})
	}
}

// TestRaceRowIndependence checks that single-row requests agree with the
// same rows inside a batch. Not bit for bit: one row and many take
// different matrix–vector paths, which round differently.
func TestRaceRowIndependence(t *testing.T) {
	x, y := raceData(200, 3, 1)
	m, err := Fit(context.Background(), Data{X: x, Y: vec(y)}, Options{Components: 4}, nil)
	if err != nil {
		t.Fatal(err)
	}
	z, _ := raceData(300, 3, 3) // crosses Predict's and the bands' chunk boundaries
	c := m.validComponents()
	all, err := m.predictAt(context.Background(), z, c)
	if err != nil {
		t.Fatal(err)
	}
	allB, err := m.predictBands(context.Background(), z, c, bandOpts{})
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 1, 127, 128, 255, 256, 299} {
		row := mat.NewDense(1, 3, mat.Row(nil, i, z))
		one, err := m.predictAt(context.Background(), row, c)
		if err != nil {
			t.Fatal(err)
		}
		if !(math.Abs(one[0]-all[i]) <= 1e-12*math.Max(1, math.Abs(all[i]))) {
			t.Errorf("Predict row %d: alone %v, in a batch %v", i, one[0], all[i])
		}
		oneB, err := m.predictBands(context.Background(), row, c, bandOpts{})
		if err != nil {
			t.Fatal(err)
		}
		if !(math.Abs(oneB[0].SE-allB[i].SE) <= 1e-12*allB[i].SE && math.Abs(oneB[0].Yhat-allB[i].Yhat) <= 1e-12*math.Max(1, math.Abs(allB[i].Yhat))) {
			t.Errorf("PredictBands row %d: alone %+v, in a batch %+v", i, oneB[0], allB[i])
		}
	}
}

// TestRaceCancelFit cancels a fit from its progress callback after the
// first component and expects context.Canceled back promptly.
func TestRaceCancelFit(t *testing.T) {
	x, y := raceData(1500, 3, 4)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var cancelled time.Time
	m, err := Fit(ctx, Data{X: x, Y: vec(y)}, Options{Components: 20, DoF: DoFExact}, &Resources{Progress: func(p Progress) {
		if p.Stage == "fit" && p.Done >= 1 && cancelled.IsZero() {
			cancelled = time.Now()
			cancel()
		}
	}})
	if cancelled.IsZero() {
		t.Fatal("Progress never reported the first component")
	}
	lag := time.Since(cancelled)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Fit after cancel: model %v, error %v; want context.Canceled", m != nil, err)
	}
	if m != nil {
		t.Error("Fit returned a model along with its error")
	}
	// One more component (an n×n matvec) at most, not the cubic exact DoF.
	if lag > time.Second {
		t.Errorf("Fit returned %v after the cancel", lag)
	}
}

// TestRaceCancelBands asks for bands with a context that is already
// cancelled, on a loaded model whose kernel matrix is not built yet, and
// then with a live context: the cancel must not poison the model.
func TestRaceCancelBands(t *testing.T) {
	x, y := raceData(200, 3, 1)
	fitted, err := Fit(context.Background(), Data{X: x, Y: vec(y)}, Options{Components: 4}, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := raceReload(t, fitted)
	z, _ := raceData(5, 3, 2)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for c := 0; c <= m.validComponents(); c++ {
		if _, err := m.predictBands(ctx, z, c, bandOpts{}); !errors.Is(err, context.Canceled) {
			t.Errorf("PredictBands m=%d with a cancelled context: %v, want context.Canceled", c, err)
		}
	}
	if _, err := m.trainingBands(ctx, 1, bandOpts{}); !errors.Is(err, context.Canceled) {
		t.Errorf("TrainingBands with a cancelled context: %v, want context.Canceled", err)
	}
	b, err := m.predictBands(context.Background(), z, m.validComponents(), bandOpts{})
	if err != nil || len(b) != 5 {
		t.Fatalf("PredictBands after a cancelled call: %v", err)
	}
}

// TestRaceReverseBandsAndMean: the bands' reverse path (a weighted fit
// past the Ritz form, whose refit Krylov steps are computed on first use)
// and a mean of two such models are safe for concurrent use: 8 goroutines
// on a freshly loaded file get, bit for bit, the serial results.
func TestRaceReverseBandsAndMean(t *testing.T) {
	const goroutines = 8
	ctx := context.Background()
	x, y := raceData(150, 2, 3)
	w := make([]float64, 150)
	for i := range w {
		w[i] = float64(1 + i%3)
	}
	var members []*Model
	for _, width := range []float64{0.5, 1} {
		m, err := Fit(ctx, Data{X: x, Y: vec(y), Weights: w}, Options{Kernel: RBF{Width: width}, Components: 22, DoF: DoFExact}, nil)
		if err != nil {
			t.Fatal(err)
		}
		members = append(members, m)
	}
	mean, err := NewMean(members...)
	if err != nil {
		t.Fatal(err)
	}
	var file bytes.Buffer
	if err := saveMeans(&file, nil, []*Mean{mean}); err != nil {
		t.Fatal(err)
	}
	z, _ := raceData(9, 2, 4)
	work := func(a *Mean) ([]bandValue, error) {
		ms := a.Members()
		if _, err := ms[1].predictBands(ctx, z, ms[1].validComponents(), bandOpts{}); err != nil {
			return nil, err
		}
		return a.predictIntervals(ctx, z, bandOpts{Level: 0.9})
	}
	load := func() *Mean {
		_, ms, err := loadMeans(bytes.NewReader(file.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		return ms[0]
	}
	want, err := work(load())
	if err != nil {
		t.Fatal(err)
	}
	shared := load()
	got := make([][]bandValue, goroutines)
	errs := make([]error, goroutines)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for g := range goroutines {
		wg.Go(func() {
			<-start
			got[g], errs[g] = work(shared)
		})
	}
	close(start)
	wg.Wait()
	for g := range goroutines {
		if errs[g] != nil {
			t.Fatalf("goroutine %d: %v", g, errs[g])
		}
		for i := range want {
			if got[g][i] != want[i] {
				t.Fatalf("goroutine %d row %d: %+v, serially %+v", g, i, got[g][i], want[i])
			}
		}
	}
}
