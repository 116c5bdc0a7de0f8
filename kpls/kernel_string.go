package kpls

import "fmt"

// The kernels print as their name and parameters, for people: six
// significant digits (a model file and JSON keep every digit). A zero
// width is the default, chosen from the data at fit time.

func (k RBF) String() string       { return fmt.Sprintf("rbf(width=%s)", widthString(k.Width)) }
func (k Laplacian) String() string { return fmt.Sprintf("laplacian(width=%s)", widthString(k.Width)) }
func (k Matern) String() string    { return fmt.Sprintf("%s(width=%s)", k.Name(), widthString(k.Width)) }
func (k Polynomial) String() string {
	return fmt.Sprintf("polynomial(degree=%d, offset=%.6g)", k.Degree, k.Offset)
}
func (Linear) String() string      { return "linear" }
func (Precomputed) String() string { return "precomputed" }
func (k Func) String() string      { return k.Name() }

func widthString(w float64) string {
	if w == 0 {
		return "default"
	}
	return fmt.Sprintf("%.6g", w)
}
