package kpls

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestOptionsJSON: Options marshal to the documented record of a model
// file (docs/design.md, "Model file"), kernel as an object, and read back
// from it, also from a file's record with names.
func TestOptionsJSON(t *testing.T) {
	o := Options{Kernel: Matern{Nu: 2.5, Width: 3}, Components: 7, DoF: DoFLanczos, Lanczos: 15, Seed: 9, Relevance: []float64{1, 0.25}}
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"components":7,"dof":"lanczos","lanczos":15,"seed":9,"relevance":[1,0.25],"kernel":{"name":"matern52","width":3}}`
	if string(b) != want {
		t.Errorf("marshalled %s\nwant        %s", b, want)
	}
	var back Options
	if err := json.Unmarshal([]byte(`{"components":7,"dof":"lanczos","lanczos":15,"seed":9,"relevance":[1,0.25],"feature_names":["a","b"],"kernel":{"name":"matern52","width":3}}`), &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, o) {
		t.Errorf("read %+v, want %+v", back, o)
	}
	if err := json.Unmarshal([]byte(`{"kernel":{"name":"rbf"},"bogus":1}`), &back); err == nil {
		t.Error("an unknown field was accepted")
	}
}
