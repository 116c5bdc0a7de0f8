package kernelop

import (
	"context"

	"github.com/kpls-go/kpls/internal/gram"
	"github.com/kpls-go/kpls/internal/simd"
)

// features is the linear kernel's K_c held through its inputs: K = XXᵀ,
// so K_c = CXXᵀC = X_cX_cᵀ with X_c = CX the column-centred inputs, and a
// product is K_c·v = X_c(X_cᵀv), 4nd multiply-adds instead of n². Exact,
// not an approximation: the same matrix, rounded differently.
type features struct {
	xc   []float64 // n×d, row-major, columns centred
	n, d int
	st   Stats
}

// NewFeatures returns the centred linear kernel matrix of the rows of x
// (n×d, row-major; copied) as an operator that holds the centred inputs,
// 8nd bytes, and multiplies by X_c twice. Its statistics come from the
// inputs too: K's column means are x_iᵀx̄, its grand mean x̄ᵀx̄, tr K_c
// = ‖X_c‖²_F and ‖K_c‖²_F = ‖X_cᵀX_c‖²_F.
func NewFeatures(ctx context.Context, x []float64, n, d int) (Operator, error) {
	if len(x) < n*d {
		panic("kernelop: NewFeatures slice too short")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	xbar := gram.ColumnMeans(x, n, d)
	o := &features{xc: make([]float64, n*d), n: n, d: d}
	st := Stats{ColMean: make([]float64, n)}
	for i := range n {
		row, c := x[i*d:i*d+d], o.xc[i*d:i*d+d]
		var m, t float64
		for l, v := range row {
			m += v * xbar[l]
			c[l] = v - xbar[l]
			t += c[l] * c[l]
		}
		st.ColMean[i] = m
		st.Trace += t
	}
	for _, v := range xbar {
		st.Grand += v * v
	}
	// ‖K_c‖²_F = tr((X_cᵀX_c)²), from the d×d Gram matrix.
	g := make([]float64, d*d)
	for i := range n {
		c := o.xc[i*d : i*d+d]
		for a, va := range c {
			for b, vb := range c {
				g[a*d+b] += va * vb
			}
		}
	}
	for _, v := range g {
		st.Frob2 += v * v
	}
	o.st = st
	return o, nil
}

func (o *features) N() int       { return o.n }
func (o *features) Kind() Kind   { return KindFeatures }
func (o *features) Stats() Stats { return o.st }

// Bytes counts the centred inputs and the column means.
func (o *features) Bytes() int64 { return 8 * int64(len(o.xc)+len(o.st.ColMean)) }

// Mul computes U = V·X_c (k×d) and then dst = U·X_cᵀ. The work is 4knd
// multiply-adds, microseconds to milliseconds, so the context is checked
// once.
func (o *features) Mul(ctx context.Context, dst, v []float64, k int) error {
	n, d := o.n, o.d
	checkMul(n, dst, v, k)
	if err := ctx.Err(); err != nil {
		return err
	}
	if k == 0 || n == 0 {
		return nil
	}
	if d == 0 {
		clear(dst[:k*n])
		return nil
	}
	u := make([]float64, k*d)
	simd.Gemm(k, d, n, 1, v, n, o.xc, d, 0, u, d)
	simd.GemmNT(k, n, d, 1, u, d, o.xc, d, 0, dst, n)
	return nil
}
