package simd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// randMat returns an m×n matrix with leading dimension lda whose padding
// columns are NaN, so that reading them poisons the result.
func randMat(rng *rand.Rand, m, n, lda int) []float64 {
	a := make([]float64, m*lda)
	for i := range m {
		for j := range lda {
			if j < n {
				a[i*lda+j] = rng.NormFloat64()
			} else {
				a[i*lda+j] = math.NaN()
			}
		}
	}
	return a
}

func randVec(rng *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	return v
}

// closeTo reports whether got matches want to a tolerance scaled by the
// size of the sums that produced them.
func closeTo(got, want, scale float64) bool {
	return math.Abs(got-want) <= 1e-13*scale
}

// scales is what the matrix–vector tests try for alpha and beta.
var scales = []float64{0, 1, -0.7}

func gemvCase(t *testing.T, rng *rand.Rand, m, n, lda int) {
	t.Helper()
	a := randMat(rng, m, n, lda)
	x := randVec(rng, n)
	y0 := randVec(rng, m)
	for _, alpha := range scales {
		for _, beta := range scales {
			y := guarded(m)
			copy(y[guard:], y0)
			if beta == 0 {
				for i := range m {
					y[guard+i] = math.NaN() // output only: must be ignored
				}
			}
			Gemv(m, n, alpha, a, lda, x, beta, y[guard:guard+m])
			checkGuards(t, y, m)
			for i := range m {
				var s, abs float64
				for k := range n {
					s += a[i*lda+k] * x[k]
					abs += math.Abs(a[i*lda+k] * x[k])
				}
				want := alpha * s
				if beta != 0 {
					want += beta * y0[i]
				}
				if !closeTo(y[guard+i], want, abs+math.Abs(y0[i])) {
					t.Fatalf("Gemv m=%d n=%d lda=%d α=%v β=%v: y[%d] = %v, want %v", m, n, lda, alpha, beta, i, y[guard+i], want)
				}
			}
		}
	}
}

// symvCase fills the unused triangle with NaN: Symv must not read it.
func symvCase(t *testing.T, rng *rand.Rand, upper bool, n, lda int) {
	t.Helper()
	full := randMat(rng, n, n, lda)
	for i := range n {
		for j := range i {
			full[i*lda+j] = full[j*lda+i]
		}
	}
	a := append([]float64(nil), full...)
	for i := range n {
		for j := range n {
			if upper && j < i || !upper && j > i {
				a[i*lda+j] = math.NaN()
			}
		}
	}
	x := randVec(rng, n)
	y0 := randVec(rng, n)
	for _, alpha := range scales {
		for _, beta := range scales {
			y := guarded(n)
			copy(y[guard:], y0)
			if beta == 0 {
				for i := range n {
					y[guard+i] = math.NaN()
				}
			}
			Symv(upper, n, alpha, a, lda, x, beta, y[guard:guard+n])
			checkGuards(t, y, n)
			for i := range n {
				var s, abs float64
				for k := range n {
					s += full[i*lda+k] * x[k]
					abs += math.Abs(full[i*lda+k] * x[k])
				}
				want := alpha * s
				if beta != 0 {
					want += beta * y0[i]
				}
				if !closeTo(y[guard+i], want, abs+math.Abs(y0[i])) {
					t.Fatalf("Symv upper=%v n=%d lda=%d α=%v β=%v: y[%d] = %v, want %v", upper, n, lda, alpha, beta, i, y[guard+i], want)
				}
			}
		}
	}
}

// bothPaths runs f with the assembly kernels and with the generic twins.
func bothPaths(t *testing.T, f func(t *testing.T)) {
	t.Run("asm", f)
	t.Run("generic", func(t *testing.T) { withGeneric(t, func() { f(t) }) })
}

func TestGemv(t *testing.T) {
	bothPaths(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(8, 9))
		for _, m := range []int{0, 1, 3, 4, 5, 9, 17} {
			for _, n := range []int{0, 1, 2, 4, 7, 8, 13, 33} {
				gemvCase(t, rng, m, n, n+rng.IntN(3)+1)
			}
		}
		gemvCase(t, rng, 301, 300, 303) // parallel path
	})
}

