package kpls

import (
	"context"
	"fmt"

	gblas "gonum.org/v1/gonum/blas"
)

// reverseBudget bounds the adjoint scratch of the bands' reverse path
// (two m×chunk×n arrays), which sets its chunk of points.
const reverseBudget = 256 << 20

// refitKrylov returns the Krylov steps of the fit rerun on the model's
// operator to comp components (the residuals and their products, which
// the model does not keep), computed once per m and kept.
func (m *Model) refitKrylov(ctx context.Context, comp int) (*krylov, error) {
	m.qtMu.Lock()
	kr, ok := m.kry[comp]
	m.qtMu.Unlock()
	if ok {
		return kr, nil
	}
	op, err := m.operator(ctx)
	if err != nil {
		return nil, err
	}
	if kr, err = nipals(ctx, m.opts.Backend, op, m.yc, comp, nil); err != nil {
		return nil, err
	}
	if kr.steps < comp {
		return nil, fmt.Errorf("%w: confidence bands for m = %d: the refit for the derivative stopped at %d components (%s)", ErrUnreliable, comp, kr.steps, kr.stop.Message)
	}
	m.qtMu.Lock()
	defer m.qtMu.Unlock()
	if m.kry == nil {
		m.kry = map[int]*krylov{}
	}
	if prev, ok := m.kry[comp]; ok {
		return prev, nil
	}
	m.kry[comp] = kr
	return kr, nil
}

// reverseChunk is the points per block on the reverse path.
func reverseChunk(n, comp int) int {
	return max(1, min(bandChunk, reverseBudget/(16*max(comp, 1)*n)))
}

