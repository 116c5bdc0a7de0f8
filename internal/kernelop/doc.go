// Package kernelop provides the centred kernel matrix K_c = JKJ
// (J = I − 11ᵀ/n) as an operator: everything kpls does after building K
// needs only products K_c·v with thin blocks of vectors, so K_c need not
// be held in float64 once it no longer fits.
//
// # Kinds
//
//   - dense (NewDense): the n×n float64 matrix kpls builds today, products
//     through the BLAS seam. 8n² bytes; memory-bandwidth bound.
//   - float32 (NewFloat32): the upper triangle of K_c, packed, rounded to
//     float32 after centring in float64; products accumulate in float64.
//     2n² bytes; half the bandwidth of dense, and an entry error of
//     2⁻²⁴|K_c,ij| (see NewFloat32).
//   - matrix-free (NewMatrixFree): nothing n×n; every product recomputes
//     the upper triangle tile by tile from the inputs (Rows), applies each
//     tile to both sides (n²/2 exps per pass, not n²) and centres each tile
//     explicitly with the stored column means. Exp-throughput bound.
//   - hybrid (NewHybrid): matrix-free with as many centred tiles cached as
//     a byte budget allows.
//   - features (NewFeatures): the linear kernel only, K_c = X_cX_cᵀ held
//     as the column-centred inputs X_c; a product is X_c(X_cᵀv), 4nd
//     multiply-adds. 8nd bytes; no construction passes.
//
// Choose picks one from n and a memory limit; DefaultLimit is a safe
// fraction of physical memory.
//
// # Construction passes
//
// The non-dense kinds need the column means of K before they can centre a
// single entry, so they build in two passes over the upper triangle: the
// first is the uncentred product K·1 (column means, grand mean), the
// second centres every tile and accumulates the trace and squared
// Frobenius norm of K_c from the centred values themselves (no
// ‖K‖² − 2n‖m‖² + n²g² formula, which cancels catastrophically for wide
// kernels, where K_c is tiny next to K); float32 stores the tiles in this
// pass, hybrid caches the ones its budget allows.
//
// # Tiles and parallelism
//
// The upper triangle is cut into strips of tileRows rows, and each strip
// from the diagonal rightwards into tiles of at most tileCols columns
// (tiling.go). The tiles are split into GOMAXPROCS contiguous runs of
// about equal estimated cost (computing, reading from the cache, applying
// to k vectors), one per goroutine: a static split, so a product rounds
// the same from call to call. Each goroutine adds into its own k×n
// accumulator and the accumulators are summed at the end, so no two
// goroutines write the same memory. A tile is applied to both sides
// without a transposed copy: one read per vector (simd.GemvBoth) for up
// to four vectors, a product of blocks for each side beyond. The context is checked before every tile. A Rows that cannot
// compute blocks (no Block method) falls back to whole-row strips, with
// n² kernel evaluations per pass instead of n²/2.
//
// NewDistributed splits the same tiles over the ranks of a Comm (MPI's,
// internal/mpi): each rank computes its run of them, and one all-reduce
// per product sums the ranks' partial products.
package kernelop
