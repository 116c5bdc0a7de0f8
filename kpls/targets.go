package kpls

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// FitTargets fits one model per column of d.Y (n×q) on
// one kernel matrix: the matrix is built once and every target's fit, DoF
// and criteria run on it. Each model is the one Fit gives for its column
// alone (to rounding), with its own choice of m; with d.TargetNames set,
// model t records TargetNames[t] as its TargetName.
//
// This is q independent fits on shared inputs, not PLS2: each target has
// its own scores (docs/design.md, "Several targets").
func FitTargets(ctx context.Context, d Data, o Options, r *Resources) ([]*Model, error) {
	x, opts := d.X, newConfig(o, &d, r)
	ys, err := d.columns(opts)
	if err != nil {
		return nil, err
	}
	buf := new(kernelBuffer)
	var prev *fitter
	models := make([]*Model, len(ys))
	fitters := make([]*fitter, len(ys))
	for t, yt := range ys {
		o := targetOptions(opts, t)
		f, err := newFitter(x, yt, o, buf)
		if err != nil {
			return nil, targetError(opts, t, len(ys), err)
		}
		f.adopt(prev)
		if models[t], err = fitModel(ctx, f); err != nil {
			return nil, targetError(opts, t, len(ys), err)
		}
		prev, fitters[t] = f, f
	}
	// The models keep the operator for confidence bands where it still
	// lives in the buffer (a later target's storage may have rebuilt it);
	// the others build it when bands are asked for.
	for t, f := range fitters {
		if buf.holds(f) {
			models[t].op = f.op
		}
	}
	return models, nil
}

// responseColumns checks a response matrix against the options and
// returns its columns.
func responseColumns(y mat.Matrix, opts config) ([][]float64, error) {
	ys, n, q, err := denseRows(y, "y")
	if err != nil {
		return nil, err
	}
	if q == 0 {
		return nil, fmt.Errorf("%w: y has no columns", ErrShape)
	}
	if len(opts.TargetNames) > 0 && len(opts.TargetNames) != q {
		return nil, fmt.Errorf("%w: Data.TargetNames: %d names for %d columns of Data.Y", ErrBadOption, len(opts.TargetNames), q)
	}
	cols := make([][]float64, q)
	for t := range cols {
		cols[t] = make([]float64, n)
		for i := range n {
			cols[t][i] = ys[i*q+t]
		}
	}
	return cols, nil
}

// targetOptions are the options of target t's fit: its name recorded as
// the model's TargetName.
func targetOptions(o config, t int) config {
	if o.TargetNames != nil {
		o.TargetName = o.TargetNames[t]
	}
	o.TargetNames = nil
	return o
}

// targetError names the target an error is about, when there are several.
func targetError(o config, t, q int, err error) error {
	if q == 1 {
		return err
	}
	if o.TargetNames != nil {
		return fmt.Errorf("target %q: %w", o.TargetNames[t], err)
	}
	return fmt.Errorf("target %d: %w", t+1, err)
}

// single returns d's one target column and c with its target's name.
func (d *Data) single(c config) ([]float64, config, error) {
	ys, err := d.columns(c)
	if err != nil {
		return nil, c, err
	}
	if len(ys) != 1 {
		return nil, c, fmt.Errorf("%w: Data.Y has %d columns: FitTargets and SelectTargets fit one model per column", ErrShape, len(ys))
	}
	return ys[0], targetOptions(c, 0), nil
}

// columns returns the columns of d.Y, after checking d's shapes and
// names against each other.
func (d *Data) columns(c config) ([][]float64, error) {
	n, cols, err := dims(d.X, "Data.X")
	if err != nil {
		return nil, err
	}
	ny, q, err := dims(d.Y, "Data.Y")
	if err != nil {
		return nil, err
	}
	switch {
	case ny != n:
		return nil, fmt.Errorf("%w: Data.X has %d rows, Data.Y %d", ErrShape, n, ny)
	case len(d.FeatureNames) > 0 && len(d.FeatureNames) != cols:
		return nil, fmt.Errorf("%w: Data.FeatureNames: %d names for %d columns of Data.X", ErrBadOption, len(d.FeatureNames), cols)
	case len(d.TargetNames) > 0 && len(d.TargetNames) != q:
		return nil, fmt.Errorf("%w: Data.TargetNames: %d names for %d columns of Data.Y", ErrBadOption, len(d.TargetNames), q)
	}
	return responseColumns(d.Y, c)
}

// dims returns the dimensions of x, what names it in errors: a nil x,
// typed or not, is an error instead of a panic in Dims.
func dims(x mat.Matrix, what string) (r, c int, err error) {
	defer func() {
		if recover() != nil {
			err = fmt.Errorf("%w: %s is nil", ErrShape, what)
		}
	}()
	if x == nil {
		return 0, 0, fmt.Errorf("%w: %s is nil", ErrShape, what)
	}
	r, c = x.Dims()
	return r, c, nil
}
