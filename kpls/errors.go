package kpls

import (
	"errors"
	"math"
)

// Sentinel errors, usable with errors.Is. Returned errors wrap them with
// the detail (which row, which column, which value).
var (
	ErrShape      = errors.New("kpls: mismatched shapes")
	ErrTooFewRows = errors.New("kpls: too few rows (need at least 3)")
	ErrNonFinite  = errors.New("kpls: NaN or Inf in input")
	ErrConstantY  = errors.New("kpls: the target is constant")
	ErrComponents = errors.New("kpls: bad number of components")
	ErrWidth      = errors.New("kpls: the kernel width must be positive and finite")
	ErrKernel     = errors.New("kpls: unknown kernel")
	ErrDoFMethod  = errors.New("kpls: unknown DoF method")
	ErrBadOption  = errors.New("kpls: bad option")
	ErrLevel      = errors.New("kpls: confidence level must lie in (0, 1)")
	ErrBreakdown  = errors.New("kpls: Krylov breakdown")
	ErrDegenerate = errors.New("kpls: the kernel matrix is zero after centring")
	ErrTooLarge   = errors.New("kpls: the kernel matrix would not fit in memory")
	ErrStorage    = errors.New("kpls: unknown kernel storage")
	ErrModelFile  = errors.New("kpls: not a valid model file")
	ErrUnreliable = errors.New("kpls: result not numerically reliable")
)

func isNaNOrInf(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }
