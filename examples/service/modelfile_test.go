package main

import (
	"bytes"
	"context"
	"encoding/json"
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
// JSON one (version 3, from the library's test data) and serves each; a
// file of two models is refused, naming them.
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
		m, err := loadModel(path)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		srv := httptest.NewServer(NewServer(m))
		x := [][]float64{{0.5, -1, 0.25}, {1, 1, 1}}
		body, _ := json.Marshal(testRequest{X: x})
		code, out := post(t, srv.Client(), srv.URL, body)
		srv.Close()
		var resp testResponse
		if code != http.StatusOK || json.Unmarshal(out, &resp) != nil || len(resp.Predictions) != 2 {
			t.Fatalf("%s: status %d: %s", path, code, out)
		}
		want, err := m.Predict(context.Background(), mat.NewDense(2, 3, []float64{0.5, -1, 0.25, 1, 1, 1}), m.Chosen().M)
		if err != nil {
			t.Fatal(err)
		}
		for i, p := range resp.Predictions {
			if math.Float64bits(p.Yhat) != math.Float64bits(want[i]) {
				t.Errorf("%s row %d: served %v, the model predicts %v", path, i, p.Yhat, want[i])
			}
		}
	}
	m, err := loadModel(binary)
	if err != nil {
		t.Fatal(err)
	}
	var two bytes.Buffer
	if err := kpls.SaveModels(&two, []string{"y1", "y2"}, []*kpls.Model{m, m}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "two.kpls")
	if err := os.WriteFile(path, two.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := loadModel(path); err == nil || !strings.Contains(err.Error(), "2 models, one per target (y1, y2)") {
		t.Errorf("a file of two models: %v", err)
	}
}