func TestSymv(t *testing.T) {
	allPaths(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(10, 11))
		for _, upper := range []bool{true, false} {
			for _, n := range []int{0, 1, 2, 3, 4, 5, 7, 8, 9, 12, 13, 31} {
				symvCase(t, rng, upper, n, n+rng.IntN(3)+1)
			}
			for _, n := range []int{366, 403} { // parallel path
				t.Run(fmt.Sprint("n=", n), func(t *testing.T) { symvCase(t, rng, upper, n, n+1) })
			}
		}
	})
}

// FuzzMatvecKernels compares the two matrix–vector kernels with their
// generic twins on a random 4×n block.
func FuzzMatvecKernels(f *testing.F) {
	f.Add(uint64(1), uint8(13), uint8(2))
	f.Add(uint64(2), uint8(4), uint8(0))
	f.Add(uint64(3), uint8(64), uint8(7))
	f.Fuzz(func(t *testing.T, seed uint64, n, pad uint8) {
		rng := rand.New(rand.NewPCG(seed, 12))
		lda := int(n) + int(pad%8)
		a := randMat(rng, 4, int(n), max(lda, 1))
		x := randVec(rng, int(n))
		xs := [4]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		var got, want [4]float64
		dot4(a, max(lda, 1), x, &got)
		dot4Generic(a, max(lda, 1), x, &want)
		yGot, yWant := randVec(rng, int(n)), make([]float64, n)
		copy(yWant, yGot)
		var sGot, sWant [4]float64
		symRank4(a, max(lda, 1), x, yGot, &xs, &sGot)
		symRank4Generic(a, max(lda, 1), x, yWant, &xs, &sWant)
		for r := range 4 {
			if !closeTo(got[r], want[r], float64(n)+1) || !closeTo(sGot[r], sWant[r], float64(n)+1) {
				t.Fatalf("row %d: dot4 %v vs %v, symRank4 %v vs %v", r, got[r], want[r], sGot[r], sWant[r])
			}
		}
		for k := range yGot {
			if !closeTo(yGot[k], yWant[k], 10) {
				t.Fatalf("y[%d]: %v vs %v", k, yGot[k], yWant[k])
			}
		}
	})
}

