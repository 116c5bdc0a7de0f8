package kernelop

//go:generate go run ./_gen/symrank4.go

// elem is the type of a stored triangle's entries.
type elem interface{ float32 | float64 }

// symRank4Kernel is an assembly kernel of symRank4Generic for a fixed
// number of vectors (its place in a table), on the first m columns; xs is
// laid out as the kernel's instruction set needs (symKernels.lanes).
type symRank4Kernel[T elem] func(a0, a1, a2, a3 *T, x, y *float64, ld, m int, xs, out *float64)

// symKernels is the set of assembly kernels in use for entries of type T.
type symKernels[T elem] struct {
	byV []symRank4Kernel[T] // by number of vectors, from 1; empty: the generic twin only
	// wide: the kernels take any number of columns (AVX-512, a masked
	// tail); otherwise a multiple of 4, with xs[4q+r] repeated in four
	// lanes (AVX2, which has no broadcast operand).
	wide bool
}

// symRank4 applies four stretches of rows of a symmetric matrix, a0..a3
// (m entries each, columns c..c+m of rows i..i+3, all right of the
// diagonal block), to k vectors at once, both sides: for q < k and r < 4,
//
//	out[4q+r] = Σ_j a_r[j]·x[q·ld+j]      (the rows times the vectors)
//	y[q·ld+j] += Σ_r xs[4q+r]·a_r[j]      (the mirror image, xs[4q+r] = v_q[i+r])
//
// Each entry is loaded (and, from float32, widened) once and applied to
// up to six vectors (AVX-512; two with AVX2): the work per entry read is
// what makes a block of k vectors cost less than k products. out is
// overwritten.
func symRank4[T elem](kn *symKernels[T], a0, a1, a2, a3 []T, x, y []float64, ld, k int, xs, out []float64) {
	m := len(a0)
	a1, a2, a3 = a1[:m], a2[:m], a3[:m]
	if k == 0 {
		return
	}
	_, _ = xs[4*k-1], out[4*k-1]
	if m == 0 {
		clear(out[:4*k])
		return
	}
	_, _ = x[(k-1)*ld+m-1], y[(k-1)*ld+m-1]
	done := 0
	if len(kn.byV) > 0 {
		done = m
		if !kn.wide {
			done = m &^ 3
		}
	}
	if done > 0 {
		maxV := len(kn.byV) - 1
		groups := (k + maxV - 1) / maxV
		var xs4 [2 * 4 * 4]float64 // AVX2: xs in four lanes, for its two vectors
		for q0, g := 0, 0; q0 < k; g++ {
			v := (k - q0) / (groups - g) // as equal as possible, larger last
			xp := &xs[4*q0]
			if !kn.wide {
				for j := range 4 * v {
					xs4[4*j], xs4[4*j+1], xs4[4*j+2], xs4[4*j+3] = xs[4*q0+j], xs[4*q0+j], xs[4*q0+j], xs[4*q0+j]
				}
				xp = &xs4[0]
			}
			kn.byV[v](&a0[0], &a1[0], &a2[0], &a3[0], &x[q0*ld], &y[q0*ld], ld, done, xp, &out[4*q0])
			q0 += v
		}
	} else {
		clear(out[:4*k])
	}
	if done < m {
		var t [4]float64
		for q := range k {
			symRank4Generic(a0[done:], a1[done:], a2[done:], a3[done:], x[q*ld+done:], y[q*ld+done:], ld, 1, xs[4*q:4*q+4], t[:])
			for r, s := range t {
				out[4*q+r] += s
			}
		}
	}
}

// symRank4Generic is the specification of symRank4 (and of its kernels):
// the same sums, one column at a time.
func symRank4Generic[T elem](a0, a1, a2, a3 []T, x, y []float64, ld, k int, xs, out []float64) {
	m := len(a0)
	a1, a2, a3 = a1[:m], a2[:m], a3[:m]
	for q := range k {
		xq, yq := x[q*ld:q*ld+m], y[q*ld:q*ld+m]
		x0, x1, x2, x3 := xs[4*q], xs[4*q+1], xs[4*q+2], xs[4*q+3]
		var s0, s1, s2, s3 float64
		for j, xj := range xq {
			v0, v1, v2, v3 := float64(a0[j]), float64(a1[j]), float64(a2[j]), float64(a3[j])
			s0 += v0 * xj
			s1 += v1 * xj
			s2 += v2 * xj
			s3 += v3 * xj
			yq[j] += x0*v0 + x1*v1 + x2*v2 + x3*v3
		}
		out[4*q], out[4*q+1], out[4*q+2], out[4*q+3] = s0, s1, s2, s3
	}
}
