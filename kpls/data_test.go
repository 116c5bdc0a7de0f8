package kpls

import (
	"context"
	"errors"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestDataChecked: Data whose parts do not fit together is an error that
// names the part, never a panic or a silent acceptance; an empty names
// list names nothing.
func TestDataChecked(t *testing.T) {
	ctx := context.Background()
	x, y := gaussData(30, 2, 1)
	var typedNil *mat.Dense
	for _, c := range []struct {
		name string
		d    Data
		want error
		msg  string
	}{
		{"nil Y", Data{X: x}, ErrShape, "Data.Y is nil"},
		{"typed nil Y", Data{X: x, Y: typedNil}, ErrShape, "Data.Y is nil"},
		{"typed nil X", Data{X: typedNil, Y: vec(y)}, ErrShape, "Data.X is nil"},
		{"Y as a row", Data{X: x, Y: mat.NewDense(1, len(y), y)}, ErrShape, "Data.X has 30 rows, Data.Y 1"},
		{"two feature names for one column", Data{X: x.Slice(0, 30, 0, 1), Y: vec(y), FeatureNames: []string{"a", "b"}}, ErrBadOption, "Data.FeatureNames: 2 names for 1 columns"},
		{"two target names for one column", Data{X: x, Y: vec(y), TargetNames: []string{"a", "b"}}, ErrBadOption, "Data.TargetNames: 2 names"},
	} {
		_, err := Fit(ctx, c.d, Options{Kernel: RBF{Width: 1}, Components: 2, DoF: DoFNone}, nil)
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v, want %v naming %q", c.name, err, c.want, c.msg)
		}
	}
	m, err := Fit(ctx, Data{X: x, Y: vec(y), TargetNames: []string{}}, Options{Kernel: RBF{Width: 1}, Components: 2, DoF: DoFNone}, nil)
	if err != nil || m.Summary().TargetName != "" {
		t.Errorf("empty target names: %v", err)
	}
}

// TestSelectByPointer: a pointer to a scoring is read as the value, and
// a nil one as the default, never ignored.
func TestSelectByPointer(t *testing.T) {
	ctx := context.Background()
	x, y := gaussData(40, 2, 2)
	base := SelectOptions{Kernels: []Kernel{RBF{}}, Widths: []float64{1}, Components: 3, MaxComponents: 3}
	one := base
	one.By = &CrossValidation{Folds: 1}
	if _, err := Select(ctx, Data{X: x, Y: vec(y)}, one, nil); !errors.Is(err, ErrBadOption) || !strings.Contains(err.Error(), "CrossValidation.Folds") {
		t.Errorf("By: &CrossValidation{Folds: 1}: %v", err)
	}
	g := GMDL
	byG := base
	byG.By = &g
	sel, err := Select(ctx, Data{X: x, Y: vec(y)}, byG, nil)
	if err != nil {
		t.Fatalf("By: &GMDL: %v", err)
	}
	if sel.Criterion != GMDL {
		t.Errorf("By: &GMDL: criterion %v", sel.Criterion)
	}
	var none *CrossValidation
	byNil := base
	byNil.By = none
	if sel, err = Select(ctx, Data{X: x, Y: vec(y)}, byNil, nil); err != nil {
		t.Fatalf("By: (*CrossValidation)(nil): %v", err)
	}
	if sel.Criterion != CV {
		t.Errorf("By: (*CrossValidation)(nil): criterion %v", sel.Criterion)
	}
}
