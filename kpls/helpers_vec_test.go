package kpls

import "gonum.org/v1/gonum/mat"

// vec is y as the one-column matrix Data.Y takes (an empty one for an
// empty y, which mat.NewVecDense refuses with a panic).
func vec(y []float64) mat.Matrix {
	if len(y) == 0 {
		return &mat.VecDense{}
	}
	return mat.NewVecDense(len(y), y)
}

// cfg is o as the configuration of a fit with default resources.
func cfg(o Options) config { return newConfig(o, &Data{}, nil) }
