package gram

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"
)

// The oracles below are the plain double loops, written independently of
// the tiled, vectorised code they check.

func naiveRBF(z []float64, m int, x []float64, n, d int, width float64) []float64 {
	k := make([]float64, m*n)
	for i := range m {
		for j := range n {
			var s float64
			for l := range d {
				t := z[i*d+l] - x[j*d+l]
				s += t * t
			}
			k[i*n+j] = math.Exp(-s / (2 * width))
		}
	}
	return k
}

func naiveLinear(z []float64, m int, x []float64, n, d int) []float64 {
	k := make([]float64, m*n)
	for i := range m {
		for j := range n {
			var s float64
			for l := range d {
				s += z[i*d+l] * x[j*d+l]
			}
			k[i*n+j] = s
		}
	}
	return k
}

func randPoints(rng *rand.Rand, n, d int) []float64 {
	x := make([]float64, n*d)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	return x
}

// rbfClose compares kernel values: the exponent's relative error (a few
// ulps of the squared distance, summed in another order) is amplified by
// its magnitude.
func rbfClose(got, want float64) bool {
	arg := -math.Log(want)
	return math.Abs(got-want) <= 1e-14*max(1, arg)*want+1e-300
}

// productClose compares kernel values from the product form of the
// squared distances, whose absolute error is a few ulps of the squared
// norms of the two points about the data's mean (ni, nj), amplified by
// the scale s = 1/(2·width) in the exponent.
func productClose(got, want, s, ni, nj float64) bool {
	return rbfClose(got, want) || math.Abs(got-want) <= 1e-14*s*(ni+nj)*max(want, 1e-300)
}

// normsAbout returns ‖x_i − x̄‖² for the rows of x, x̄ the mean of base's.
func normsAbout(x []float64, m int, base []float64, n, d int) []float64 {
	out := make([]float64, m)
	for l := range d {
		var mean float64
		for j := range n {
			mean += base[j*d+l]
		}
		mean /= float64(max(n, 1))
		for i := range m {
			t := x[i*d+l] - mean
			out[i] += t * t
		}
	}
	return out
}

var shapes = []struct{ n, d int }{
	{0, 3}, {1, 3}, {2, 1}, {5, 8}, {127, 3}, {128, 8}, {129, 2}, {300, 8}, {261, 17},
	{1031, 2}, // large enough for non-temporal stores
	{6, 0},
	{200, 24}, {97, 41}, // where RBF switches to the product form
}

func TestRBF(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, sh := range shapes {
		for _, width := range []float64{0.3, 4} {
			for _, viaProduct := range []bool{false, true} {
				n, d := sh.n, sh.d
				x := randPoints(rng, n, d)
				for i := range x {
					x[i] += 100 // far from the origin: the product form must centre
				}
				got := make([]float64, n*n)
				for i := range got {
					got[i] = math.NaN()
				}
				if err := rbf(context.Background(), got, n, x, n, d, width, viaProduct); err != nil {
					t.Fatal(err)
				}
				want := naiveRBF(x, n, x, n, d, width)
				norm := normsAbout(x, n, x, n, d)
				for i := range n {
					if got[i*n+i] != 1 {
						t.Fatalf("n=%d d=%d: K[%d,%d] = %v, want 1", n, d, i, i, got[i*n+i])
					}
					for j := range n {
						if got[i*n+j] != got[j*n+i] {
							t.Fatalf("n=%d: K not exactly symmetric at %d,%d", n, i, j)
						}
						ok := rbfClose(got[i*n+j], want[i*n+j])
						if viaProduct {
							ok = productClose(got[i*n+j], want[i*n+j], 1/(2*width), norm[i], norm[j])
						}
						if !ok {
							t.Fatalf("n=%d d=%d w=%v product=%v: K[%d,%d] = %v, want %v", n, d, width, viaProduct, i, j, got[i*n+j], want[i*n+j])
						}
					}
				}
			}
		}
	}
}

