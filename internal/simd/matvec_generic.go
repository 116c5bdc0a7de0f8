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

// rank4Generic adds Σ_r xs[r]·b[r·ldb+j] to y[j] for j < len(y): four rows
// of B, scaled, added to a row of C in one pass. It is the reference for
// rank4AVX2, which groups the four products differently.
func rank4Generic(b []float64, ldb int, y []float64, xs *[4]float64) {
	b0, b1, b2, b3 := b[:len(y)], b[ldb:ldb+len(y)], b[2*ldb:2*ldb+len(y)], b[3*ldb:3*ldb+len(y)]
	for j := range y {
		y[j] += xs[0]*b0[j] + xs[1]*b1[j] + xs[2]*b2[j] + xs[3]*b3[j]
	}
}

// rank4x2Generic is rank4Generic for two rows of C at once, c[:n] with xs[:4]
// and c[ldc:ldc+n] with xs[4:], loading each element of B once; it is the
// reference for rank4x2AVX2.
func rank4x2Generic(b []float64, ldb int, c []float64, ldc, n int, xs *[8]float64) {
	b0, b1, b2, b3 := b[:n], b[ldb:ldb+n], b[2*ldb:2*ldb+n], b[3*ldb:3*ldb+n]
	c0, c1 := c[:n], c[ldc:ldc+n]
	for j := range n {
		c0[j] += xs[0]*b0[j] + xs[1]*b1[j] + xs[2]*b2[j] + xs[3]*b3[j]
		c1[j] += xs[4]*b0[j] + xs[5]*b1[j] + xs[6]*b2[j] + xs[7]*b3[j]
	}
}

// symRank8Generic is symRank4Generic for eight rows; xs[r] holds the scale
// of row r in all four entries (the layout the kernel broadcasts from). It
// is the reference for symRank8AVX2.
func symRank8Generic(a []float64, lda int, x, y []float64, xs *[8][4]float64, out *[8]float64) {
	var s [8]float64
	for r := range s {
		row := a[r*lda : r*lda+len(x)]
		for k, v := range x {
			s[r] += row[k] * v
			y[k] += xs[r][0] * row[k]
		}
	}
	*out = s
}

// dot3x4Generic sets out[4r+q] = Σ_{k<n} a[r·lda+k]·b[q·ldb+k] for r < 3
// and q < 4: the block of A·Bᵀ for three rows of A and four rows of B. It
// is the reference for dot3x4AVX2, which sums in another order.
func dot3x4Generic(a []float64, lda int, b []float64, ldb, n int, out *[12]float64) {
	var s [12]float64
	for r := range 3 {
		ar := a[r*lda : r*lda+n]
		for q := range 4 {
			bq := b[q*ldb : q*ldb+n]
			for k, v := range ar {
				s[4*r+q] += v * bq[k]
			}
		}
	}
	*out = s
}
