package gram

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestRowsNaive checks blocks of NewRBFRows and LinearRows against the kernel
// definitions evaluated by plain loops with math.Exp. The RBF bound: the
// distance of d terms summed from differences has relative error ≤ (d+2)u,
// so the exponent a has absolute error ≤ |a|(d+3)u and each exp (ScaledExp,
// math.Exp) adds 1 ulp: |ΔK| ≤ K·(|a|(d+3) + 2)·u. The linear kernel's
// dot products: |ΔK| ≤ d·u·|x_i|ᵀ|x_j| for both, doubled. From 24 features
// RBF uses the expansion about the mean: ld ≤ d+8 products whose absolute
// values sum to at most 2·spread (spread = ‖x_i‖² + ‖x_j‖²), so
// |ΔD| ≤ (2(d+8)+4)·u·spread with the shift by the mean.
func TestRowsNaive(t *testing.T) {
	const u = 0x1p-53
	rng := rand.New(rand.NewPCG(7, 7))
	for _, d := range []int{1, 3, 9, 30} {
		for _, n := range []int{1, 5, 37} {
			x := make([]float64, n*d)
			for i := range x {
				x[i] = rng.NormFloat64()
			}
			for _, width := range []float64{0.05 * float64(d), float64(d), 100 * float64(d)} {
				rows := NewRBFRows(x, n, d, width)
				checkBlocks(t, "RBF", rows, x, n, d, func(i, j int, s, spread float64) (want, bound float64) {
					a := -s / (2 * width)
					want = math.Exp(a)
					bound = want * (math.Abs(a)*float64(d+3) + 2) * u
					if d >= productMinDim {
						// ld ≤ d+8 products of terms summing to ≤ 2·spread in
						// absolute value, plus the shift by the mean.
						bound = want * (2 + float64(2*(d+8)+4)*spread/(2*width)) * u
					}
					return want, bound
				})
				full := make([]float64, n*n)
				rows.Rows(full, 0, n)
				for i := range n {
					if full[i*n+i] != 1 {
						t.Fatalf("RBF diagonal %v", full[i*n+i])
					}
				}
			}
			lin := NewLinearRows(x, n, d)
			got := make([]float64, n*n)
			lin.Rows(got, 0, n)
			for i := range n {
				for j := range n {
					var s, sa float64
					for k := range d {
						s += x[i*d+k] * x[j*d+k]
						sa += math.Abs(x[i*d+k] * x[j*d+k])
					}
					if g := got[i*n+j]; math.Abs(g-s) > 2*float64(d)*u*sa {
						t.Fatalf("linear d=%d K[%d,%d] = %v, want %v", d, i, j, g, s)
					}
				}
			}
		}
	}
}

// TestStationaryRowsRadial checks blocks of the Laplacian and Matérn rows
// against their definitions by plain loops (math.Sqrt, math.Exp). Below 24
// features the distance s has relative error ≤ (d+2)u, so r = a√s has
// ≤ ((d+2)/2 + 2)u; the profile's relative sensitivity |f′/f| ≤ 1 turns
// that into |r|·((d+2)/2 + 2)u of K, plus the exp's and the factor's
// roundings (4u). From 24 features the distance comes from the augmented
// product with absolute error ≤ δ = (2(d+8)+4)·u·spread, so r moves by at
// most a√δ.
func TestStationaryRowsRadial(t *testing.T) {
	const u = 0x1p-53
	profiles := []struct {
		name   string
		f      func(width float64) Profile
		a      func(width float64) float64
		factor func(r float64) float64
	}{
		{"laplacian", LaplacianProfile, func(w float64) float64 { return 1 / w }, func(float64) float64 { return 1 }},
		{"matern32", Matern32Profile, func(w float64) float64 { return math.Sqrt(3) / w }, func(r float64) float64 { return 1 + r }},
		{"matern52", Matern52Profile, func(w float64) float64 { return math.Sqrt(5) / w }, func(r float64) float64 { return 1 + r + r*r/3 }},
	}
	rng := rand.New(rand.NewPCG(8, 8))
	for _, d := range []int{1, 3, 9, 30} {
		for _, n := range []int{1, 5, 37} {
			x := make([]float64, n*d)
			for i := range x {
				x[i] = rng.NormFloat64()
			}
			for _, p := range profiles {
				for _, width := range []float64{0.05 * float64(d), float64(d), 100 * float64(d)} {
					a := p.a(width)
					checkBlocks(t, p.name, NewStationaryRows(x, n, d, p.f(width)), x, n, d, func(i, j int, s, spread float64) (want, bound float64) {
						r := a * math.Sqrt(s)
						want = p.factor(r) * math.Exp(-r)
						if i == j {
							want = 1
						}
						bound = want * (r*(float64(d+2)/2+2) + 4) * u
						if d >= productMinDim {
							bound = want * (a*math.Sqrt(float64(2*(d+8)+4)*u*spread) + r*4*u + 4*u)
						}
						return want, bound
					})
				}
			}
		}
	}
}

// checkBlocks compares three blocks of rows (the whole matrix and two
// off-centre rectangles) entry by entry with ref, given the squared
// distance s of rows i and j of x by plain differences and their spread
// ‖x_i‖² + ‖x_j‖².
func checkBlocks(t *testing.T, name string, rows interface {
	Block(dst []float64, r0, r1, c0, c1 int)
}, x []float64, n, d int, ref func(i, j int, s, spread float64) (want, bound float64)) {
	t.Helper()
	for _, b := range [][4]int{{0, n, 0, n}, {n / 3, n, n / 2, n}, {0, n / 2, n / 4, n}} {
		r0, r1, c0, c1 := b[0], b[1], b[2], b[3]
		got := make([]float64, (r1-r0)*(c1-c0))
		rows.Block(got, r0, r1, c0, c1)
		for i := r0; i < r1; i++ {
			for j := c0; j < c1; j++ {
				var s, spread float64
				for k := range d {
					v := x[i*d+k] - x[j*d+k]
					s += v * v
					spread += x[i*d+k]*x[i*d+k] + x[j*d+k]*x[j*d+k]
				}
				want, bound := ref(i, j, s, spread)
				if g := got[(i-r0)*(c1-c0)+j-c0]; !(math.Abs(g-want) <= bound) {
					t.Fatalf("%s d=%d n=%d K[%d,%d] = %v, want %v (bound %.3g)", name, d, n, i, j, g, want, bound)
				}
			}
		}
	}
}
