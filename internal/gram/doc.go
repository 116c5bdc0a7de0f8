// Package gram builds kernel (Gram) matrices: the training matrix K with
// K_ij = k(x_i, x_j) in full symmetric row-major storage, cross matrices
// k(z_i, x_j) for new points, and the double centring K_c = JKJ.
//
// # Performance
//
// RBF and Linear split the upper triangle into square tiles handed out to
// GOMAXPROCS goroutines (serially below about 2¹⁵ entries). Each tile is
// computed once into per-goroutine scratch, then written to its place and,
// transposed, to its mirror image in the lower triangle; no two goroutines
// write the same entry and the context is checked before every tile. From
// 2²⁰ entries tiles are written with non-temporal stores, which skip
// reading the destination's cache lines. For the RBF kernel, squared
// distances come from simd.SqDist over a feature-major copy of x (fewer
// than 24 features) or from one simd.GemmNTSerial product per tile of
// augmented rows (from 24 features on, where it is faster), and the
// exponentials from one simd.ScaledExp call per tile.
//
// At n = 8192, d = 8 (n(n−1)/2 = 33.5 million exponentials, 512 MiB
// written) on two cores, about two thirds of the time is computing the
// tiles and the rest writing K to memory; see the bench package.
//
// A freshly allocated K costs more than that to fault in, page by page, on
// first touch; on Linux the builders therefore advise the kernel to use
// transparent huge pages for their output (internal/hugepage). Callers that
// build many matrices of one size should reuse the destination.
//
// Center, CenterStats, CenterCross and the cross functions split rows over
// goroutines the same way.
//
// # Accuracy
//
// Below 24 features squared distances are summed from differences, which
// keeps full relative accuracy even for close points, and an entry of K
// differs from the naive math.Exp loop by a few ulps of the exponent's
// magnitude (simd.ScaledExp is within 1 ulp of the correctly rounded
// exponential). From 24 features they come from ‖x‖² + ‖y‖² − 2xᵀy about
// the data's mean: its absolute error is a few ulps of the points' squared
// distances from the mean, not of their squared distance from the origin
// (which would cancel catastrophically for close points far from it); a
// near-duplicate pair may then get an entry above 1 by that rounding. The
// diagonal is exactly 1 and K is exactly symmetric either way.
package gram
