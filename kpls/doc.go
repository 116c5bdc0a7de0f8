// Package kpls fits Kernel Partial Least Squares regression with the
// quadratic-time degrees of freedom and confidence intervals of Krämer,
// Sugiyama and Braun, "Lanczos Approximations for the Speedup of Kernel
// Partial Least Squares Regression", AISTATS 2009.
//
// # Overview
//
// Fit, Select and Load give a Predictor: a *Model, or a *Mean of models.
// Fit and Select take their arguments by role: the Data (rows, weights,
// names), the method (Options, saved with the model; SelectOptions for a
// search, whose By is its scoring) and the Resources (storage, memory,
// backend, progress, ranks; never saved, nil for the defaults). A
// Predictor predicts with one call,
//
//	p, err := pred.Predict(ctx, x, kpls.PredictOptions{Uncertainty: kpls.PredictionInterval, Level: 0.95})
//
// which returns the predictions (Prediction.Yhat) and, as asked, the
// limits of a confidence band for f(x) or a prediction interval for a new
// y, and the extrapolation diagnostics (from the predictions' own kernel
// vectors; with a band, the kernel vectors are computed once more, which
// costs O(n·d) per point against the band's O(m·n²) per block). A model predicts with the m its fit chose (Model.Chosen);
// Model.At(m) is the model predicting with another m. Save writes any
// predictors to one model file and Load reads every file any version
// wrote.
//
// Fit runs kernel NIPALS (two-pass Gram–Schmidt) once and keeps every
// number of components m up to Options.Components: predictions, RSS,
// degrees of freedom (DoF), σ̂ and the GCV, AIC, BIC and gMDL criteria for
// each m (Model.Stats), and records the m that Options.Criterion chooses.
// Select chooses the kernel (RBF widths, Laplacian widths and the linear
// kernel), the width and m by k-fold cross-validation (the default) or a
// DoF criterion, extending the components and the default widths while
// the choice sits at an edge, and returns the whole table with the
// winner's model; by default its Predictor is the mean of the models of
// the grid points within DefaultAverageWithin of the best that stacked
// regression weighs (CrossValidation.AverageBy; AverageNone turns it off).
// Bands and intervals go through the paper's Ritz polynomial where it
// holds and by reverse-mode differentiation of the fit where it does not.
// The diagnostics (Extrapolation) say where a prediction extrapolates: far
// from the training rows, beyond a feature's range, or farther along the
// model's score directions than any training row (leverage above 1).
// Data.Weights gives rows frequency weights; Resources.Comm spreads a fit
// over the ranks of a group of processes. The maths is in docs/design.md.
//
// # Conventions
//
//   - RBF kernel k(x,z) = exp(−‖x−z‖²/(2w)): the width w plays the role of
//     a variance; scikit-learn's gamma is 1/(2w).
//   - Features are standardised with training means and standard deviations
//     (n−1) unless Options.RawFeatures; the kernel is centred in feature
//     space, new points with the training means.
//   - DoF include the intercept's +1. Stats.DoF is unclipped; the value
//     clipped to [1, n−1] feeds σ̂ = √(RSS/(n−DoF)) and the criteria.
//   - The variance of f(x) is σ̂²(‖H_mᵀk_c(x)‖² + 1/n) with H_m = ∂α_m/∂y;
//     PredictOptions.NoIntercept drops the 1/n as the paper does.
//
// # Degrees of freedom
//
// DoFExact differentiates the fit itself in forward mode (cubic in n): it
// equals the Jacobian trace to rounding, also close to the breakdown point
// where the paper's polynomial forms fail. DoFLanczos is the paper's
// Definition, computed from the small Lanczos matrix L only (no n×n work
// beyond the fit). DoFApprox goes beyond the paper (see approxDoF): the
// exact Krylov term, q_m at the converged Ritz values from the fit's own
// residual, and a deflated, control-variate Hutchinson estimate of the rest
// through the fit's residual-polynomial recurrence; it reports its standard
// error (Stats.DoFSE) and stays within 1 % of the exact DoF up to 40
// components in every regime tested, where the paper is off by up to 99 %.
// A DoF that float64 cannot evaluate reliably is NaN (null in JSON) with a
// warning, never a wrong number and never another estimator's value.
//
// # Corrections to the paper
//
// The second line of the Corollary and the Definition omit c_j in the third
// term; the Proposition for H_mᵀk(x) holds only for m = 1. This package uses
// the forms in which both are exact: DoF₀ = Σ_k p_m(λ_k) + 2 tr(T_mᵀq_m(K)T_m)
// and H_mᵀk = s_m(K)k + 2 q_m(K) T Gᵀk with q_m the residual polynomial of
// the fit and s_m = (1 − q_m)/λ, evaluated over the Ritz values.
//
// # Breakdown
//
// The Krylov space is exhausted in float64 long before n components. The
// fit stops when Gram–Schmidt leaves less than 1e-8 of a new direction,
// when the residuals lose K-orthogonality beyond 1e-4, or when the Ritz
// values span more than 1e9 (θ_max/θ_min); Model.Stats holds the valid
// components (m = 0 … M), and Model.Warnings says why it stopped.
//
// # Memory
//
// After it is built, the centred kernel matrix is only ever multiplied
// with thin blocks, so it is held as an operator: dense float64 while 8n²
// bytes fit Resources.MemoryLimit (a quarter of physical memory by
// default), then float32 (for fits without DoF or with the Lanczos DoF:
// float32's rounding defeats the approximate DoF's deflation), then
// hybrid (cached within the limit, the rest recomputed per product), or
// matrix-free. The linear kernel is held through its centred inputs
// instead (features: 8nd bytes, products in O(nd)), whatever n.
// Resources.Storage forces one; Summary.Storage reports the one used.
// Automatic storage does not keep a float32 fit whose DoF float32
// could move (one that stops early, near breakdown): it refits in float64
// on hybrid storage and warns (WarnStorage); where only the extra Lanczos
// steps are past float32's resolution, it runs those in float64 without
// storing anything more. Measured figures are in docs/scale.md.
//
// # Concurrency
//
// A Model and a Mean are immutable after Fit, Select or Load and safe for
// concurrent use. The
// centred kernel matrix behind confidence bands is built once, on first
// use, for a loaded model, and q_m(K)·T_m (m×n) once for each m that bands
// are asked for; both are caches behind a sync.Once and a mutex, invisible
// in results.
//
// # BLAS
//
// Dense n×n work goes through Resources.Backend (package blas): pure Go by
// default, OpenBLAS with the openblas build tag. The other storages use
// the vectorised kernels of internal/kernelop and internal/simd.
package kpls