// reverseVectors is bandRun.vectors on the reverse path: the gradient of
// each point's prediction k̃(x)ᵀα_m with respect to ỹ by reverse-mode
// differentiation of the fit's own steps (residual, product with K,
// two-pass Gram–Schmidt, normalisation, coefficient, updates), every
// point of the block at once: m products of K with the block, as the
// Ritz form costs, and stable as the fit is. The gradients are then
// projected off the vector K annihilates (the centring of y), and f_i =
// k_c(x_i)ᵀα_m.
func (r *bandRun) reverseVectors(ctx context.Context, p int) (h, f []float64, err error) {
	m, kr, comp, n := r.m, r.kr, r.comp, r.m.n
	bl := m.opts.Backend
	yc := m.yc
	ab, yhb, yb := r.kx[:p*n], r.yhb[:p*n], r.s[:p*n] // ᾱ = k, adjoint of ŷ, of ỹ
	clear(yhb)
	clear(yb)
	tb, gb := r.tb[:comp*p*n], r.gb[:comp*p*n]
	clear(tb)
	clear(gb)
	qb := r.qb[:p]
	tin, tout := r.tin, r.tout
	c1, c2 := r.c1, r.c2
	cb := r.cb[:p*comp]
	for i := comp - 1; i >= 0; i-- {
		ti, gi := kr.t[i*n:(i+1)*n], kr.g[i*n:(i+1)*n]
		q := kr.q[i]
		tbi, gbi := tb[i*p*n:(i+1)*p*n], gb[i*p*n:(i+1)*p*n]
		// α_{i+1} = α_i + q g_i, ŷ_{i+1} = ŷ_i + q t_i; q = t_iᵀỹ.
		for s := range p {
			a, yh := ab[s*n:(s+1)*n], yhb[s*n:(s+1)*n]
			qs := bl.Ddot(n, a, 1, gi, 1) + bl.Ddot(n, yh, 1, ti, 1)
			bl.Daxpy(n, q, a, 1, gbi[s*n:(s+1)*n], 1)
			bl.Daxpy(n, q, yh, 1, tbi[s*n:(s+1)*n], 1)
			bl.Daxpy(n, qs, yc, 1, tbi[s*n:(s+1)*n], 1)
			bl.Daxpy(n, qs, ti, 1, yb[s*n:(s+1)*n], 1)
			qb[s] = qs
		}
		// Redo the step's Gram–Schmidt: pass inputs, coefficients, ν.
		copy(tin[0], kr.ktr[i*n:(i+1)*n])
		passes := 0
		if i > 0 {
			passes = 2
			bl.Dgemv(gblas.NoTrans, i, n, 1, kr.t, n, tin[0], 1, 0, c1[:i], 1)
			copy(tin[1], tin[0])
			bl.Dgemv(gblas.Trans, i, n, -1, kr.t, n, c1[:i], 1, 1, tin[1], 1)
			bl.Dgemv(gblas.NoTrans, i, n, 1, kr.t, n, tin[1], 1, 0, c2[:i], 1)
			copy(tout, tin[1])
			bl.Dgemv(gblas.Trans, i, n, -1, kr.t, n, c2[:i], 1, 1, tout, 1)
		} else {
			copy(tout, tin[0])
		}
		nu := bl.Dnrm2(n, tout, 1)
		// t_i = t/ν, g_i = g/ν with ν = ‖t‖.
		for s := range p {
			tbs, gbs := tbi[s*n:(s+1)*n], gbi[s*n:(s+1)*n]
			nub := -(bl.Ddot(n, tbs, 1, ti, 1) + bl.Ddot(n, gbs, 1, gi, 1)) / nu
			bl.Dscal(n, 1/nu, tbs, 1)
			bl.Daxpy(n, nub, ti, 1, tbs, 1)
			bl.Dscal(n, 1/nu, gbs, 1)
		}
		// The passes backwards: t_out = t_in − T_iᵀc, g_out = g_in − G_iᵀc, c = T_i t_in.
		for pass := passes - 1; pass >= 0; pass-- {
			c := c1
			if pass == 1 {
				c = c2
			}
			// c̄ = −T_i t̄_out − G_i ḡ_out (p×i).
			bl.Dgemm(gblas.NoTrans, gblas.Trans, p, i, n, -1, tbi, n, kr.t, n, 0, cb, i)
			bl.Dgemm(gblas.NoTrans, gblas.Trans, p, i, n, -1, gbi, n, kr.g, n, 1, cb, i)
			for l := 0; l < i; l++ {
				// T̄_l += −c_l t̄_out + c̄_l t_in, Ḡ_l += −c_l ḡ_out.
				tbl, gbl := tb[l*p*n:(l+1)*p*n], gb[l*p*n:(l+1)*p*n]
				bl.Daxpy(p*n, -c[l], tbi, 1, tbl, 1)
				bl.Daxpy(p*n, -c[l], gbi, 1, gbl, 1)
				for s := range p {
					bl.Daxpy(n, cb[s*i+l], tin[pass], 1, tbl[s*n:(s+1)*n], 1)
				}
			}
			// t̄_in = t̄_out + T_iᵀc̄; ḡ_in = ḡ_out.
			bl.Dgemm(gblas.NoTrans, gblas.NoTrans, p, n, i, 1, cb, i, kr.t, n, 1, tbi, n)
		}
		// t̃ = K r, g = r: r̄ = ḡ + K t̄; r = ỹ − ŷ_i: ȳ += r̄, ŷ̄ −= r̄.
		if err := r.op.Mul(ctx, r.kq[:p*n], tbi, p); err != nil {
			return nil, nil, err
		}
		bl.Daxpy(p*n, 1, gbi, 1, r.kq[:p*n], 1)
		bl.Daxpy(p*n, 1, r.kq[:p*n], 1, yb, 1)
		bl.Daxpy(p*n, -1, r.kq[:p*n], 1, yhb, 1)
	}
	alpha := m.alpha[comp*n : (comp+1)*n]
	for s := range p {
		hs, ks := yb[s*n:(s+1)*n], r.kx[s*n:(s+1)*n]
		var mean float64
		for j, v := range hs {
			mean += m.rootWeight(j) * v
		}
		mean /= m.total()
		for j := range hs {
			hs[j] -= mean * m.rootWeight(j)
		}
		r.f[s] = bl.Ddot(n, ks, 1, alpha, 1)
	}
	return yb, r.f[:p], nil
}

// reverseScratch sizes r's scratch for the reverse path, chunk points at
// a time.
func (r *bandRun) reverseScratch(chunk int) {
	n, comp := r.m.n, r.comp
	r.yhb = make([]float64, chunk*n)
	r.tb = make([]float64, comp*chunk*n)
	r.gb = make([]float64, comp*chunk*n)
	r.qb = make([]float64, chunk)
	r.cb = make([]float64, chunk*max(comp, 1))
	r.c1, r.c2 = make([]float64, comp), make([]float64, comp)
	r.tin = [2][]float64{make([]float64, n), make([]float64, n)}
	r.tout = make([]float64, n)
	r.kq = make([]float64, chunk*n)
}
