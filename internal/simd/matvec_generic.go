package simd

// dot4Generic sets out[r] = Σ_{k<n} a[r·lda+k]·x[k] for r < 4: the dot
// products of four consecutive rows with x. It is the reference for
// dot4AVX2, which sums in another order.
func dot4Generic(a []float64, lda int, x []float64, out *[4]float64) {
	var s [4]float64
	for r := range s {
		row := a[r*lda : r*lda+len(x)]
		for k, v := range x {
			s[r] += row[k] * v
		}
	}
	*out = s
}

// symRank4Generic sets out[r] = Σ_k a[r·lda+k]·x[k] and adds
// Σ_r xs[r]·a[r·lda+k] to y[k], for the 4×len(x) block at a. Applied to an
// off-diagonal block of a symmetric matrix it accumulates the block's
// contribution to A·x through its rows and, by symmetry, through its
// columns, reading the block once. It is the reference for symRank4AVX2.
func symRank4Generic(a []float64, lda int, x, y []float64, xs, out *[4]float64) {
	var s [4]float64
	for r := range s {
		row := a[r*lda : r*lda+len(x)]
		for k, v := range x {
			s[r] += row[k] * v
			y[k] += xs[r] * row[k]
		}
	}
	*out = s
}
