package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/kpls"
)

// oldModelPath is a model file of format version 3 in kpls/testdata.
func oldModelPath(t *testing.T, name string) string {
	p := filepath.Join("..", "..", "kpls", "testdata", "oldformat", "model-v3-"+name+".json")
	if _, err := os.Stat(p); err != nil {
		t.Fatal("old model files missing (they are part of the repository):", err)
	}
	return p
}

// TestInspect fits and saves a model and reads its header back with
// inspect, as text and as JSON; an old JSON file too.
func TestInspect(t *testing.T) {
	train := writeFile(t, "train.csv", smallCSV(40))
	model := filepath.Join(t.TempDir(), "m.kpls")
	code, out, stderr := kplsRun(t, "fit", "--data", train, "--width", "2", "--components", "5", "--model", model, "--json")
	if code != 0 {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	var fit struct {
		ValidComponents int `json:"valid_components"`
		Selected        struct{ M int }
	}
	if err := json.Unmarshal([]byte(out), &fit); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(model)
	if err != nil {
		t.Fatal(err)
	}
	code, out, stderr = kplsRun(t, "inspect", model, "--json")
	if code != 0 {
		t.Fatalf("inspect: exit %d: %s", code, stderr)
	}
	var doc inspectJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if doc.Version != 4 || doc.Encoding != "binary" || doc.Bytes != st.Size() || len(doc.Models) != 1 {
		t.Fatalf("%+v", doc)
	}
	mj := doc.Models[0]
	if mj.N != 40 || mj.D != 2 || mj.Target != "y" || strings.Join(mj.Features, ",") != "a,b" || mj.Kernel.Name != "rbf" || *mj.Kernel.Width != 2 ||
		mj.ValidComponents != fit.ValidComponents || mj.Chosen.M != fit.Selected.M || len(mj.Arrays) != 7 || mj.Arrays[3].Length != int64(40*(fit.ValidComponents+1)) {
		t.Errorf("%+v", mj)
	}
	code, out, _ = kplsRun(t, "inspect", model)
	for _, s := range []string{"version 4, binary", "n = 40, d = 2", "rbf, width 2", "chosen     m = ", "alpha 240"} {
		if code != 0 || !strings.Contains(out, s) {
			t.Errorf("inspect lacks %q:\n%s", s, out)
		}
	}
	code, out, stderr = kplsRun(t, "inspect", "--json", oldModelPath(t, "rbf-stop"))
	doc = inspectJSON{}
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil || doc.Version != 3 || doc.Encoding != "json" || !doc.Verified ||
		doc.Models[0].Stop == nil || doc.Models[0].Arrays[0].Offset != -1 {
		t.Errorf("version 3 file: exit %d: %s\n%s", code, stderr, out)
	}
	damaged, err := os.ReadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"inspect"}, 2, "give one model file"},
		{[]string{"inspect", model, model}, 2, "give one model file"},
		{[]string{"inspect", filepath.Join(t.TempDir(), "none")}, 1, "no such file"},
		{[]string{"inspect", writeFile(t, "half", string(damaged[:len(damaged)/3]))}, 1, "truncated"},
		{[]string{"inspect", train}, 1, "not a model file"},
	} {
		code, _, stderr := kplsRun(t, c.args...)
		if code != c.code || !strings.Contains(stderr, c.says) {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q", c.args, code, stderr, c.code, c.says)
		}
	}
}

// TestPredictOldModelFile predicts with a model file of format version 3:
// what the library predicts from it.
func TestPredictOldModelFile(t *testing.T) {
	path := oldModelPath(t, "rbf")
	data := writeFile(t, "new.csv", "c,a,b\n0.5,1,-1\n2,0.25,3\n")
	code, out, stderr := kplsRun(t, "predict", "--model", path, "--data", data, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc struct {
		M           *int
		Predictions []struct{ Yhat float64 }
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	m, err := loadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	want, err := predictAt(m, mat.NewDense(2, 3, []float64{1, -1, 0.5, 0.25, 3, 2}), m.Chosen().M)
	if err != nil {
		t.Fatal(err)
	}
	if doc.M == nil || *doc.M != m.Chosen().M || len(doc.Predictions) != 2 {
		t.Fatalf("%s", out)
	}
	for i, p := range doc.Predictions {
		if math.Float64bits(p.Yhat) != math.Float64bits(want[i]) {
			t.Errorf("row %d: %v, the library predicts %v", i, p.Yhat, want[i])
		}
	}
}

// TestInspectSeveralModels: inspect lists the models of a file of two
// (one per target) and their shared inputs.
func TestInspectSeveralModels(t *testing.T) {
	x := mat.NewDense(60, 3, nil)
	y1, y2 := make([]float64, 60), make([]float64, 60)
	for i := range 60 {
		a, b, c := float64(i%7), float64(i%5), float64(i%3)
		x.SetRow(i, []float64{a, b, c})
		y1[i], y2[i] = a+0.5*b, math.Sin(a)+c
	}
	var ps []kpls.Predictor
	for _, tg := range []struct {
		name string
		y    []float64
	}{{"y1", y1}, {"y2", y2}} {
		m, err := kpls.Fit(context.Background(), kpls.Data{X: x, Y: mat.NewVecDense(len(tg.y), tg.y), TargetNames: []string{tg.name}}, kpls.Options{Components: 3}, nil)
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, m)
	}
	var buf bytes.Buffer
	if err := kpls.Save(&buf, ps...); err != nil {
		t.Fatal(err)
	}
	path := writeFile(t, "two.kpls", buf.String())
	loaded, err := loadPredictors(path)
	if err != nil || len(loaded) != 2 || loaded[1].Summary().TargetName != "y2" {
		t.Fatalf("loadPredictors: %d predictors, %v", len(loaded), err)
	}
	code, out, _ := kplsRun(t, "inspect", path)
	if code != 0 || !strings.Contains(out, "models     2") || !strings.Contains(out, `model 2    "y2"`) || !strings.Contains(out, "x 180 (shared)") {
		t.Errorf("inspect of two models: exit %d:\n%s", code, out)
	}
}

// TestVersionModelFiles: version names the format versions it writes and
// reads.
func TestVersionModelFiles(t *testing.T) {
	code, out, _ := kplsRun(t, "version", "--json")
	var v struct {
		ModelFiles modelFiles `json:"model_files"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &v) != nil || v.ModelFiles.Format != "kpls-model" || v.ModelFiles.Writes != 4 || v.ModelFiles.WritesMeans != 5 ||
		v.ModelFiles.WritesSelected != 6 || v.ModelFiles.WritesWeighed != 7 || len(v.ModelFiles.Reads) != 7 || v.ModelFiles.Reads[0] != 1 {
		t.Errorf("exit %d:\n%s", code, out)
	}
	if code, out, _ := kplsRun(t, "version"); code != 0 || !strings.Contains(out, "writes version 4 (binary; 5 for a mean of models, 6 from select's cross-validation, 7 with feature weights), reads versions 1–7") {
		t.Errorf("exit %d:\n%s", code, out)
	}
}
