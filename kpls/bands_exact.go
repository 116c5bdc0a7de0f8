package kpls

import (
	"context"
	"fmt"

	gblas "gonum.org/v1/gonum/blas"
)

// exactBandsMax bounds n for the bands' exact path: it differentiates the
// fit along all n directions, O(m·n³) time and n² memory (about 10 s at
// n = 2000, m = 20 on two cores).
const exactBandsMax = 2000

// alphaJacobian returns ∂α_m/∂y_c (n×n, row a = ∂α_a/∂y_c), m = comp,
// by forward-mode differentiation of the fit itself, rerun on the
// model's operator: the path the bands take where the Ritz polynomial
// does not reproduce α_m (the same arithmetic as exactDoF, which stays
// accurate where the polynomial forms lose all digits). Computed once
// per m and kept.
func (m *Model) alphaJacobian(ctx context.Context, comp int) ([]float64, error) {
	m.qtMu.Lock()
	jac, ok := m.jac[comp]
	m.qtMu.Unlock()
	if ok {
		return jac, nil
	}
	n := m.n
	if n > exactBandsMax {
		return nil, fmt.Errorf("%w: confidence bands for m = %d: the Ritz polynomial does not reproduce α_m, and the exact derivative is limited to n ≤ %d (n = %d; use fewer components)", ErrUnreliable, comp, exactBandsMax, n)
	}
	kop, err := m.operator(ctx)
	if err != nil {
		return nil, err
	}
	bl := m.opts.Backend
	kr, err := nipals(ctx, bl, kop, m.yc, comp, nil)
	if err != nil {
		return nil, err
	}
	if kr.steps < comp {
		return nil, fmt.Errorf("%w: confidence bands for m = %d: the refit for the exact derivative stopped at %d components (%s)", ErrUnreliable, comp, kr.steps, kr.stop.Message)
	}
	b := min(n, 128)
	e := newExactRun(bl, kop, m.yc, kr, comp, b)
	e.dA = make([]float64, n*b)
	jac = make([]float64, n*n)
	for c0 := 0; c0 < n; c0 += b {
		w := min(b, n-c0)
		clear(e.dYh)
		clear(e.dA)
		for i := 0; i < comp; i++ {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if _, err := e.component(ctx, i, c0, w); err != nil {
				return nil, err
			}
		}
		for a := 0; a < n; a++ {
			copy(jac[a*n+c0:a*n+c0+w], e.dA[a*b:a*b+w])
		}
	}
	m.qtMu.Lock()
	defer m.qtMu.Unlock()
	if m.jac == nil {
		m.jac = map[int][]float64{}
	}
	if prev, ok := m.jac[comp]; ok {
		return prev, nil
	}
	m.jac[comp] = jac
	return jac, nil
}

// exactVectors is bandRun.vectors on the exact path: h_i = C Jᵀk_c(x_i)
// with J = ∂α_m/∂y_c and C the centring (y_c = C y), and f_i = k_c(x_i)ᵀα_m.
// With weights C projects off √w, the vector K̃ annihilates: the
// constant vector of the copied rows in tilde coordinates.
func (r *bandRun) exactVectors(rows int) (h, f []float64) {
	m, n := r.m, r.m.n
	alpha := m.alpha[r.comp*n : (r.comp+1)*n]
	m.opts.Backend.Dgemm(gblas.NoTrans, gblas.NoTrans, rows, n, n, 1, r.kx, n, r.jac, n, 0, r.s, n)
	for i := 0; i < rows; i++ {
		hi, ki := r.s[i*n:(i+1)*n], r.kx[i*n:(i+1)*n]
		var mean, fi float64
		for j, v := range hi {
			mean += m.rootWeight(j) * v
			fi += ki[j] * alpha[j]
		}
		mean /= m.total()
		for j := range hi {
			hi[j] -= mean * m.rootWeight(j)
		}
		r.f[i] = fi
	}
	return r.s[:rows*n], r.f[:rows]
}
