package blastest

import (
	"math"
	"math/rand/v2"
	"testing"

	gblas "gonum.org/v1/gonum/blas"

	"github.com/kpls-go/kpls/blas"
)

const guard = 5

var (
	sizes  = []int{0, 1, 2, 3, 4, 5, 7, 8, 13, 33}
	incs   = []int{1, 2, -3}
	scales = []float64{0, 1, -0.6}
)

// strided is a BLAS vector embedded in a NaN-filled buffer.
type strided struct {
	buf    []float64 // guards, then the vector's span, then guards
	n, inc int
}

func newStrided(rng *rand.Rand, n, inc int) strided {
	span := 0
	if n > 0 {
		span = 1 + (n-1)*abs(inc)
	}
	v := strided{buf: make([]float64, span+2*guard), n: n, inc: inc}
	for i := range v.buf {
		v.buf[i] = math.NaN()
	}
	for i := range n {
		v.buf[guard+v.index(i)] = rng.NormFloat64()
	}
	return v
}

// index is the position of element i within the span, as BLAS defines it
// for negative increments (the vector runs backwards).
func (v strided) index(i int) int {
	if v.inc > 0 {
		return i * v.inc
	}
	return (v.n - 1 - i) * -v.inc
}

func (v strided) slice() []float64 { return v.buf[guard : len(v.buf)-guard] }
func (v strided) at(i int) float64 { return v.buf[guard+v.index(i)] }

func (v strided) values() []float64 {
	out := make([]float64, v.n)
	for i := range out {
		out[i] = v.at(i)
	}
	return out
}

// nanOut sets the vector's elements to NaN: an output with beta = 0.
func (v strided) nanOut() {
	for i := range v.n {
		v.buf[guard+v.index(i)] = math.NaN()
	}
}

// checkGaps fails if anything outside the vector's elements changed.
func (v strided) checkGaps(t *testing.T, before []float64, what string) {
	t.Helper()
	elem := make(map[int]bool, v.n)
	for i := range v.n {
		elem[guard+v.index(i)] = true
	}
	for i := range v.buf {
		if !elem[i] && math.Float64bits(v.buf[i]) != math.Float64bits(before[i]) {
			t.Fatalf("%s: wrote outside its elements at buffer index %d", what, i)
		}
	}
}

// matrix is an r×c row-major matrix with leading dimension ld ≥ c; the
// padding columns and the guards are NaN.
type matrix struct {
	buf      []float64
	r, c, ld int
}

func newMatrix(rng *rand.Rand, r, c, ld int) matrix {
	m := matrix{buf: make([]float64, r*ld+2*guard), r: r, c: c, ld: ld}
	for i := range m.buf {
		m.buf[i] = math.NaN()
	}
	for i := range r {
		for j := range c {
			m.set(i, j, rng.NormFloat64())
		}
	}
	return m
}

func (m matrix) slice() []float64        { return m.buf[guard : len(m.buf)-guard] }
func (m matrix) at(i, j int) float64     { return m.buf[guard+i*m.ld+j] }
func (m matrix) set(i, j int, v float64) { m.buf[guard+i*m.ld+j] = v }

// symmetrize mirrors the ul triangle and returns the full matrix, then
// poisons the other triangle of m with NaN.
func (m matrix) symmetrize(ul gblas.Uplo) matrix {
	full := matrix{buf: append([]float64(nil), m.buf...), r: m.r, c: m.c, ld: m.ld}
	for i := range m.r {
		for j := range i {
			if ul == gblas.Upper {
				full.set(i, j, m.at(j, i))
				m.set(i, j, math.NaN())
			} else {
				full.set(j, i, m.at(i, j))
				m.set(j, i, math.NaN())
			}
		}
	}
	return full
}

func (m matrix) checkGaps(t *testing.T, before []float64, what string) {
	t.Helper()
	for i := range m.buf {
		k := i - guard
		inside := k >= 0 && k < m.r*m.ld && k%m.ld < m.c
		if !inside && math.Float64bits(m.buf[i]) != math.Float64bits(before[i]) {
			t.Fatalf("%s: wrote outside the matrix at buffer index %d", what, i)
		}
	}
}

func abs(i int) int { return max(i, -i) }

func nan() float64 { return math.NaN() }

// near reports whether got equals want to within a relative 1e-12 of the
// magnitude of the terms that produced it.
func near(got, want, mag float64) bool {
	if math.IsNaN(got) || math.IsNaN(want) {
		return false
	}
	return math.Abs(got-want) <= 1e-12*(mag+1e-300)
}

// sum accumulates a reference value and the magnitude of its terms.
type sum struct{ v, mag float64 }

func (s *sum) add(x float64) { s.v += x; s.mag += math.Abs(x) }

// result is alpha·s + beta·y0, with y0 ignored when beta is 0.
func result(alpha float64, s sum, beta, y0 float64) sum {
	r := sum{v: alpha * s.v, mag: math.Abs(alpha) * s.mag}
	if beta != 0 {
		r.add(beta * y0)
	}
	return r
}

func transName(tr gblas.Transpose) string {
	if tr == gblas.NoTrans {
		return "N"
	}
	return "T"
}

// All runs every test of the suite as subtests.
func All(t *testing.T, impl blas.Float64) {
	t.Run("Level1", func(t *testing.T) { Level1Test(t, impl) })
	t.Run("Dgemv", func(t *testing.T) { DgemvTest(t, impl) })
	t.Run("Dsymv", func(t *testing.T) { DsymvTest(t, impl) })
	t.Run("Dgemm", func(t *testing.T) { DgemmTest(t, impl) })
	t.Run("Dsymm", func(t *testing.T) { DsymmTest(t, impl) })
	t.Run("LargeSymv", func(t *testing.T) { LargeSymvTest(t, impl) })
}
