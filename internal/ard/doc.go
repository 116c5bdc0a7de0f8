// Package ard learns one length scale per feature for an RBF kernel the
// way a Gaussian process with automatic relevance determination does: by
// maximising the marginal likelihood of
//
//	k(x, z) = σ_f² exp(−½ Σ_j (x_j − z_j)²/ℓ_j²) + σ_n² [x = z]
//
// on standardised features and a target scaled to unit variance. A
// feature the target does not vary along gets a long ℓ_j. Package kpls
// turns the scales into feature weights (min ℓ / ℓ_j) for the small sets
// that have no screen (issue #46; docs/scale.md, "Per-feature scales on
// small sets"). Each evaluation costs a Cholesky factorisation and an
// inverse of the n×n matrix, so callers bound n.
package ard