// gemmCase checks the product variant ("Gemm", "GemmSerial", or
// "GemmNT": B stored n×k) against the defining sums, including that the padding of C is left alone and C
// is ignored when beta is zero.
func gemmCase(t *testing.T, rng *rand.Rand, m, n, k int, name string) {
	t.Helper()
	transB := name == "GemmNT"
	lda, ldb, ldc := k+1, n+2, n+1
	bRows, bCols := k, n
	if transB {
		ldb, bRows, bCols = k+3, n, k
	}
	a := randMat(rng, m, k, lda)
	b := randMat(rng, bRows, bCols, ldb)
	bAt := func(l, j int) float64 { // B[l][j] of the product
		if transB {
			return b[j*ldb+l]
		}
		return b[l*ldb+j]
	}
	c0 := randMat(rng, m, n, ldc)
	for _, alpha := range scales {
		for _, beta := range scales {
			c := append([]float64(nil), c0...)
			if beta == 0 {
				for i := range m {
					for j := range n {
						c[i*ldc+j] = math.NaN()
					}
				}
			}
			switch name {
			case "GemmNT":
				GemmNT(m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
			case "GemmSerial":
				GemmSerial(m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
			default:
				Gemm(m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
			}
			for i := range m {
				for j := range ldc {
					got := c[i*ldc+j]
					if j >= n {
						if !math.IsNaN(got) {
							t.Fatalf("%s wrote padding at %d,%d", name, i, j)
						}
						continue
					}
					var s, abs float64
					for l := range k {
						s += a[i*lda+l] * bAt(l, j)
						abs += math.Abs(a[i*lda+l] * bAt(l, j))
					}
					want := alpha * s
					if beta != 0 {
						want += beta * c0[i*ldc+j]
					}
					if !closeTo(got, want, abs+math.Abs(c0[i*ldc+j])) {
						t.Fatalf("%s m=%d n=%d k=%d α=%v β=%v: C[%d,%d] = %v, want %v", name, m, n, k, alpha, beta, i, j, got, want)
					}
				}
			}
		}
	}
}

func TestGemm(t *testing.T) {
	bothPaths(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(14, 15))
		for _, m := range []int{0, 1, 3, 5} {
			for _, n := range []int{0, 1, 4, 7, 9} {
				for _, k := range []int{0, 1, 3, 4, 9} {
					gemmCase(t, rng, m, n, k, "Gemm")
					gemmCase(t, rng, m, n, k, "GemmSerial")
				}
			}
		}
		gemmCase(t, rng, 3, 1500, 130, "Gemm") // several column blocks, parallel by columns
		gemmCase(t, rng, 75, 40, 300, "Gemm")  // several row chunks, parallel by rows
		gemmCase(t, rng, 9, 1500, 64, "GemmSerial")
	})
}

func FuzzRank4(f *testing.F) {
	f.Add(uint64(1), uint8(13), uint8(2))
	f.Add(uint64(2), uint8(4), uint8(0))
	f.Fuzz(func(t *testing.T, seed uint64, n, pad uint8) {
		rng := rand.New(rand.NewPCG(seed, 16))
		ldb := int(n) + int(pad%8) + 1
		b := randMat(rng, 4, int(n), ldb)
		xs := [4]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		got := randVec(rng, int(n))
		want := append([]float64(nil), got...)
		rank4(b, ldb, got, &xs)
		rank4Generic(b, ldb, want, &xs)
		for j := range got {
			if !closeTo(got[j], want[j], 10) {
				t.Fatalf("y[%d]: %v vs %v", j, got[j], want[j])
			}
		}
	})
}

func FuzzRank4x2(f *testing.F) {
	f.Add(uint64(1), uint8(13), uint8(2), uint8(1))
	f.Add(uint64(2), uint8(4), uint8(0), uint8(0))
	f.Fuzz(func(t *testing.T, seed uint64, n, padB, padC uint8) {
		rng := rand.New(rand.NewPCG(seed, 17))
		ldb, ldc := int(n)+int(padB%8)+1, int(n)+int(padC%8)
		b := randMat(rng, 4, int(n), ldb)
		var xs [8]float64
		for r := range xs {
			xs[r] = rng.NormFloat64()
		}
		got := randMat(rng, 2, int(n), max(ldc, 1))
		want := append([]float64(nil), got...)
		rank4x2(b, ldb, got, max(ldc, 1), int(n), &xs)
		rank4x2Generic(b, ldb, want, max(ldc, 1), int(n), &xs)
		for j := range got {
			if !closeTo(got[j], want[j], 10) && !(math.IsNaN(got[j]) && math.IsNaN(want[j])) {
				t.Fatalf("c[%d]: %v vs %v", j, got[j], want[j])
			}
		}
	})
}

func FuzzSymRank8(f *testing.F) {
	f.Add(uint64(1), uint8(13), uint8(2))
	f.Add(uint64(2), uint8(8), uint8(0))
	f.Fuzz(func(t *testing.T, seed uint64, n, pad uint8) {
		if seed&1 == 1 { // odd seeds try the AVX2 kernel where AVX-512 is used
			saved := useAVX512
			useAVX512 = false
			defer func() { useAVX512 = saved }()
		}
		rng := rand.New(rand.NewPCG(seed, 18))
		lda := int(n) + int(pad%8) + 1
		a := randMat(rng, 8, int(n), lda)
		x := randVec(rng, int(n))
		var xs [8][4]float64
		for r := range xs {
			v := rng.NormFloat64()
			xs[r] = [4]float64{v, v, v, v}
		}
		yGot := randVec(rng, int(n))
		yWant := append([]float64(nil), yGot...)
		var got, want [8]float64
		symRank8(a, lda, x, yGot, &xs, &got)
		symRank8Generic(a, lda, x, yWant, &xs, &want)
		for r := range got {
			if !closeTo(got[r], want[r], float64(n)+1) {
				t.Fatalf("row %d: %v vs %v", r, got[r], want[r])
			}
		}
		for k := range yGot {
			if !closeTo(yGot[k], yWant[k], 20) {
				t.Fatalf("y[%d]: %v vs %v", k, yGot[k], yWant[k])
			}
		}
	})
}

// TestGemvBoth checks both sides of GemvBoth against the defining sums,
// on heights around the eight- and four-row kernels and widths around
// their vector steps, with NaN padding (it must not be read).
func TestGemvBoth(t *testing.T) {
	allPaths(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(14, 15))
		for _, h := range []int{0, 1, 3, 4, 5, 8, 11, 12, 13, 64} {
			for _, w := range []int{0, 1, 3, 4, 7, 8, 9, 17, 512} {
				lda := w + rng.IntN(3)
				a := randMat(rng, h, w, max(lda, 1))
				xc, xr := randVec(rng, w), randVec(rng, h)
				yr, yc := randVec(rng, h), randVec(rng, w)
				wantR, wantC := append([]float64(nil), yr...), append([]float64(nil), yc...)
				for i := range h {
					for j := range w {
						wantR[i] += a[i*lda+j] * xc[j]
						wantC[j] += a[i*lda+j] * xr[i]
					}
				}
				GemvBoth(h, w, a, max(lda, 1), xc, xr, yr, yc)
				for i := range h {
					if !closeTo(yr[i], wantR[i], float64(w)+1) {
						t.Fatalf("h=%d w=%d: yr[%d] = %v, want %v", h, w, i, yr[i], wantR[i])
					}
				}
				for j := range w {
					if !closeTo(yc[j], wantC[j], float64(h)+1) {
						t.Fatalf("h=%d w=%d: yc[%d] = %v, want %v", h, w, j, yc[j], wantC[j])
					}
				}
			}
		}
	})
}