// TestRBFClosePoints uses points far from the origin and 1e-6 apart with a
// width that makes the kernel depend on their tiny distance: computing
// ‖x‖²+‖y‖²−2xᵀy would lose every digit here.
func TestRBFClosePoints(t *testing.T) {
	const n, d = 40, 3
	rng := rand.New(rand.NewPCG(3, 4))
	x := make([]float64, n*d)
	for i := range x {
		x[i] = 1000 + 1e-6*rng.Float64()
	}
	want := naiveRBF(x, n, x, n, d, 1e-12)
	// The product form keeps its accuracy here only because it centres.
	for _, viaProduct := range []bool{false, true} {
		got := make([]float64, n*n)
		if err := rbf(context.Background(), got, n, x, n, d, 1e-12, viaProduct); err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if !rbfClose(got[i], want[i]) {
				t.Fatalf("product=%v: entry %d: %v, want %v", viaProduct, i, got[i], want[i])
			}
		}
	}
}

func TestRBFCancel(t *testing.T) {
	const n, d = 600, 2
	x := randPoints(rand.New(rand.NewPCG(5, 6)), n, d)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := RBF(ctx, make([]float64, n*n), n, x, n, d, 1)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("RBF with cancelled context: %v", err)
	}
	if err := Linear(ctx, make([]float64, n*n), n, x, n, d); !errors.Is(err, context.Canceled) {
		t.Errorf("Linear with cancelled context: %v", err)
	}
}

func TestRBFCross(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, m := range []int{0, 1, 7, 150} {
		for _, sh := range shapes {
			for _, viaProduct := range []bool{false, true} {
				n, d := sh.n, sh.d
				z, x := randPoints(rng, m, d), randPoints(rng, n, d)
				for i := range z {
					z[i] -= 50
				}
				for i := range x {
					x[i] -= 50
				}
				got := make([]float64, m*n+3)
				got[m*n], got[m*n+1], got[m*n+2] = math.NaN(), math.NaN(), math.NaN()
				rbfCross(got, z, m, x, n, d, 2, viaProduct)
				want := naiveRBF(z, m, x, n, d, 2)
				nz, nx := normsAbout(z, m, x, n, d), normsAbout(x, n, x, n, d)
				for i := range want {
					ok := rbfClose(got[i], want[i])
					if viaProduct {
						ok = productClose(got[i], want[i], 0.25, nz[i/max(n, 1)], nx[i%max(n, 1)])
					}
					if !ok {
						t.Fatalf("m=%d n=%d d=%d product=%v: entry %d = %v, want %v", m, n, d, viaProduct, i, got[i], want[i])
					}
				}
				if !math.IsNaN(got[m*n]) || !math.IsNaN(got[m*n+2]) {
					t.Fatalf("m=%d n=%d: wrote past m·n", m, n)
				}
			}
		}
	}
}

// TestPointsReused: one Points serves several sets of new points, from
// several goroutines at once, each against the direct formula: the
// layouts made on first use are the points', not the first caller's.
func TestPointsReused(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	for _, d := range []int{3, productMinDim + 2} {
		n := 90
		x := randPoints(rng, n, d)
		p := NewPoints(x, n, d)
		var wg sync.WaitGroup
		for g := range 4 {
			z := randPoints(rng, g+1, d)
			wg.Go(func() {
				m := g + 1
				got := make([]float64, m*n)
				p.RBFCross(got, z, m, 3)
				want := naiveRBF(z, m, x, n, d, 3)
				nz, nx := normsAbout(z, m, x, n, d), normsAbout(x, n, x, n, d)
				for i := range want {
					ok := rbfClose(got[i], want[i])
					if p.viaMul {
						ok = productClose(got[i], want[i], 1.0/6, nz[i/n], nx[i%n])
					}
					if !ok {
						t.Errorf("d=%d, goroutine %d: entry %d = %v, want %v", d, g, i, got[i], want[i])
						return
					}
				}
			})
		}
		wg.Wait()
	}
}

func linClose(got, want, mag float64) bool { return math.Abs(got-want) <= 1e-13*(mag+1) }

