// Package blastest is a conformance suite for implementations of
// blas.Float64. Each exported function takes a *testing.T and a backend and
// compares the backend's routine with a naive loop on random inputs: sizes
// including 0, 1 and odd ones, strides including negative ones where BLAS
// allows them, padded leading dimensions, and alpha and beta including 0.
// Every output is surrounded by NaN guard cells and interleaved with NaN
// gaps that must survive untouched; the triangle a symmetric routine must
// not read is NaN; with beta = 0 the output starts as NaN, which BLAS must
// overwrite rather than scale.
package blastest
