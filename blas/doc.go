// Package blas is the seam between kpls's algorithms and a BLAS library.
//
// Float64 is a narrow interface listing only the routines kpls calls, with
// the signatures of gonum.org/v1/gonum/blas, so that backends plug in
// without adapters. Default returns the backend chosen at build time; a
// model can be given another one through its options. The package never
// calls blas64.Use, so a program's own gonum code keeps its backend.
package blas
