//go:build !noasm

package simd

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// useAVX2 selects the AVX2+FMA kernels. It is set once from the CPU's
// features, restricted by KPLS_SIMD (path.go); tests clear it to run the
// generic twins.
var useAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

//go:noescape
func expAVX2(dst, src *float64, n int, scale float64)

//go:noescape
func expAVX512(dst, src *float64, n int, scale float64)

// expAsm runs the assembly kernels on the longest prefix they handle (AVX-512
// on multiples of 8 where the CPU has it, AVX2 on the rest of the multiple
// of 4) and returns that prefix's length.
func expAsm(dst, x []float64, s float64) int {
	n := len(x) &^ 3
	if !useAVX2 || n == 0 {
		return 0
	}
	done := 0
	if n8 := len(x) &^ 7; useAVX512 && n8 > 0 {
		expAVX512(&dst[0], &x[0], n8, s)
		done = n8
	}
	if done < n {
		expAVX2(&dst[done], &x[done], n-done, s)
	}
	return n
}

//go:noescape
func sqDistAVX2(dst, xt *float64, ld int, xi *float64, d, n int)

//go:noescape
func sqDistAVX512(dst, xt *float64, ld int, xi *float64, d, n int)

// sqDistAsm runs the AVX-512 kernel on the multiple of 8 where the CPU has
// it and AVX2 on the rest of the multiple of 4; it returns how many
// columns it did.
func sqDistAsm(dst, xt []float64, ld int, xi []float64) int {
	n := len(dst) &^ 3
	if !useAVX2 || n == 0 {
		return 0
	}
	done := 0
	if n8 := len(dst) &^ 7; useAVX512 && n8 > 0 {
		sqDistAVX512(&dst[0], &xt[0], ld, &xi[0], len(xi), n8)
		done = n8
	}
	if done < n {
		sqDistAVX2(&dst[done], &xt[done], ld, &xi[0], len(xi), n-done)
	}
	return n
}

//go:noescape
func dot4AVX2(a *float64, lda int, x *float64, n int, out *[4]float64)

//go:noescape
func symRank4AVX2(a *float64, lda int, x, y *float64, n int, xs, out *[4]float64)

// dot4 is dot4Generic with the multiple-of-4 prefix in assembly.
func dot4(a []float64, lda int, x []float64, out *[4]float64) {
	m := len(x) &^ 3
	if !useAVX2 || m == 0 {
		dot4Generic(a, lda, x, out)
		return
	}
	_ = a[3*lda+len(x)-1]
	dot4AVX2(&a[0], lda, &x[0], m, out)
	if m < len(x) {
		var t [4]float64
		dot4Generic(a[m:], lda, x[m:], &t)
		for r := range t {
			out[r] += t[r]
		}
	}
}

// symRank4 is symRank4Generic with the multiple-of-4 prefix in assembly.
func symRank4(a []float64, lda int, x, y []float64, xs, out *[4]float64) {
	m := len(x) &^ 3
	if !useAVX2 || m == 0 {
		symRank4Generic(a, lda, x, y, xs, out)
		return
	}
	_ = a[3*lda+len(x)-1]
	_ = y[len(x)-1]
	symRank4AVX2(&a[0], lda, &x[0], &y[0], m, xs, out)
	if m < len(x) {
		var t [4]float64
		symRank4Generic(a[m:], lda, x[m:], y[m:len(x)], xs, &t)
		for r := range t {
			out[r] += t[r]
		}
	}
}

//go:noescape
func streamAVX2(dst, src *float64, n int)

func sfence()

func fence() {
	if useAVX2 {
		sfence()
	}
}

// streamAsm copies an unaligned head with ordinary stores, then the
// 32-byte-aligned multiple of 4 with non-temporal ones. It returns how many
// elements it copied; the caller copies the rest.
func streamAsm(dst, src []float64) int {
	if !useAVX2 || len(dst) < 16 {
		return 0
	}
	head := int((32 - uintptr(unsafe.Pointer(&dst[0]))&31) & 31 / 8)
	if uintptr(unsafe.Pointer(&dst[0]))&7 != 0 {
		return 0
	}
	copy(dst[:head], src[:head])
	m := (len(dst) - head) &^ 3
	streamAVX2(&dst[head], &src[head], m)
	return head + m
}

