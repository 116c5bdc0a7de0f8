// Package sim is the one home of the simulated data sets: every generator
// of `kpls demo`, the paper's experiments, the DoF test bed (lab/dofbed)
// and the evaluation panel (lab/panel) is here, once. Each draws from a
// math/rand/v2 PCG generator seeded by its seed argument, with a stream
// constant of its own, so equal seeds give equal data on every platform
// and unrelated data across simulations; each regression function is
// exported (F1, F2, F3, SincTruth, Figure3Truth) for the tests to check
// against hand-computed values.
//
// The paper's simulations (Krämer, Sugiyama and Braun, AISTATS 2009):
//
//   - Sinc: its Section 6 (Figure 1, and `kpls demo`), x ~ U(−π, π),
//     y = sin(x)/x + N(0, 0.1²).
//   - Figure3: its Section 5 illustration, x from ½N(−2,1) + ½N(3,1),
//     y = (x−1)(x+2)(x−1.5)·exp(−x²/10) + N(0, 1).
//
// Friedman's three regression problems, in the form of scikit-learn's
// make_friedman1/2/3 (Friedman 1991; Breiman 1996; the random numbers of
// course differ from numpy's):
//
//   - Friedman1: x ~ U[0,1]^d (d ≥ 5, only the first five matter),
//     y = 10 sin(π x1 x2) + 20 (x3 − 0.5)² + 10 x4 + 5 x5 + N(0, σ²).
//   - Friedman2: x1 ~ U[0,100], x2 ~ U[40π, 560π], x3 ~ U[0,1],
//     x4 ~ U[1,11]; y = sqrt(x1² + (x2 x3 − 1/(x2 x4))²) + N(0, σ²).
//   - Friedman3: the same x; y = atan((x2 x3 − 1/(x2 x4))/x1) + N(0, σ²).
//
// scikit-learn's noise defaults to 0; the panel uses σ = 1, 125 and 0.1,
// the levels of Breiman (1996, "Bagging predictors"), where 125 and 0.1
// give Friedman 2 and 3 a signal-to-noise ratio (in standard deviations)
// of about 3:1.
//
// The spectral regimes of the DoF test bed: Uniform (flat spectrum),
// ScaledFeatures (near-identity RBF kernel) and Wide (d ≫ n).
package sim
