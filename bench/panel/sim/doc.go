// Package sim holds the simulated data sets of the evaluation panel
// (bench/panel): Friedman's three regression problems, in the form of
// scikit-learn's make_friedman1/2/3, and the paper's sinc simulation of
// lab/demodata. Each generator draws from a math/rand/v2 PCG
// generator seeded by its seed argument, so equal seeds give equal data on
// every platform; each has a noise-free regression function (F1, F2, F3,
// demodata's sin(x)/x) that the tests check against hand-computed values.
//
// The formulas are those of scikit-learn (and of Friedman 1991; Breiman
// 1996); the random numbers of course differ from numpy's.
//
//   - Friedman1: x ~ U[0,1]^d (d ≥ 5, only the first five matter),
//     y = 10 sin(π x1 x2) + 20 (x3 − 0.5)² + 10 x4 + 5 x5 + N(0, σ²).
//   - Friedman2: x1 ~ U[0,100], x2 ~ U[40π, 560π], x3 ~ U[0,1],
//     x4 ~ U[1,11]; y = sqrt(x1² + (x2 x3 − 1/(x2 x4))²) + N(0, σ²).
//   - Friedman3: the same x; y = atan((x2 x3 − 1/(x2 x4))/x1) + N(0, σ²).
//   - Sinc: demodata.Sinc, x ~ U(−π, π), y = sin(x)/x + N(0, 0.1²).
//
// scikit-learn's noise defaults to 0; the panel uses σ = 1, 125 and 0.1,
// the levels of Breiman (1996, "Bagging predictors"), where 125 and 0.1
// give Friedman 2 and 3 a signal-to-noise ratio (in standard deviations)
// of about 3:1.
package sim