func TestLinear(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, sh := range append(shapes, struct{ n, d int }{7, 0}) {
		n, d := sh.n, sh.d
		x := randPoints(rng, n, d)
		got := make([]float64, n*n)
		for i := range got {
			got[i] = math.NaN()
		}
		if err := Linear(context.Background(), got, n, x, n, d); err != nil {
			t.Fatal(err)
		}
		want := naiveLinear(x, n, x, n, d)
		for i := range want {
			if !linClose(got[i], want[i], float64(d)) {
				t.Fatalf("n=%d d=%d: entry %d = %v, want %v", n, d, i, got[i], want[i])
			}
		}
		z := randPoints(rng, 9, d)
		gotC := make([]float64, 9*n)
		LinearCross(gotC, z, 9, x, n, d)
		wantC := naiveLinear(z, 9, x, n, d)
		for i := range wantC {
			if !linClose(gotC[i], wantC[i], float64(d)) {
				t.Fatalf("cross n=%d d=%d: entry %d = %v, want %v", n, d, i, gotC[i], wantC[i])
			}
		}
	}
}

// naiveCenter is JKJ by the definition, with J = I − 11ᵀ/n as a matrix.
func naiveCenter(k []float64, n int) []float64 {
	j := make([]float64, n*n)
	for a := range n {
		for b := range n {
			j[a*n+b] = -1 / float64(n)
			if a == b {
				j[a*n+b]++
			}
		}
	}
	mul := func(p, q []float64) []float64 {
		r := make([]float64, n*n)
		for a := range n {
			for b := range n {
				var s float64
				for c := range n {
					s += p[a*n+c] * q[c*n+b]
				}
				r[a*n+b] = s
			}
		}
		return r
	}
	return mul(mul(j, k), j)
}

func TestCenter(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, n := range []int{1, 2, 5, 64, 190, 260} {
		t.Run(fmt.Sprint("n=", n), func(t *testing.T) {
			x := randPoints(rng, n, 3)
			k := make([]float64, n*n)
			if err := RBF(context.Background(), k, n, x, n, 3, 1.5); err != nil {
				t.Fatal(err)
			}
			want := naiveCenter(k, n)
			var wantMean []float64
			for j := range n {
				var s float64
				for i := range n {
					s += k[i*n+j]
				}
				wantMean = append(wantMean, s/float64(n))
			}
			var wantGrand float64
			for _, v := range k {
				wantGrand += v
			}
			wantGrand /= float64(n * n)
			colMean := make([]float64, n)
			grand, trace, frob2 := CenterStats(k, n, n, colMean)
			if !(math.Abs(grand-wantGrand) <= 1e-14) {
				t.Errorf("grand = %v, want %v", grand, wantGrand)
			}
			var wantTrace, wantFrob2 float64
			for i := range n {
				wantTrace += want[i*n+i]
				if !(math.Abs(colMean[i]-wantMean[i]) <= 1e-14) {
					t.Fatalf("colMean[%d] = %v, want %v", i, colMean[i], wantMean[i])
				}
			}
			for i, v := range want {
				wantFrob2 += v * v
				if !(math.Abs(k[i]-v) <= 1e-13) {
					t.Fatalf("centred entry %d = %v, want %v", i, k[i], v)
				}
			}
			if !(math.Abs(trace-wantTrace) <= 1e-12*float64(n) && math.Abs(frob2-wantFrob2) <= 1e-12*wantFrob2+1e-14) {
				t.Errorf("trace, frob2 = %v, %v; want %v, %v", trace, frob2, wantTrace, wantFrob2)
			}
		})
	}
}

func TestCenterCross(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	const n, d = 130, 4
	for _, m := range []int{1, 3, 400} {
		x, z := randPoints(rng, n, d), randPoints(rng, m, d)
		k := make([]float64, n*n)
		if err := RBF(context.Background(), k, n, x, n, d, 1); err != nil {
			t.Fatal(err)
		}
		colMean := make([]float64, n)
		grand := Center(k, n, n, colMean)
		c := make([]float64, m*n)
		RBFCross(c, z, m, x, n, d, 1)
		want := append([]float64(nil), c...)
		for i := range m {
			var s float64
			for j := range n {
				s += want[i*n+j]
			}
			for j := range n {
				want[i*n+j] += -s/float64(n) - colMean[j] + grand
			}
		}
		CenterCross(c, m, n, colMean, grand)
		for i := range c {
			if !(math.Abs(c[i]-want[i]) <= 1e-14) {
				t.Fatalf("m=%d: entry %d = %v, want %v", m, i, c[i], want[i])
			}
		}
	}
}
