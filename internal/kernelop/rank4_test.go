package kernelop

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// rank4Paths runs f under each kernel path this build and CPU have:
// AVX-512, AVX2 and the Go loop.
func rank4Paths(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	saved2, saved512 := useAVX2, useAVX512
	defer func() { useAVX2, useAVX512 = saved2, saved512 }()
	for _, p := range []struct {
		name         string
		have         bool // the build and CPU run this path
		avx2, avx512 bool
	}{
		{"avx512", saved512, true, true},
		{"avx2", saved2, true, false},
		{"generic", true, false, false},
	} {
		if !p.have {
			continue
		}
		useAVX2, useAVX512 = p.avx2, p.avx512
		t.Run("path="+p.name, f)
	}
}

// rank4Case is four float32 rows of m entries, x, y and x4, random.
type rank4Case struct {
	a     [4][]float32
	x, y  []float64
	x4    [4]float64
	m     int
	label string
}

func newRank4Case(rng *rand.Rand, m int) rank4Case {
	c := rank4Case{m: m, x: make([]float64, m), y: make([]float64, m), label: fmt.Sprintf("m = %d", m)}
	for r := range c.a {
		c.a[r] = make([]float32, m)
		for j := range c.a[r] {
			c.a[r][j] = float32(rng.NormFloat64())
		}
	}
	for j := range c.x {
		c.x[j], c.y[j] = rng.NormFloat64(), rng.NormFloat64()
	}
	for r := range c.x4 {
		c.x4[r] = rng.NormFloat64()
	}
	return c
}

// check compares got (row sums) and y (updated in place from c.y) with the
// same sums taken one term at a time in float64 from the float32 entries.
// Bound: both sum m (row sums) or 4 (mirror) products in different orders,
// so they differ by at most 2·(m+4)·ε times the sum of the absolute terms.
func (c rank4Case) check(t *testing.T, got [4]float64, y []float64) {
	t.Helper()
	m := c.m
	want, wantY := make([]float64, 4), append([]float64(nil), c.y...)
	sAbs, yAbs := make([]float64, 4), make([]float64, m)
	for j := range m {
		for r := range 4 {
			v := float64(c.a[r][j])
			want[r] += v * c.x[j]
			sAbs[r] += math.Abs(v * c.x[j])
			wantY[j] += c.x4[r] * v
			yAbs[j] += math.Abs(c.x4[r] * v)
		}
		yAbs[j] += math.Abs(c.y[j])
	}
	eps := 0x1p-52
	for r := range 4 {
		if e := math.Abs(got[r] - want[r]); !(e <= 2*float64(m+4)*eps*sAbs[r]) {
			t.Errorf("%s: row sum %d is %g, want %g", c.label, r, got[r], want[r])
		}
	}
	for j := range m {
		if e := math.Abs(y[j] - wantY[j]); !(e <= 2*8*eps*yAbs[j]) {
			t.Errorf("%s: y[%d] = %g, want %g", c.label, j, y[j], wantY[j])
		}
	}
}

// TestRank4 checks rank4 (the assembly kernel where the path has it, with
// its Go tail) against sums by the definition, on lengths around the
// kernels' steps of 4 and 8.
func TestRank4(t *testing.T) {
	rank4Paths(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(3, 4))
		for _, m := range []int{0, 1, 3, 4, 5, 7, 8, 9, 11, 15, 16, 64, 67, 2048} {
			c := newRank4Case(rng, m)
			y := append([]float64(nil), c.y...)
			got := rank4(c.a[0], c.a[1], c.a[2], c.a[3], c.x, y, c.x4)
			c.check(t, got, y)
		}
	})
}

// TestRank4x2 checks the paired kernel against sums by the definition for
// each of its two vectors, and that each vector's results are rank4's bit
// for bit: a fold's product must not depend on which vector it is paired
// with.
func TestRank4x2(t *testing.T) {
	rank4Paths(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(5, 6))
		for _, m := range []int{0, 1, 7, 8, 9, 15, 16, 17, 64, 67, 2048} {
			c0 := newRank4Case(rng, m)
			c1 := newRank4Case(rng, m)
			c1.a = c0.a // the same rows, two vectors
			y0, y1 := append([]float64(nil), c0.y...), append([]float64(nil), c1.y...)
			// Prefetching (a hint, never read) must not change a bit:
			// the kernel takes 0, 2 or 4 rows of pf, here c1's own rows.
			var pf [4]*float32
			if m > 0 {
				pf = [4]*float32{&c1.a[0][0], &c1.a[1][0], &c1.a[2][0], &c1.a[3][0]}
			}
			got := rank4x2(c0.a[0], c0.a[1], c0.a[2], c0.a[3], c0.x, y0, c1.x, y1, [2][4]float64{c0.x4, c1.x4}, &pf, 2*(m%3))
			c0.check(t, got[0], y0)
			c1.check(t, got[1], y1)
			for q, c := range []rank4Case{c0, c1} {
				y := append([]float64(nil), c.y...)
				alone := rank4(c.a[0], c.a[1], c.a[2], c.a[3], c.x, y, c.x4)
				if alone != got[q] {
					t.Errorf("m = %d: vector %d's row sums %v paired, %v alone", m, q, got[q], alone)
				}
				for j, v := range [2][]float64{y0, y1}[q] {
					if math.Float64bits(v) != math.Float64bits(y[j]) {
						t.Errorf("m = %d: vector %d's y[%d] = %v paired, %v alone", m, q, j, v, y[j])
						break
					}
				}
			}
		}
	})
}
