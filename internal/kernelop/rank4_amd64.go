//go:build !noasm

package kernelop

import (
	"golang.org/x/sys/cpu"

	"github.com/kpls-go/kpls/internal/simd"
)

// useAVX2 and useAVX512 select the assembly kernels of the float32
// product; they follow the SIMD path of internal/simd, so KPLS_SIMD turns
// them off too.
var (
	useAVX2   = cpu.X86.HasAVX2 && cpu.X86.HasFMA && simd.Path() != simd.Generic
	useAVX512 = useAVX2 && cpu.X86.HasAVX512F && simd.Path() == simd.AVX512
)

//go:noescape
func rank4F32AVX2(a0, a1, a2, a3 *float32, x, y *float64, m int, x4 *[4]float64, s *[4]float64)

//go:noescape
func rank4F32AVX512(a0, a1, a2, a3 *float32, x, y *float64, m int, x4 *[4]float64, s *[4]float64)

//go:noescape
func rank4x2F32AVX512(a0, a1, a2, a3 *float32, x0, y0, x1, y1 *float64, m int, xs *[2][4]float64, s *[2][4]float64, pf *[4]*float32, npf int)

// rank4 is rank4Generic with the longest prefix the assembly kernel takes
// (a multiple of 8 columns with AVX-512, of 4 with AVX2) done by it: the
// Go loop converts and multiplies one entry at a time and reads the
// triangle at about a tenth of the memory bandwidth.
func rank4(a0, a1, a2, a3 []float32, x, y []float64, x4 [4]float64) [4]float64 {
	m := len(x)
	a0, a1, a2, a3, y = a0[:m], a1[:m], a2[:m], a3[:m], y[:m]
	var s [4]float64
	var mk int
	switch {
	case useAVX512 && m >= 8:
		mk = m &^ 7
		rank4F32AVX512(&a0[0], &a1[0], &a2[0], &a3[0], &x[0], &y[0], mk, &x4, &s)
	case useAVX2 && m >= 4:
		mk = m &^ 3
		rank4F32AVX2(&a0[0], &a1[0], &a2[0], &a3[0], &x[0], &y[0], mk, &x4, &s)
	default:
		return rank4Generic(a0, a1, a2, a3, x, y, x4)
	}
	if mk < m {
		t := rank4Generic(a0[mk:], a1[mk:], a2[mk:], a3[mk:], x[mk:], y[mk:], x4)
		for r := range s {
			s[r] += t[r]
		}
	}
	return s
}

// rank4x2 is rank4 for two vectors, (x0, y0) with xs[0] and (x1, y1) with
// xs[1]. With AVX-512 one kernel widens each entry of the rows once for
// both; each vector's result is then the same, bit for bit, as rank4's.
// Along the way it prefetches npf (0, 2 or 4) of the rows that pf points
// to, from the same column on; pf is only a hint, never read.
func rank4x2(a0, a1, a2, a3 []float32, x0, y0, x1, y1 []float64, xs [2][4]float64, pf *[4]*float32, npf int) (s [2][4]float64) {
	m := len(x0)
	if !useAVX512 || m < 8 {
		return [2][4]float64{rank4(a0, a1, a2, a3, x0, y0, xs[0]), rank4(a0, a1, a2, a3, x1, y1, xs[1])}
	}
	a0, a1, a2, a3 = a0[:m], a1[:m], a2[:m], a3[:m]
	x1, y0, y1 = x1[:m], y0[:m], y1[:m]
	mk := m &^ 7
	rank4x2F32AVX512(&a0[0], &a1[0], &a2[0], &a3[0], &x0[0], &y0[0], &x1[0], &y1[0], mk, &xs, &s, pf, npf)
	if mk < m {
		xv, yv := [2][]float64{x0, x1}, [2][]float64{y0, y1}
		for q := range xv {
			t := rank4Generic(a0[mk:], a1[mk:], a2[mk:], a3[mk:], xv[q][mk:], yv[q][mk:], xs[q])
			for r := range s[q] {
				s[q][r] += t[r]
			}
		}
	}
	return s
}
