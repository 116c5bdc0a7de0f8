// Package runtimebed reproduces the paper's runtime experiment: the time
// of a KPLS fit with exact (cubic) versus approximate (quadratic) degrees
// of freedom on growing sub-samples of kin8nm, with fitted scaling
// exponents, a CSV table and the series that plots.RuntimeVersusN draws
// on log–log axes. `kpls-lab bench` runs it.
package runtimebed
