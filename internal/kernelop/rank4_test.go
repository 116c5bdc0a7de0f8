package kernelop

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestRank4 compares rank4 (the assembly kernel where the build has it,
// with its Go tail) with the same sums taken one term at a time in
// float64 from the float32 entries, on lengths around the kernel's
// multiple-of-4 step. Bound: both sum m (row sums) or 4 (mirror) products
// in different orders, so they differ by at most 2·(m+4)·ε times the sum
// of the absolute terms.
func TestRank4(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, m := range []int{0, 1, 3, 4, 5, 8, 11, 64, 67, 2048} {
		var a [4][]float32
		for r := range a {
			a[r] = make([]float32, m)
			for j := range a[r] {
				a[r][j] = float32(rng.NormFloat64())
			}
		}
		x, y := make([]float64, m), make([]float64, m)
		for j := range x {
			x[j], y[j] = rng.NormFloat64(), rng.NormFloat64()
		}
		x4 := [4]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		want, wantY := make([]float64, 4), append([]float64(nil), y...)
		sAbs, yAbs := make([]float64, 4), make([]float64, m)
		for j := range m {
			for r := range 4 {
				v := float64(a[r][j])
				want[r] += v * x[j]
				sAbs[r] += math.Abs(v * x[j])
				wantY[j] += x4[r] * v
				yAbs[j] += math.Abs(x4[r] * v)
			}
			yAbs[j] += math.Abs(y[j])
		}
		got := rank4(a[0], a[1], a[2], a[3], x, y, x4)
		eps := 0x1p-52
		for r := range 4 {
			if e := math.Abs(got[r] - want[r]); !(e <= 2*float64(m+4)*eps*sAbs[r]) {
				t.Errorf("m = %d (asm %v): row sum %d is %g, want %g", m, useAVX2, r, got[r], want[r])
			}
		}
		for j := range m {
			if e := math.Abs(y[j] - wantY[j]); !(e <= 2*8*eps*yAbs[j]) {
				t.Errorf("m = %d (asm %v): y[%d] = %g, want %g", m, useAVX2, j, y[j], wantY[j])
			}
		}
	}
}
