//go:build !noasm

package kernelop

import (
	"golang.org/x/sys/cpu"

	"github.com/kpls-go/kpls/internal/simd"
)

// useAVX2 selects the assembly kernel of the float32 product; it follows
// the SIMD path of internal/simd, so KPLS_SIMD=generic turns it off too.
var useAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA && simd.Path() != simd.Generic

//go:noescape
func rank4F32AVX2(a0, a1, a2, a3 *float32, x, y *float64, m int, x4 *[4]float64, s *[4]float64)

// rank4 is rank4Generic with the longest multiple-of-4 prefix done by the
// AVX2 kernel: the Go loop converts and multiplies one entry at a time and
// reads the triangle at about a tenth of the memory bandwidth.
func rank4(a0, a1, a2, a3 []float32, x, y []float64, x4 [4]float64) [4]float64 {
	m := len(x)
	m4 := m &^ 3
	if !useAVX2 || m4 == 0 {
		return rank4Generic(a0, a1, a2, a3, x, y, x4)
	}
	a0, a1, a2, a3, y = a0[:m], a1[:m], a2[:m], a3[:m], y[:m]
	var s [4]float64
	rank4F32AVX2(&a0[0], &a1[0], &a2[0], &a3[0], &x[0], &y[0], m4, &x4, &s)
	if m4 < m {
		t := rank4Generic(a0[m4:], a1[m4:], a2[m4:], a3[m4:], x[m4:], y[m4:], x4)
		for r := range s {
			s[r] += t[r]
		}
	}
	return s
}