//go:noescape
func transpose8AVX2(dst *float64, ldd int, src *float64, lds int, w int)

// transposeAsm transposes the rows of src in strips of eight, covering the
// multiple-of-4 part of each strip, and returns how many rows it covered.
func transposeAsm(dst []float64, ldd int, src []float64, lds, h, w int) int {
	w4 := w &^ 3
	if !useAVX2 || w4 == 0 {
		return 0
	}
	i := 0
	for ; i+8 <= h; i += 8 {
		transpose8AVX2(&dst[i], ldd, &src[i*lds], lds, w4)
	}
	return i
}

//go:noescape
func sumAVX2(x *float64, n int) float64

//go:noescape
func centerRowAVX2(row, mean *float64, n int, c float64) float64

// sumKernel is sumGeneric, in assembly when available; len(x) is a positive
// multiple of 16.
func sumKernel(x []float64) float64 {
	if !useAVX2 {
		return sumGeneric(x)
	}
	return sumAVX2(&x[0], len(x))
}

// centerRowKernel is centerRowGeneric, in assembly when available;
// len(row) is a positive multiple of 16 and mean at least as long.
func centerRowKernel(row, mean []float64, c float64) float64 {
	if !useAVX2 {
		return centerRowGeneric(row, mean, c)
	}
	_ = mean[len(row)-1]
	return centerRowAVX2(&row[0], &mean[0], len(row), c)
}

//go:noescape
func rank4AVX2(b *float64, ldb int, y *float64, n int, xs *[4]float64)

// rank4 is rank4Generic with the multiple-of-4 prefix in assembly.
func rank4(b []float64, ldb int, y []float64, xs *[4]float64) {
	m := len(y) &^ 3
	if !useAVX2 || m == 0 {
		rank4Generic(b, ldb, y, xs)
		return
	}
	_ = b[3*ldb+len(y)-1]
	rank4AVX2(&b[0], ldb, &y[0], m, xs)
	if m < len(y) {
		rank4Generic(b[m:], ldb, y[m:], xs)
	}
}

//go:noescape
func rank4x2AVX2(b *float64, ldb int, c *float64, ldc int, n int, xs *[8]float64)

// rank4x2 is rank4x2Generic with the multiple-of-4 prefix in assembly.
func rank4x2(b []float64, ldb int, c []float64, ldc, n int, xs *[8]float64) {
	m := n &^ 3
	if !useAVX2 || m == 0 {
		rank4x2Generic(b, ldb, c, ldc, n, xs)
		return
	}
	_ = b[3*ldb+n-1]
	_ = c[ldc+n-1]
	rank4x2AVX2(&b[0], ldb, &c[0], ldc, m, xs)
	if m < n {
		rank4x2Generic(b[m:], ldb, c[m:], ldc, n-m, xs)
	}
}

//go:noescape
func symRank8AVX2(a *float64, lda int, x, y *float64, n int, xs *[8][4]float64, out *[8]float64, pf *float64, pfRows int)

//go:noescape
func symRank8AVX512(a *float64, lda int, x, y *float64, n int, xs *[8][4]float64, out *[8]float64, pf *float64, pfRows int)

// symRank8 is symRank8Generic with the multiple-of-8 (AVX-512) or of 4
// (AVX2) prefix in assembly.
func symRank8(a []float64, lda int, x, y []float64, xs *[8][4]float64, out *[8]float64) {
	symRank8Prefetch(a, lda, x, y, xs, out, nil, 0)
}

