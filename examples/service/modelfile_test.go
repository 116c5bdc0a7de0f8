package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/kpls"
)

// TestLoadModelFormats loads a binary model file (format version 4) and a
// JSON one (version 3, from the library's test data) and serves each,
// predicting as the model does.
func TestLoadModelFormats(t *testing.T) {
	b, err := testModelFile()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	binary := filepath.Join(dir, "model.kpls")
	if err := os.WriteFile(binary, b, 0o644); err != nil {
		t.Fatal(err)
	}
	old := filepath.Join("..", "..", "kpls", "testdata", "oldformat", "model-v3-rbf.json")
	for _, path := range []string{binary, old} {
		ps, err := load(path)
		if err != nil || len(ps) != 1 {
			t.Fatalf("%s: %d predictors, %v", path, len(ps), err)
		}
		m := ps[0].(*kpls.Model)
		srv := httptest.NewServer(mustServer(t, m))
		x := [][]float64{{0.5, -1, 0.25}, {1, 1, 1}}
		body, _ := json.Marshal(testRequest{X: x})
		code, out := post(t, srv.Client(), srv.URL, body)
		srv.Close()
		var resp testResponse
		if code != http.StatusOK || json.Unmarshal(out, &resp) != nil || len(resp.Predictions) != 2 {
			t.Fatalf("%s: status %d: %s", path, code, out)
		}
		lib, err := libPredict(m, mat.NewDense(2, 3, []float64{0.5, -1, 0.25, 1, 1, 1}), -1, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		want := lib.Yhat
		for i, p := range resp.Predictions {
			if math.Float64bits(p.Yhat) != math.Float64bits(want[i]) {
				t.Errorf("%s row %d: served %v, the model predicts %v", path, i, p.Yhat, want[i])
			}
		}
	}
}

// TestSeveralTargets serves a file of two models fitted to different
// targets of the same inputs (kpls.SaveModels): every request answers
// with each target's predictions and bands, bit for bit those of the
// target's own model, at its own recorded m or at the request's; a
// request's m beyond one model's valid components is a 400 naming that
// target; /healthz lists the targets.
func TestSeveralTargets(t *testing.T) {
	ctx := context.Background()
	x, y1 := testData(200, 3, 5)
	y2 := make([]float64, len(y1))
	for i := range y2 {
		y2[i] = x.At(i, 0)*x.At(i, 1) - x.At(i, 2)
	}
	var ms []*kpls.Model
	for _, c := range []struct {
		y    []float64
		comp int
	}{{y1, 6}, {y2, 3}} {
		m, err := kpls.Fit(ctx, kpls.Data{X: x, Y: mat.NewVecDense(len(c.y), c.y), TargetNames: []string{fmt.Sprintf("y%d", len(ms)+1)}}, kpls.Options{Components: c.comp}, nil)
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, m)
	}
	var file bytes.Buffer
	if err := kpls.Save(&file, ms[0], ms[1]); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "two.kpls")
	if err := os.WriteFile(path, file.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	loaded, err := load(path)
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"y1", "y2"}
	srv := httptest.NewServer(mustServer(t, loaded...))
	defer srv.Close()
	rows := [][]float64{{0.5, -1, 0.25}, {1, 1, 1}, {-1.5, 0.3, 2}}
	xq := mat.NewDense(3, 3, []float64{0.5, -1, 0.25, 1, 1, 1, -1.5, 0.3, 2})
	type targetsResponse struct {
		Targets []struct {
			Target string
			testResponse
		}
	}
	level := 0.9
	two := 2
	for _, req := range []testRequest{{X: rows}, {X: rows, Level: &level}, {X: rows, M: &two}} {
		body, _ := json.Marshal(req)
		code, out := post(t, srv.Client(), srv.URL, body)
		var resp targetsResponse
		if code != http.StatusOK || json.Unmarshal(out, &resp) != nil || len(resp.Targets) != 2 {
			t.Fatalf("status %d: %s", code, out)
		}
		for i, tr := range resp.Targets {
			m := ms[i]
			comp := m.Chosen().M
			if req.M != nil {
				comp = *req.M
			}
			if tr.Target != names[i] || tr.M == nil || *tr.M != comp || len(tr.Predictions) != 3 {
				t.Fatalf("target %d: %q, m = %v (want %q, %d), %d predictions", i, tr.Target, tr.M, names[i], comp, len(tr.Predictions))
			}
			var lvl *float64
			if req.Level != nil {
				lvl = &level
			}
			lib, err := libPredict(m, xq, comp, lvl, false)
			if err != nil {
				t.Fatal(err)
			}
			want := bandsOf(lib)
			for r, p := range tr.Predictions {
				if math.Float64bits(p.Yhat) != math.Float64bits(want[r].Yhat) || math.Float64bits(p.SE) != math.Float64bits(want[r].SE) {
					t.Errorf("target %q row %d: served %+v, its model gives %+v", tr.Target, r, p, want[r])
				}
			}
		}
	}
	five := 5
	body, _ := json.Marshal(testRequest{X: rows, M: &five})
	if code, out := post(t, srv.Client(), srv.URL, body); code != http.StatusBadRequest || !strings.Contains(string(out), `target \"y2\" has 0..3`) {
		t.Errorf("m = 5 beyond y2's 3 components: status %d: %s", code, out)
	}
	resp, err := srv.Client().Get(srv.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var h struct {
		Targets []struct {
			Target     string
			Components int
			M          *int
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&h); err != nil || len(h.Targets) != 2 || h.Targets[1].Target != "y2" || h.Targets[1].Components != 3 ||
		h.Targets[0].M == nil || *h.Targets[0].M != ms[0].Chosen().M || h.Targets[1].M == nil || *h.Targets[1].M != ms[1].Chosen().M {
		t.Errorf("healthz: %+v, %v", h, err)
	}
}
