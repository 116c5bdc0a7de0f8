package kpls

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/blas"
	"github.com/kpls-go/kpls/internal/simd"
)

// buildKey names how this test binary computes: predictions differ in the
// last bits between SIMD paths and BLAS backends.
func buildKey() string {
	av := simd.Available()
	return fmt.Sprintf("%s/%s/best=%s/blas=%s", runtime.GOARCH, simd.Path(), av[len(av)-1], blas.Name(blas.Default()))
}

// oldPredictions is testdata/oldformat/predictions.json.
type oldPredictions struct {
	Commit string `json:"commit"`
	Files  map[string]struct {
		Query  [][]float64 `json:"query"`
		BandsM int         `json:"bands_m"`
		Level  float64     `json:"level"`
	} `json:"files"`
	Predictions map[string]map[string]struct {
		Predict [][]float64 `json:"predict"`
		Bands   []Band      `json:"bands"`
	} `json:"predictions"`
}

// TestOldModelFilesPredictAsBefore loads every committed file of format
// versions 2 and 3 and predicts, for every m and with bands at the chosen
// m, what the code that wrote the version 3 files predicted from them: bit
// for bit under a build recorded in predictions.json, to 1e-8 under others.
func TestOldModelFilesPredictAsBefore(t *testing.T) {
	raw, err := os.ReadFile("testdata/oldformat/predictions.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc oldPredictions
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	key := buildKey()
	want, exact := doc.Predictions[key]
	if !exact {
		want = doc.Predictions["amd64/avx512/best=avx512/blas=go"]
		t.Logf("build %s has no recorded predictions: comparing to 1e-8, not bit for bit", key)
	}
	same := func(got, want float64) bool {
		if exact {
			return math.Float64bits(got) == math.Float64bits(want)
		}
		return math.Abs(got-want) <= 1e-8*math.Max(1, math.Abs(want))
	}
	files, err := filepath.Glob("testdata/oldformat/model-v*.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(doc.Files) || len(files) != len(want) {
		t.Fatalf("%d model files, %d described, %d with predictions", len(files), len(doc.Files), len(want))
	}
	var compared, recorded int
	for _, path := range files {
		name := filepath.Base(path)
		f, ok := doc.Files[name]
		w, okw := want[name]
		if !ok || !okw {
			t.Fatalf("%s: no recorded predictions", name)
		}
		m := loadFile(t, path)
		q := mat.NewDense(len(f.Query), len(f.Query[0]), nil)
		for i, r := range f.Query {
			q.SetRow(i, r)
		}
		if len(w.Predict) != m.ValidComponents()+1 {
			t.Fatalf("%s: predictions for %d m, the model has %d", name, len(w.Predict), m.ValidComponents()+1)
		}
		recorded += len(w.Predict)*len(f.Query) + len(w.Bands)
		for c, wp := range w.Predict {
			p, err := m.Predict(context.Background(), q, c)
			if err != nil {
				t.Fatalf("%s m=%d: %v", name, c, err)
			}
			for i := range wp {
				if !same(p[i], wp[i]) {
					t.Errorf("%s m=%d row %d: %v, commit %s predicted %v", name, c, i, p[i], doc.Commit, wp[i])
				}
				compared++
			}
		}
		if w.Bands == nil {
			t.Fatalf("%s: no recorded bands", name)
		}
		b, err := m.PredictBands(context.Background(), q, f.BandsM, BandOptions{Level: f.Level})
		if err != nil {
			t.Fatalf("%s bands: %v", name, err)
		}
		for i, wb := range w.Bands {
			g := b[i]
			if !same(g.Yhat, wb.Yhat) || !same(g.SE, wb.SE) || !same(g.Lower, wb.Lower) || !same(g.Upper, wb.Upper) {
				t.Errorf("%s band %d at m=%d: %+v, commit %s gave %+v", name, i, f.BandsM, g, doc.Commit, wb)
			}
			compared++
		}
	}
	if compared != recorded || compared < 300 {
		t.Fatalf("compared %d values of %d recorded", compared, recorded)
	}
}

func loadFile(t testing.TB, path string) *Model {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := Load(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}
