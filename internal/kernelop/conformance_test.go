package kernelop

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kpls-go/kpls/blas"
	"github.com/kpls-go/kpls/internal/gram"
)

const u = 0x1p-53 // unit roundoff of float64

// problem is a kernel matrix computed naively from its definition, with
// what the error bounds need.
type problem struct {
	name string
	n, d int
	x    []float64
	rows Rows      // the operators' input
	k    []float64 // uncentred K by plain loops (math.Exp)
	e    []float64 // bound on |K_ij(any method) − K_ij(naive)|
}

// newProblem evaluates the kernel by its definition. The per-entry bound e
// is that of TestRowsNaive in package gram: for the RBF kernel the
// distance summed from differences has relative error ≤ (d+2)u, so the
// exponent a errs by ≤ |a|(d+3)u and each of the two exps (simd, math)
// adds 1 ulp: e = K·((d+3)|a| + 2)·u; for the linear kernel the two dot
// products of d terms: e = 2d·u·|x_i|ᵀ|x_j|.
func newProblem(kernel string, width float64, n, d int, seed uint64) *problem {
	rng := rand.New(rand.NewPCG(seed, uint64(n*100+d)))
	x := make([]float64, n*d)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	if n > 3 { // a duplicate point: an exactly singular K
		copy(x[(n-1)*d:], x[0:d])
	}
	p := &problem{n: n, d: d, x: x, k: make([]float64, n*n), e: make([]float64, n*n)}
	for i := range n {
		for j := range n {
			var s, sa float64
			for l := range d {
				if kernel == "rbf" {
					t := x[i*d+l] - x[j*d+l]
					s += t * t
				} else {
					s += x[i*d+l] * x[j*d+l]
					sa += math.Abs(x[i*d+l] * x[j*d+l])
				}
			}
			if kernel == "rbf" {
				a := -s / (2 * width)
				p.k[i*n+j] = math.Exp(a)
				p.e[i*n+j] = p.k[i*n+j] * (float64(d+3)*math.Abs(a) + 2) * u
			} else {
				p.k[i*n+j] = s
				p.e[i*n+j] = 2 * float64(d) * u * sa
			}
		}
	}
	if kernel == "rbf" {
		p.name = fmt.Sprintf("rbf/width=%g/n=%d", width, n)
		p.rows = gram.NewRBFRows(x, n, d, width)
	} else {
		p.name = fmt.Sprintf("linear/n=%d", n)
		p.rows = gram.NewLinearRows(x, n, d)
	}
	return p
}

// oracle holds the naive K_c, its statistics and, per entry, a bound E_ij
// on how far any correct float64 computation of K_c,ij may be from it.
type oracle struct {
	kc, bound    []float64
	mean, dmean  []float64
	grand, dgrnd float64
	trace, frob2 float64
}

// centre computes K_c = K − m_i − m_j + g by plain loops. Bounds, first
// order in u: a mean of n entries is off by the mean of their errors plus
// the summation error of either method, ≤ 2n·u·mean|K| (any order of
// summation is within (n−1)u·Σ|terms|); K_c,ij by e_ij + Δm_i + Δm_j + Δg
// plus the rounding of the three subtractions, 3u·(|K|+|m_i|+|m_j|+|g|)
// for either method.
func (p *problem) centre() *oracle {
	n := p.n
	o := &oracle{kc: make([]float64, n*n), bound: make([]float64, n*n), mean: make([]float64, n), dmean: make([]float64, n)}
	absMean := make([]float64, n)
	var absGrand float64
	for i := range n {
		for j := range n {
			o.mean[i] += p.k[i*n+j]
			o.dmean[i] += p.e[i*n+j]
			absMean[i] += math.Abs(p.k[i*n+j])
		}
		o.mean[i] /= float64(n)
		absMean[i] /= float64(n)
		o.dmean[i] = o.dmean[i]/float64(n) + 2*float64(n)*u*absMean[i]
		o.grand += o.mean[i]
		o.dgrnd += o.dmean[i]
		absGrand += absMean[i]
	}
	if n > 0 {
		o.grand /= float64(n)
		absGrand /= float64(n)
		o.dgrnd = o.dgrnd/float64(n) + 2*float64(n)*u*absGrand
	}
	for i := range n {
		for j := range n {
			c := p.k[i*n+j] - o.mean[i] - o.mean[j] + o.grand
			o.kc[i*n+j] = c
			o.bound[i*n+j] = p.e[i*n+j] + o.dmean[i] + o.dmean[j] + o.dgrnd +
				6*u*(math.Abs(p.k[i*n+j])+absMean[i]+absMean[j]+absGrand)
			if i == j {
				o.trace += c
			}
			o.frob2 += c * c
		}
	}
	return o
}

