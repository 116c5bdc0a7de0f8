package kernelop

import (
	"context"

	gblas "gonum.org/v1/gonum/blas"

	"github.com/kpls-go/kpls/blas"
)

// dense is K_c stored in full, n×n row-major float64.
type dense struct {
	kc []float64
	n  int
	st Stats
	bl blas.Float64
}

// NewDense wraps an already centred n×n float64 matrix kc (both triangles;
// kept, not copied) and its statistics, as gram.RBF and gram.CenterStats
// produce them. Products go through bl as kpls does them today: Dsymv (one
// triangle read) for one vector, Dgemm with K_c passed transposed for a
// block, which lets the "go" backend take dot products of rows.
func NewDense(kc []float64, n int, st Stats, bl blas.Float64) Operator {
	if len(kc) < n*n {
		panic("kernelop: NewDense matrix too short")
	}
	return &dense{kc: kc, n: n, st: st, bl: bl}
}

func (d *dense) N() int       { return d.n }
func (d *dense) Kind() Kind   { return KindDense }
func (d *dense) Stats() Stats { return d.st }
func (d *dense) Bytes() int64 { return 8 * (int64(d.n)*int64(d.n) + int64(len(d.st.ColMean))) }

// Mul checks ctx once: a dense pass is one BLAS call of a few milliseconds
// to a second, which splitting into row blocks would slow down.
func (d *dense) Mul(ctx context.Context, dst, v []float64, k int) error {
	checkMul(d.n, dst, v, k)
	if err := ctx.Err(); err != nil {
		return err
	}
	n := d.n
	switch {
	case k == 0 || n == 0:
	case k == 1:
		d.bl.Dsymv(gblas.Upper, n, 1, d.kc, n, v, 1, 0, dst, 1)
	default:
		d.bl.Dgemm(gblas.NoTrans, gblas.Trans, k, n, n, 1, v, n, d.kc, n, 0, dst, n)
	}
	return nil
}
