package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/kpls"
)

// TestServeMean serves the file kpls select --average-within writes (a
// mean of several models, format version 5): plain predictions and bands
// are bit for bit the mean's own (kpls.Mean), the response and /healthz
// list the models averaged and say no "m" (a mean has no one m), a
// request's "m" is a 400, and the
// band budget counts every model's m.
func TestServeMean(t *testing.T) {
	ctx := context.Background()
	x, y := testData(150, 3, 9)
	sel, err := kpls.Select(ctx, kpls.Data{X: x, Y: mat.NewVecDense(len(y), y)}, kpls.SelectOptions{Widths: []float64{0.5, 1.5, 4, 12}, Kernels: []kpls.Kernel{kpls.RBF{}}, By: kpls.CrossValidation{AverageWithin: 5}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	mean, ok := sel.Predictor.(*kpls.Mean)
	if !ok {
		t.Fatal("the selection averages fewer than two models: the test needs a mean of several")
	}
	var file bytes.Buffer
	if err := kpls.Save(&file, mean); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "mean.kpls")
	if err := os.WriteFile(path, file.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	ps, err := load(path)
	if err != nil {
		t.Fatal(err)
	}
	s := mustServer(t, ps...)
	srv := httptest.NewServer(s)
	defer srv.Close()
	rows := [][]float64{{0.5, -1, 0.25}, {1, 1, 1}, {-1.5, 0.3, 2}, {40, -40, 0}}
	xq := mat.NewDense(4, 3, []float64{0.5, -1, 0.25, 1, 1, 1, -1.5, 0.3, 2, 40, -40, 0})
	level := 0.9
	plainP, err := libPredict(mean, xq, -1, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	bandP, err := libPredict(mean, xq, -1, &level, false)
	if err != nil {
		t.Fatal(err)
	}
	plain, bands := bandsOf(plainP), bandsOf(bandP)
	ex := plainP.Extrapolation
	lev := ex.Leverage
	if !ex.Outside[3] || ex.Outside[0] {
		t.Fatalf("outside %v: want the last point, 40 units out, flagged and the first not", ex.Outside)
	}
	for _, req := range []testRequest{{X: rows}, {X: rows, Level: &level}, {X: rows, Leverage: true}, {X: rows, Level: &level, Leverage: true},
		{X: rows, Outside: true}, {X: rows, Level: &level, Leverage: true, Outside: true}} {
		body, _ := json.Marshal(req)
		code, out := post(t, srv.Client(), srv.URL, body)
		var resp struct {
			testResponse
			Mean  []member
			Noise *noiseLevel
		}
		if code != http.StatusOK || json.Unmarshal(out, &resp) != nil {
			t.Fatalf("status %d: %s", code, out)
		}
		// With bands, the noise level: the members' RMSECV, since the
		// mean's other members have no DoF and so the mean no σ̂.
		if s := mean.Summary().Noise; req.Level != nil && (resp.Noise == nil || resp.Noise.S != s || resp.Noise.From != "rmsecv" || resp.Noise.Sigma != nil) ||
			req.Level == nil && resp.Noise != nil {
			t.Errorf("level %v: noise level %+v, want s = %v from the RMSECV", req.Level != nil, resp.Noise, s)
		}
		if len(resp.Mean) != len(mean.Members()) || resp.M != nil {
			t.Errorf("the response lists %d models and m = %v, the mean has %d models and no one m", len(resp.Mean), resp.M, len(mean.Members()))
		}
		for i, mb := range resp.Mean {
			if mb.M != mean.Members()[i].Chosen().M {
				t.Errorf("member %d: m = %d, the mean's has %d", i, mb.M, mean.Members()[i].Chosen().M)
			}
		}
		for i, p := range resp.Predictions {
			want := plain[i]
			if req.Level != nil {
				want = bands[i]
			}
			if p.testBand != want {
				t.Errorf("level %v row %d: served %+v, the mean gives %+v", req.Level != nil, i, p, want)
			}
			if req.Leverage != (p.Leverage != nil) || p.Leverage != nil && *p.Leverage != lev[i] {
				t.Errorf("level %v row %d: leverage %v served (asked for: %v), the mean's %v", req.Level != nil, i, p.Leverage, req.Leverage, lev[i])
			}
			if req.Outside != (p.Outside != nil) || p.Outside != nil && *p.Outside != ex.Outside[i] {
				t.Errorf("level %v row %d: outside %v served (asked for: %v), the mean's %v", req.Level != nil, i, p.Outside, req.Outside, ex.Outside[i])
			}
		}
	}
	two := 2
	body, _ := json.Marshal(testRequest{X: rows, M: &two})
	if code, out := post(t, srv.Client(), srv.URL, body); code != http.StatusBadRequest || !strings.Contains(string(out), "mean of") || !strings.Contains(string(out), `leave \"m\" out`) {
		t.Errorf("m on a mean: status %d: %s", code, out)
	}
	resp, err := srv.Client().Get(srv.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	hb, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var h health
	if err := json.Unmarshal(hb, &h); err != nil || len(h.Mean) != len(mean.Members()) || h.M != nil || h.Components < 1 {
		t.Errorf("/healthz: %v %s", err, hb)
	}
	// The budget admits the bands of one model at its m, not of the mean.
	sum := 0
	for _, m := range mean.Members() {
		sum += max(m.Chosen().M, 1)
	}
	s.BandBudget = float64(150*3*sum) - 1
	body, _ = json.Marshal(testRequest{X: rows, Level: &level})
	if code, out := post(t, srv.Client(), srv.URL, body); code != http.StatusUnprocessableEntity {
		t.Errorf("a band request over the budget of the mean: status %d: %s", code, out)
	}
}
