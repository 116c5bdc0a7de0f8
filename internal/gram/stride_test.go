package gram

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestStrided builds every kind of matrix with rows further apart than n
// (as kernelop.DenseStride asks for large n) and compares each entry with
// the plain double loops, while the padding, filled with NaN beforehand,
// must stay untouched; then centres the strided RBF matrix and compares
// it with JKJ by the definition.
func TestStrided(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	const d = 3
	for _, n := range []int{1, 7, 190, 400} {
		ld := n + 3
		x := randPoints(rng, n, d)
		lin := naiveLinear(x, n, x, n, d)
		dist2 := func(i, j int) float64 {
			var s float64
			for l := range d {
				t := x[i*d+l] - x[j*d+l]
				s += t * t
			}
			return s
		}
		builders := []struct {
			name  string
			build func(dst []float64) error
			want  func(i, j int) float64
			close func(got, want float64) bool
		}{
			{"rbf", func(dst []float64) error { return RBF(context.Background(), dst, ld, x, n, d, 1.5) },
				func(i, j int) float64 { return math.Exp(-dist2(i, j) / 3) }, rbfClose},
			{"laplacian", func(dst []float64) error {
				return Stationary(context.Background(), dst, ld, x, n, d, LaplacianProfile(2))
			}, func(i, j int) float64 { return math.Exp(-math.Sqrt(dist2(i, j)) / 2) },
				func(got, want float64) bool { return math.Abs(got-want) <= 1e-13 }},
			{"linear", func(dst []float64) error { return Linear(context.Background(), dst, ld, x, n, d) },
				func(i, j int) float64 { return lin[i*n+j] }, func(got, want float64) bool { return linClose(got, want, d) }},
			{"polynomial", func(dst []float64) error {
				return Polynomial(context.Background(), dst, ld, x, n, d, 2, 0.5, 1)
			}, func(i, j int) float64 { v := 0.5*lin[i*n+j] + 1; return v * v },
				func(got, want float64) bool { return math.Abs(got-want) <= 1e-12*(1+math.Abs(want)) }},
			{"func", func(dst []float64) error {
				return Func(context.Background(), dst, ld, x, n, d, func(a, b []float64) float64 { return a[0]*b[0] + a[1] + b[1] })
			}, func(i, j int) float64 {
				// The upper triangle is computed, the lower mirrored.
				i, j = min(i, j), max(i, j)
				return x[i*d]*x[j*d] + x[i*d+1] + x[j*d+1]
			},
				func(got, want float64) bool { return got == want }},
		}
		for _, b := range builders {
			t.Run(fmt.Sprintf("%s/n=%d/ld=%d", b.name, n, ld), func(t *testing.T) {
				dst := make([]float64, (n-1)*ld+n)
				for i := range dst {
					dst[i] = math.NaN()
				}
				if err := b.build(dst); err != nil {
					t.Fatal(err)
				}
				for i := range n {
					for j := range n {
						if got, want := dst[i*ld+j], b.want(i, j); !b.close(got, want) {
							t.Fatalf("entry (%d, %d) = %v, want %v", i, j, got, want)
						}
					}
					for j := n; j < ld && i < n-1; j++ {
						if !math.IsNaN(dst[i*ld+j]) {
							t.Fatalf("padding (%d, %d) written: %v", i, j, dst[i*ld+j])
						}
					}
				}
			})
		}
		t.Run(fmt.Sprintf("center/n=%d/ld=%d", n, ld), func(t *testing.T) {
			k := make([]float64, (n-1)*ld+n)
			for i := range k {
				k[i] = math.NaN()
			}
			if err := RBF(context.Background(), k, ld, x, n, d, 1.5); err != nil {
				t.Fatal(err)
			}
			compact := naiveRBF(x, n, x, n, d, 1.5)
			want := naiveCenter(compact, n)
			var wantTrace float64
			for i := range n {
				wantTrace += want[i*n+i]
			}
			_, trace, _ := CenterStats(k, ld, n, make([]float64, n))
			if !(math.Abs(trace-wantTrace) <= 1e-12*float64(n)) {
				t.Errorf("trace = %v, want %v", trace, wantTrace)
			}
			for i := range n {
				for j := range n {
					if got := k[i*ld+j]; !(math.Abs(got-want[i*n+j]) <= 1e-13) {
						t.Fatalf("centred entry (%d, %d) = %v, want %v", i, j, got, want[i*n+j])
					}
				}
				for j := n; j < ld && i < n-1; j++ {
					if !math.IsNaN(k[i*ld+j]) {
						t.Fatalf("padding (%d, %d) written: %v", i, j, k[i*ld+j])
					}
				}
			}
		})
	}
}