// TestGemvBothBlock checks each vector of a block against the sums by
// the definition, and against GemvBoth bit for bit: a vector's product
// must not depend on the block it comes in.
func TestGemvBothBlock(t *testing.T) {
	allPaths(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(16, 17))
		for _, k := range []int{0, 1, 2, 3, 5} {
			for _, h := range []int{0, 1, 7, 8, 13, 64} {
				for _, w := range []int{0, 1, 7, 8, 9, 17, 512} {
					lda := w + rng.IntN(3)
					ldx, ldy := max(h, w)+rng.IntN(3), max(h, w)+rng.IntN(3)
					a := randMat(rng, h, w, max(lda, 1))
					xc, xr := randVec(rng, k*ldx), randVec(rng, k*ldx)
					yr, yc := randVec(rng, k*ldy), randVec(rng, k*ldy)
					alone := append([]float64(nil), yr...)
					aloneC := append([]float64(nil), yc...)
					for q := range k {
						GemvBoth(h, w, a, max(lda, 1), xc[q*ldx:], xr[q*ldx:], alone[q*ldy:], aloneC[q*ldy:])
					}
					wantR, wantC := append([]float64(nil), yr...), append([]float64(nil), yc...)
					for q := range k {
						for i := range h {
							for j := range w {
								wantR[q*ldy+i] += a[i*lda+j] * xc[q*ldx+j]
								wantC[q*ldy+j] += a[i*lda+j] * xr[q*ldx+i]
							}
						}
					}
					GemvBothBlock(k, h, w, a, max(lda, 1), xc, xr, ldx, yr, yc, ldy)
					for q := range k {
						for i := range h {
							got := yr[q*ldy+i]
							if !closeTo(got, wantR[q*ldy+i], float64(w)+1) {
								t.Fatalf("k=%d h=%d w=%d: yr_%d[%d] = %v, want %v", k, h, w, q, i, got, wantR[q*ldy+i])
							}
							if math.Float64bits(got) != math.Float64bits(alone[q*ldy+i]) {
								t.Fatalf("k=%d h=%d w=%d: yr_%d[%d] = %v in the block, %v alone", k, h, w, q, i, got, alone[q*ldy+i])
							}
						}
						for j := range w {
							got := yc[q*ldy+j]
							if !closeTo(got, wantC[q*ldy+j], float64(h)+1) {
								t.Fatalf("k=%d h=%d w=%d: yc_%d[%d] = %v, want %v", k, h, w, q, j, got, wantC[q*ldy+j])
							}
							if math.Float64bits(got) != math.Float64bits(aloneC[q*ldy+j]) {
								t.Fatalf("k=%d h=%d w=%d: yc_%d[%d] = %v in the block, %v alone", k, h, w, q, j, got, aloneC[q*ldy+j])
							}
						}
					}
				}
			}
		}
	})
}
