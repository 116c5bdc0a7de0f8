// Package plots draws the figures of Krämer, Sugiyama and Braun, "Lanczos
// Approximations for the Speedup of Kernel Partial Least Squares
// Regression" (AISTATS 2009) and of the project's experiments, with
// gonum.org/v1/plot. It only draws: it takes data (kpls.Stats series,
// selections, bands, timings) and computes none; the experiments that
// produce them live in lab/ (lab/paper for the paper's figures), and
// plots imports none of them.
//
// Every function takes data, never file names of data, and writes one
// image whose format follows the file extension: .png, .svg or .pdf.
// Inputs are checked first: mismatched lengths, empty data and unknown
// extensions are errors, never panics. Values that kpls reports as NaN (a
// degree of freedom that float64 cannot evaluate reliably, and the
// criteria that depend on it) are drawn as gaps, not as zeros.
//
//   - DoFVersusM and DoFAndCriterionVersusM: degrees of freedom (and a
//     criterion) against the number of components m for several kernel
//     widths side by side, one line per DoF method (the paper's Figure 1).
//   - CriterionVersusM and CriterionHeatmap: a selection criterion over the
//     grid of widths × components, as lines or as a heat map with the
//     chosen cells marked.
//   - Band1D: a one-dimensional fit with its shaded confidence band, the
//     training points and optionally the true function (the paper's
//     Figure 3).
//   - ObservedVsPredicted: predictions against observations with the
//     identity line.
//   - RuntimeVersusN: fit time against n on log–log axes (the paper's
//     runtime comparison, lab/runtimebed).
package plots