// mulBound returns the naive y = K_c·v and per entry the bound on the
// difference from any float64 computation: Σ_j E_ij|v_j| for the entries
// plus 2n·u·Σ_j|K_c,ij||v_j| for the two summations; f32 adds the
// rounding of each stored entry to float32, 2⁻²⁴ relative (plus 2⁻¹⁴⁹ for
// entries in float32's subnormal range). scale is max_i Σ_j|K_c,ij||v_j|.
func (o *oracle) mulBound(n int, v []float64, f32 bool) (y, bound []float64, scale float64) {
	y, bound = make([]float64, n), make([]float64, n)
	for i := range n {
		var s, sabs, sb float64
		for j := range n {
			c := o.kc[i*n+j]
			s += c * v[j]
			sabs += math.Abs(c * v[j])
			sb += o.bound[i*n+j] * math.Abs(v[j])
			if f32 {
				sb += (0x1p-24*(math.Abs(c)+o.bound[i*n+j]) + 0x1p-149) * math.Abs(v[j])
			}
		}
		y[i] = s
		bound[i] = sb + 2*float64(n)*u*sabs
		scale = math.Max(scale, sabs)
	}
	return y, bound, scale
}

// rowsOnly hides a Rows' Block method, to test the whole-row fallback.
type rowsOnly struct{ r Rows }

func (r rowsOnly) N() int                         { return r.r.N() }
func (r rowsOnly) Rows(dst []float64, r0, r1 int) { r.r.Rows(dst, r0, r1) }

// kinds builds every kind of operator for p.
func kinds(t *testing.T, p *problem) map[string]Operator {
	t.Helper()
	ctx := context.Background()
	n := p.n
	ops := map[string]Operator{}
	// Dense as kpls builds it: gram.RBF/Linear + gram.CenterStats.
	kc := make([]float64, n*n)
	if _, ok := p.rows.(*gram.StationaryRows); ok {
		p.rows.Rows(kc, 0, n) // the same kernel values; gram.RBF is tested in gram
	} else if err := gram.Linear(ctx, kc, n, p.x, n, p.d); err != nil {
		t.Fatal(err)
	}
	mean := make([]float64, n)
	g, tr, f2 := gram.CenterStats(kc, n, n, mean)
	st0 := Stats{ColMean: mean, Grand: g, Trace: tr, Frob2: f2}
	ops["dense"] = NewDense(kc, n, n, st0, blas.Default())
	// The same rows apart by more than n, with NaN in the padding, which
	// no product may read.
	ld := n + 5
	kp := make([]float64, n*ld)
	for i := range kp {
		kp[i] = math.NaN()
	}
	for i := range n {
		copy(kp[i*ld:i*ld+n], kc[i*n:i*n+n])
	}
	ops["dense/padded"] = NewDense(kp, ld, n, st0, blas.Default())
	must := func(op Operator, err error) Operator {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return op
	}
	ops["float32"] = must(NewFloat32(ctx, p.rows, nil, nil))
	ops["float32/rows-only"] = must(NewFloat32(ctx, rowsOnly{p.rows}, nil, nil))
	ops["matrix-free"] = must(NewMatrixFree(ctx, p.rows, nil))
	ops["matrix-free/rows-only"] = must(NewMatrixFree(ctx, rowsOnly{p.rows}, nil))
	full := DenseBytes(n)
	for _, b := range []int64{0, 8 * tileRows * tileCols, full / 3, full} {
		ops[fmt.Sprintf("hybrid/budget=%d", b)] = must(NewHybrid(ctx, p.rows, b, nil, nil))
	}
	ops["hybrid/rows-only/budget=third"] = must(NewHybrid(ctx, rowsOnly{p.rows}, full/3, nil, nil))
	if _, ok := p.rows.(*gram.LinearRows); ok {
		ops["features"] = must(NewFeatures(ctx, p.x, n, p.d))
	}
	// Rebuilt with the means of an earlier build (one construction pass).
	st := ops["matrix-free"].Stats()
	ops["float32/known-means"] = must(NewFloat32(ctx, WithMeans(p.rows, st.ColMean, st.Grand), nil, nil))
	ops["hybrid/known-means/budget=third"] = must(NewHybrid(ctx, WithMeans(p.rows, st.ColMean, st.Grand), full/3, nil, nil))
	ops["matrix-free/rows-only/known-means"] = must(NewMatrixFree(ctx, WithMeans(rowsOnly{p.rows}, st.ColMean, st.Grand), nil))
	return ops
}

