package relevance

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/internal/gop"
)

// standardiser holds the training means and standard deviations (n − 1)
// of the features, as kpls computes them (a constant column keeps scale 1).
type standardiser struct {
	mean, sd []float64
}

func newStandardiser(x *mat.Dense) standardiser {
	n, d := x.Dims()
	s := standardiser{mean: make([]float64, d), sd: make([]float64, d)}
	for j := range d {
		var m float64
		for i := range n {
			m += x.At(i, j)
		}
		m /= float64(n)
		var ss float64
		for i := range n {
			v := x.At(i, j) - m
			ss += v * v
		}
		sd := math.Sqrt(ss / float64(n-1))
		if sd == 0 || math.IsNaN(sd) {
			sd = 1
		}
		s.mean[j], s.sd[j] = m, sd
	}
	return s
}

// apply returns x standardised and then multiplied by scales, column by
// column (nil scales: all 1).
func (s standardiser) apply(x *mat.Dense, scales []float64) *mat.Dense {
	n, d := x.Dims()
	out := mat.NewDense(n, d, nil)
	for i := range n {
		for j := range d {
			v := (x.At(i, j) - s.mean[j]) / s.sd[j]
			if scales != nil {
				v *= scales[j]
			}
			out.Set(i, j, v)
		}
	}
	return out
}

// gopOfRows is the diagonal of the gradient outer product of the RBF
// model of width w with coefficients alpha on the rows of z (gop.RBF).
func gopOfRows(z *mat.Dense, alpha []float64, w float64) []float64 {
	n, d := z.Dims()
	return gop.RBF(mat.DenseCopyOf(z).RawMatrix().Data, n, d, alpha, w, n)
}

// normalised returns s_j = (v_j / max_k v_k)^power; all ones if no v_j is
// positive. Non-positive entries become 0.
func normalised(v []float64, power float64) []float64 {
	var big float64
	for _, x := range v {
		big = max(big, x)
	}
	s := make([]float64, len(v))
	for j, x := range v {
		switch {
		case !(big > 0):
			s[j] = 1
		case x > 0:
			s[j] = math.Pow(x/big, power)
		}
	}
	return s
}

// alignment returns, for each feature j of the standardised x, the
// kernel–target alignment of the centred one-feature RBF kernel K_j
// (width w) with y: A_j = y_cᵀ K_j y_c / (‖H K_j H‖_F ‖y_c‖²), H the
// centring matrix. It is HSIC normalised, so it sees non-monotone
// dependence, which a correlation does not.
func alignment(x *mat.Dense, y []float64, w float64) []float64 {
	n, d := x.Dims()
	var ym float64
	for _, v := range y {
		ym += v
	}
	ym /= float64(n)
	yc := make([]float64, n)
	var yy float64
	for i, v := range y {
		yc[i] = v - ym
		yy += yc[i] * yc[i]
	}
	k := make([]float64, n*n)
	rowMean := make([]float64, n)
	a := make([]float64, d)
	for j := range d {
		var grand float64
		for i := range n {
			xi := x.At(i, j)
			var rs float64
			for l := range n {
				t := xi - x.At(l, j)
				v := math.Exp(-t * t / (2 * w))
				k[i*n+l] = v
				rs += v
			}
			rowMean[i] = rs / float64(n)
			grand += rs
		}
		grand /= float64(n * n)
		var num, fro float64
		for i := range n {
			for l := range n {
				c := k[i*n+l] - rowMean[i] - rowMean[l] + grand
				fro += c * c
				num += yc[i] * k[i*n+l] * yc[l]
			}
		}
		if fro > 0 && yy > 0 {
			a[j] = num / (math.Sqrt(fro) * yy)
		}
	}
	return a
}
