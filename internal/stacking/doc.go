// Package stacking finds the non-negative weights, summing to one, that
// combine several models' out-of-fold predictions closest to the
// response in least squares: Breiman's stacked regression (Machine
// Learning 24, 1996), solved exactly by a primal active-set method on the
// k×k normal equations.
//
// Select uses the weights' support to choose which grid points its mean
// of models averages.
package stacking