// TestConformance checks every kind of operator against the naive K_c·V
// computed by plain loops from the kernel definition, entry by entry
// within the first-order rounding bound derived in mulBound (times 2 for
// the second-order terms it leaves out), and the float64 kinds also within
// 1e-10 of max_i Σ_j|K_c,ij||v_j|. The stats are checked the same way.
func TestConformance(t *testing.T) {
	type kcase struct {
		kernel string
		width  float64 // in units of d
	}
	cases := []kcase{{"rbf", 0.05}, {"rbf", 0.5}, {"rbf", 100}, {"linear", 0}}
	for _, n := range []int{1, 2, 7, 193, 517} {
		for _, c := range cases {
			d := 5
			p := newProblem(c.kernel, c.width*float64(d), n, d, 1)
			o := p.centre()
			ops := kinds(t, p)
			for name, op := range ops {
				t.Run(p.name+"/"+name, func(t *testing.T) {
					checkStats(t, op, o, n)
					checkApplied(t, op, n)
					if op.N() != n {
						t.Fatalf("N = %d", op.N())
					}
					// One block past the switch to products of blocks on
					// every path, which k = 20 reaches only without
					// AVX-512: the float32 tiles' widening, the tiles'
					// gemm.
					ks := []int{1, 3, 20}
					switch op.Kind() {
					case KindFloat32:
						ks = append(ks, tileMinVectors()+1)
					case KindHybrid, KindMatrixFree:
						ks = append(ks, bothMaxVectors()+1)
					}
					for _, k := range ks {
						rng := rand.New(rand.NewPCG(uint64(n), uint64(k)))
						v := make([]float64, k*n)
						for i := range v {
							v[i] = rng.NormFloat64()
						}
						dst := make([]float64, k*n)
						for i := range dst {
							dst[i] = math.NaN() // Mul must overwrite
						}
						if err := op.Mul(context.Background(), dst, v, k); err != nil {
							t.Fatal(err)
						}
						f32 := op.Kind() == KindFloat32
						worst, worstRel := 0.0, 0.0
						for q := range k {
							y, bound, scale := o.mulBound(n, v[q*n:q*n+n], f32)
							for i := range n {
								diff := math.Abs(dst[q*n+i] - y[i])
								if !(diff <= 2*bound[i]) {
									t.Fatalf("k=%d vector %d entry %d: %v, naive %v, |diff| %.3g > 2×bound %.3g", k, q, i, dst[q*n+i], y[i], diff, 2*bound[i])
								}
								if bound[i] > 0 {
									worst = math.Max(worst, diff/bound[i])
								}
								if scale > 0 {
									worstRel = math.Max(worstRel, diff/scale)
								}
							}
						}
						if !f32 && worstRel > 1e-10 {
							t.Errorf("k=%d: error %.3g of max_i Σ_j|K_c,ij||v_j|, want ≤ 1e-10", k, worstRel)
						}
						if testing.Verbose() && n == 517 {
							t.Logf("k=%d: max |diff|/bound %.3g, |diff|/scale %.3g", k, worst, worstRel)
						}
					}
				})
			}
		}
	}
}