// symRank8Prefetch is symRank8 that also prefetches into L2, as far along
// them as it reads a's rows, the rows (2 or 4, lda apart) starting at
// next[0]; with next nil or rows 0 it prefetches nothing.
func symRank8Prefetch(a []float64, lda int, x, y []float64, xs *[8][4]float64, out *[8]float64, next []float64, rows int) {
	m := len(x) &^ 3
	if !useAVX2 || m == 0 {
		symRank8Generic(a, lda, x, y, xs, out)
		return
	}
	_ = a[7*lda+len(x)-1]
	_ = y[len(x)-1]
	var pf *float64
	if len(next) > 0 && (rows == 2 || rows == 4) {
		pf = &next[0]
	} else {
		rows = 0
	}
	if m8 := len(x) &^ 7; useAVX512 && m8 > 0 {
		m = m8
		symRank8AVX512(&a[0], lda, &x[0], &y[0], m, xs, out, pf, rows)
	} else {
		symRank8AVX2(&a[0], lda, &x[0], &y[0], m, xs, out, pf, rows)
	}
	if m < len(x) {
		var t [8]float64
		symRank8Generic(a[m:], lda, x[m:], y[m:len(x)], xs, &t)
		for r := range t {
			out[r] += t[r]
		}
	}
}

//go:noescape
func symRank8x2AVX512(a *float64, lda int, x0, y0, x1, y1 *float64, n int, xs *[2][8][4]float64, out *[2][8]float64, pf *float64, pfRows int)

// symRank8x2 is symRank8Prefetch for two vectors, (x0, y0) with xs[0] and
// out[0], (x1, y1) with xs[1] and out[1]; on the AVX-512 path one pass
// over the rows serves both.
func symRank8x2(a []float64, lda int, x0, y0, x1, y1 []float64, xs *[2][8][4]float64, out *[2][8]float64, next []float64, rows int) {
	n := len(x0)
	m := n &^ 7
	if !useAVX2 || !useAVX512 || m == 0 {
		symRank8Prefetch(a, lda, x0, y0, &xs[0], &out[0], next, rows)
		symRank8Prefetch(a, lda, x1, y1, &xs[1], &out[1], nil, 0)
		return
	}
	_ = a[7*lda+n-1]
	_, _, _ = y0[n-1], x1[n-1], y1[n-1]
	var pf *float64
	if len(next) > 0 && (rows == 2 || rows == 4 || rows == 8) {
		pf = &next[0]
	} else {
		rows = 0
	}
	symRank8x2AVX512(&a[0], lda, &x0[0], &y0[0], &x1[0], &y1[0], m, xs, out, pf, rows)
	if m < n {
		var t [8]float64
		symRank8Generic(a[m:], lda, x0[m:], y0[m:n], &xs[0], &t)
		for r := range t {
			out[0][r] += t[r]
		}
		symRank8Generic(a[m:], lda, x1[m:n], y1[m:n], &xs[1], &t)
		for r := range t {
			out[1][r] += t[r]
		}
	}
}

//go:noescape
func dot3x4AVX2(a *float64, lda int, b *float64, ldb, n int, out *[12]float64)

//go:noescape
func dot3x4AVX512(a *float64, lda int, b *float64, ldb, n int, out *[12]float64)

// useAVX512 selects the AVX-512 variant of the register-blocked dot
// products (twice the lanes per multiply–add); tests clear it with useAVX2.
var useAVX512 = useAVX2 && cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL

// dot3x4 is dot3x4Generic with the longest prefix it can in assembly.
func dot3x4(a []float64, lda int, b []float64, ldb, n int, out *[12]float64) {
	m := n &^ 3
	if !useAVX2 || m == 0 {
		dot3x4Generic(a, lda, b, ldb, n, out)
		return
	}
	_ = a[2*lda+n-1]
	_ = b[3*ldb+n-1]
	if m8 := n &^ 7; useAVX512 && m8 > 0 {
		m = m8
		dot3x4AVX512(&a[0], lda, &b[0], ldb, m, out)
	} else {
		dot3x4AVX2(&a[0], lda, &b[0], ldb, m, out)
	}
	if m < n {
		var t [12]float64
		dot3x4Generic(a[m:], lda, b[m:], ldb, n-m, &t)
		for i := range t {
			out[i] += t[i]
		}
	}
}

//go:noescape
func scaledSqrtAVX2(dst, x *float64, n int, a float64)

// scaledSqrtKernel is scaledSqrtGeneric, in assembly when available;
// len(x) is a positive multiple of 16 and dst as long.
func scaledSqrtKernel(dst, x []float64, a float64) {
	if !useAVX2 {
		scaledSqrtGeneric(dst, x, a)
		return
	}
	_ = dst[len(x)-1]
	scaledSqrtAVX2(&dst[0], &x[0], len(x), a)
}