// checkApplied compares Stats.Applied with the trace and squared
// Frobenius norm of the matrix Mul applies, read column by column from
// its products with the unit vectors (exact: one nonzero term per entry).
func checkApplied(t *testing.T, op Operator, n int) {
	t.Helper()
	eye := make([]float64, n*n)
	for i := range n {
		eye[i*n+i] = 1
	}
	a := make([]float64, n*n)
	if err := op.Mul(context.Background(), a, eye, n); err != nil {
		t.Fatal(err)
	}
	var tr, fr, absTr float64
	for i := range n {
		tr += a[i*n+i]
		absTr += math.Abs(a[i*n+i])
		for _, v := range a[i*n : i*n+n] {
			fr += v * v
		}
	}
	gotTr, gotFr := op.Stats().Applied()
	// Both sides are sums of the same n or n² terms in other orders.
	if !(math.Abs(gotTr-tr) <= 2*float64(n)*u*absTr) || !(math.Abs(gotFr-fr) <= 2*float64(n*n)*u*fr) {
		t.Fatalf("Applied() = (%v, %v); the applied matrix has trace %v, ‖·‖²_F %v", gotTr, gotFr, tr, fr)
	}
}

func checkStats(t *testing.T, op Operator, o *oracle, n int) {
	t.Helper()
	st := op.Stats()
	if len(st.ColMean) != n {
		t.Fatalf("len(ColMean) = %d", len(st.ColMean))
	}
	for i, m := range st.ColMean {
		if !(math.Abs(m-o.mean[i]) <= 2*o.dmean[i]) {
			t.Fatalf("ColMean[%d] = %v, naive %v (bound %.3g)", i, m, o.mean[i], o.dmean[i])
		}
	}
	if !(math.Abs(st.Grand-o.grand) <= 2*o.dgrnd) {
		t.Fatalf("Grand = %v, naive %v (bound %.3g)", st.Grand, o.grand, o.dgrnd)
	}
	// trace: n entries, each within its bound, summed (n·u·Σ|C_ii|);
	// frob2: Σ (C+δ)² − C² ≤ Σ (2|C|δ + δ²), summed (n²·u·frob2) twice.
	var tb, fb, absTr float64
	for i := range n {
		tb += o.bound[i*n+i]
		absTr += math.Abs(o.kc[i*n+i])
		for j := range n {
			b := o.bound[i*n+j]
			fb += 2*math.Abs(o.kc[i*n+j])*b + b*b
		}
	}
	tb += 2 * float64(n) * u * absTr
	fb += 2 * float64(n*n) * u * o.frob2
	if !(math.Abs(st.Trace-o.trace) <= 2*tb) {
		t.Fatalf("Trace = %v, naive %v (bound %.3g)", st.Trace, o.trace, tb)
	}
	if !(math.Abs(st.Frob2-o.frob2) <= 2*fb) {
		t.Fatalf("Frob2 = %v, naive %v (bound %.3g)", st.Frob2, o.frob2, fb)
	}
}

// TestWithMeansSkipsAPass checks that operators built over WithMeans do
// one construction pass, not two (progress counts tiles per pass), and
// that the result keeps Blocks when the rows have it.
func TestWithMeansSkipsAPass(t *testing.T) {
	ctx := context.Background()
	p := newProblem("rbf", 2, 300, 4, 3)
	first, err := NewMatrixFree(ctx, p.rows, nil)
	if err != nil {
		t.Fatal(err)
	}
	st := first.Stats()
	if _, ok := WithMeans(p.rows, st.ColMean, st.Grand).(Blocks); !ok {
		t.Fatal("WithMeans lost the Block method")
	}
	if _, ok := WithMeans(rowsOnly{p.rows}, st.ColMean, st.Grand).(Blocks); ok {
		t.Fatal("WithMeans added a Block method")
	}
	total := func(rows Rows, build func(Rows, Progress) error) int {
		var last, done int
		if err := build(rows, func(d, tot int) { done, last = d, tot }); err != nil {
			t.Fatal(err)
		}
		if done != last {
			t.Errorf("progress ended at %d of %d", done, last)
		}
		return last
	}
	for name, build := range map[string]func(Rows, Progress) error{
		"float32":     func(r Rows, pr Progress) error { _, err := NewFloat32(ctx, r, nil, pr); return err },
		"hybrid":      func(r Rows, pr Progress) error { _, err := NewHybrid(ctx, r, DenseBytes(300)/3, nil, pr); return err },
		"matrix-free": func(r Rows, pr Progress) error { _, err := NewMatrixFree(ctx, r, pr); return err },
	} {
		two, one := total(p.rows, build), total(WithMeans(p.rows, st.ColMean, st.Grand), build)
		if two == 0 || one*2 != two {
			t.Errorf("%s: %d units of construction with known means, %d without", name, one, two)
		}
	}
}
