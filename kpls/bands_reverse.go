package kpls

import (
	"context"
	"fmt"

	gblas "gonum.org/v1/gonum/blas"

	"github.com/kpls-go/kpls/blas"
)

// reverseBudget bounds the adjoint scratch of the bands' reverse path
// (two m×chunk×n arrays), which sets its chunk of points.
const reverseBudget = 256 << 20

// refitKrylov returns the Krylov steps of the fit rerun on the model's
// operator to comp components (the residuals and their products, which
// the model does not keep), computed once per m and kept.
func (m *Model) refitKrylov(ctx context.Context, comp int) (*krylov, error) {
	c := m.shared()
	c.qtMu.Lock()
	kr, ok := c.kry[comp]
	c.qtMu.Unlock()
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
	c.qtMu.Lock()
	defer c.qtMu.Unlock()
	if c.kry == nil {
		c.kry = map[int]*krylov{}
	}
	if prev, ok := c.kry[comp]; ok {
		return prev, nil
	}
	c.kry[comp] = kr
	return kr, nil
}

// reverseCache is the adjoint scratch that stays in one core's L2 cache
// (1 MiB on the machines we measure; smaller caches only shrink the gain).
const reverseCache = 1 << 20

// reverseChunk is the points per block on the reverse path. Per point, the
// products with K read about 8·m·n²/chunk bytes and gathering the deferred
// adjoints reads the scratch about m² times (8·m²·n bytes). Where a chunk
// whose scratch stays in cache still leaves the products the smaller cost
// (n ≲ 700), it is taken: at n = 300, m = 40 the bands take 0.69× the time
// (BenchmarkBandsReverse). Elsewhere the budget sets it.
func reverseChunk(n, comp int) int {
	comp = max(comp, 1)
	chunk := max(1, min(bandChunk, reverseBudget/(16*comp*n)))
	if cached := reverseCache / (16 * comp * n); cached >= max(4, n/(7*comp)) {
		chunk = min(chunk, cached)
	}
	return chunk
}

// reverseVectors is bandRun.vectors on the reverse path: the gradient of
// each point's prediction k̃(x)ᵀα_m with respect to ỹ by reverse-mode
// differentiation of the fit's own steps (residual, product with K,
// two-pass Gram–Schmidt, normalisation, coefficient, updates), every
// point of the block at once: m products of K with the block, as the
// Ritz form costs, and stable as the fit is. The gradients are then
// projected off the vector K annihilates (the centring of y), and f_i =
// k_c(x_i)ᵀα_m.
//
// Step i's Gram–Schmidt sends an adjoint to every earlier score t_l and
// direction g_l. Added as they arise, those are O(m²) read-and-write
// passes over block-sized arrays, the whole cost at small n. They are
// deferred instead: step i keeps its t̄ and ḡ after the normalisation
// (tb, gb slot i), its coefficients c₁ + c₂ (cc row i), and, per point,
// what it sends along known n-vectors (the earlier scores and the
// products K r_i) as coefficients (wt, wk); step l then gathers its
// adjoint in one read of the later slots and two matrix products.
func (r *bandRun) reverseVectors(ctx context.Context, p int) (h, f []float64, err error) {
	m, kr, comp, n := r.m, r.kr, r.comp, r.m.n
	bl := m.opts.Backend
	yc := m.yc
	ab, yhb, yb := r.kx[:p*n], r.yhb[:p*n], r.s[:p*n] // ᾱ = k, adjoint of ŷ, of ỹ
	clear(yhb)
	clear(yb)
	pn := p * n
	tb, gb := r.tb[:comp*pn], r.gb[:comp*pn]
	// wt[l] (p×comp) and wk[l] (p×comp): the deferred adjoint of t_l per
	// point along the scores T and along the products K r_j.
	wt, wk := r.wt[:comp*p*comp], r.wk[:comp*p*comp]
	clear(wt)
	clear(wk)
	cc := r.cc[:comp*comp]
	qb := r.qb[:p]
	for i := comp - 1; i >= 0; i-- {
		ti, gi := kr.t[i*n:(i+1)*n], kr.g[i*n:(i+1)*n]
		q := kr.q[i]
		tbi, gbi := tb[i*pn:(i+1)*pn], gb[i*pn:(i+1)*pn]
		// Gather what the later steps sent to t_i and g_i.
		clear(gbi)
		if i+1 < comp {
			bl.Dgemm(gblas.NoTrans, gblas.NoTrans, p, n, comp, 1, wt[i*p*comp:], comp, kr.t, n, 0, tbi, n)
			bl.Dgemm(gblas.NoTrans, gblas.NoTrans, p, n, comp-i-1, 1, wk[i*p*comp+i+1:], comp, kr.ktr[(i+1)*n:], n, 1, tbi, n)
			gatherLater(bl, tbi, tb[(i+1)*pn:], cc, i, comp)
			gatherLater(bl, gbi, gb[(i+1)*pn:], cc, i, comp)
		} else {
			clear(tbi)
		}
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
		nu := r.redoGramSchmidt(i)
		// t_i = t/ν, g_i = g/ν with ν = ‖t‖: tbi, gbi become t̄_out, ḡ_out
		// (kept for the earlier steps).
		for s := range p {
			tbs, gbs := tbi[s*n:(s+1)*n], gbi[s*n:(s+1)*n]
			nub := -(bl.Ddot(n, tbs, 1, ti, 1) + bl.Ddot(n, gbs, 1, gi, 1)) / nu
			bl.Dscal(n, 1/nu, tbs, 1)
			bl.Daxpy(n, nub, ti, 1, tbs, 1)
			bl.Dscal(n, 1/nu, gbs, 1)
		}
		tob := r.passesBack(i, p, tbi, gbi)
		// t̃ = K r, g = r: r̄ = ḡ + K t̄_in; r = ỹ − ŷ_i: ȳ += r̄, ŷ̄ −= r̄.
		if err := r.op.Mul(ctx, r.kq[:pn], tob, p); err != nil {
			return nil, nil, err
		}
		bl.Daxpy(pn, 1, gbi, 1, r.kq[:pn], 1)
		bl.Daxpy(pn, 1, r.kq[:pn], 1, yb, 1)
		bl.Daxpy(pn, -1, r.kq[:pn], 1, yhb, 1)
	}
	return yb, r.finishReverse(yb, p), nil
}

// redoGramSchmidt recomputes step i's two Gram–Schmidt passes of
// t_in = K r_i against T_i: the inputs into r.tin, the coefficients into
// r.c1 and r.c2, t_out into r.tout. It returns ν = ‖t_out‖.
func (r *bandRun) redoGramSchmidt(i int) float64 {
	bl, kr, n := r.m.opts.Backend, r.kr, r.m.n
	tin, tout, c1, c2 := r.tin, r.tout, r.c1, r.c2
	copy(tin[0], kr.ktr[i*n:(i+1)*n])
	if i > 0 {
		bl.Dgemv(gblas.NoTrans, i, n, 1, kr.t, n, tin[0], 1, 0, c1[:i], 1)
		copy(tin[1], tin[0])
		bl.Dgemv(gblas.Trans, i, n, -1, kr.t, n, c1[:i], 1, 1, tin[1], 1)
		bl.Dgemv(gblas.NoTrans, i, n, 1, kr.t, n, tin[1], 1, 0, c2[:i], 1)
		copy(tout, tin[1])
		bl.Dgemv(gblas.Trans, i, n, -1, kr.t, n, c2[:i], 1, 1, tout, 1)
	} else {
		copy(tout, tin[0])
	}
	return bl.Dnrm2(n, tout, 1)
}

// passesBack takes the adjoints t̄_out (tbi) and ḡ (gbi) of step i's p
// points back through its two Gram–Schmidt passes: it returns t̄_in and
// defers what the passes send to the earlier t_l and g_l into r.wt,
// r.wk and r.cc.
func (r *bandRun) passesBack(i, p int, tbi, gbi []float64) []float64 {
	kr, comp, n := r.kr, r.comp, r.m.n
	bl := r.m.opts.Backend
	pn := p * n
	tob := r.tob[:pn]
	cb1, cb2, cbs := r.cb[:p*comp], r.cb2[:p*comp], r.cbs[:p*comp]
	wt, wk, cc := r.wt[:comp*p*comp], r.wk[:comp*p*comp], r.cc[:comp*comp]
	c1, c2, gram := r.c1, r.c2, r.gram
	// The passes backwards, t_out = t_in − T_iᵀc, g_out = g_in − G_iᵀc,
	// c = T_i t_in, ḡ unchanged through them:
	//   pass 2: c̄₂ = −T_i t̄_out − G_i ḡ, t̄₁ = t̄_out + T_iᵀc̄₂;
	//   pass 1: c̄₁ = −T_i t̄₁ − G_i ḡ,   t̄_in = t̄₁ + T_iᵀc̄₁.
	// With M = T_iT_iᵀ, c̄₁ = c̄₂ − c̄₂M and t̄_in = t̄_out + T_iᵀ(c̄₁ + c̄₂):
	// three products with the block instead of six.
	copy(tob, tbi)
	if i > 0 {
		bl.Dgemm(gblas.NoTrans, gblas.Trans, p, i, n, -1, tbi, n, kr.t, n, 0, cb2, i)
		bl.Dgemm(gblas.NoTrans, gblas.Trans, p, i, n, -1, gbi, n, kr.g, n, 1, cb2, i)
		copy(cb1[:p*i], cb2[:p*i])
		bl.Dgemm(gblas.NoTrans, gblas.NoTrans, p, i, i, -1, cb2, i, gram, comp, 1, cb1, i)
		for k, v := range cb2[:p*i] {
			cbs[k] = v + cb1[k]
		}
		bl.Dgemm(gblas.NoTrans, gblas.NoTrans, p, n, i, 1, cbs, i, kr.t, n, 1, tob, n)
		// What the passes send to t_l and g_l (l < i): −(c₁,l + c₂,l)
		// times the kept t̄_out and ḡ, and per point, with t_in = K r_i
		// and t₁ = K r_i − T_iᵀc₁,
		//   c̄₂,l t₁ + c̄₁,l K r_i − c₁,l T_iᵀc̄₂
		//   = (c̄₁,l + c̄₂,l) K r_i − Σ_k (c̄₂,l c₁,k + c₁,l c̄₂,k) t_k.
		for l := range i {
			cc[i*comp+l] = c1[l] + c2[l]
			w := wt[l*p*comp : (l+1)*p*comp]
			for s := range p {
				b1, b2 := cb1[s*i:(s+1)*i], cb2[s*i:(s+1)*i]
				wk[l*p*comp+s*comp+i] += b1[l] + b2[l]
				ws := w[s*comp : s*comp+i]
				for k := range ws {
					ws[k] -= b2[l]*c1[k] + c1[l]*b2[k]
				}
			}
		}
	}
	return tob
}

// finishReverse centres the p gradients in yb (the intercept's share,
// weighted) and returns the points' centred predictions k_c(x)ᵀα_m.
func (r *bandRun) finishReverse(yb []float64, p int) []float64 {
	m, n := r.m, r.m.n
	bl := m.opts.Backend
	alpha := m.alpha[r.comp*n : (r.comp+1)*n]
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
	return r.f[:p]
}

// reverseScratch sizes r's scratch for the reverse path, chunk points at
// a time.
func (r *bandRun) reverseScratch(chunk int) {
	n, comp := r.m.n, r.comp
	r.yhb = make([]float64, chunk*n)
	r.tb = make([]float64, comp*chunk*n)
	r.gb = make([]float64, comp*chunk*n)
	r.tob = make([]float64, chunk*n)
	r.wt = make([]float64, comp*chunk*comp)
	r.wk = make([]float64, comp*chunk*comp)
	r.cc = make([]float64, comp*comp)
	r.qb = make([]float64, chunk)
	r.cb = make([]float64, chunk*max(comp, 1))
	r.cb2 = make([]float64, chunk*max(comp, 1))
	r.cbs = make([]float64, chunk*max(comp, 1))
	// gram = T Tᵀ (comp×comp), once for every block of points: the scores
	// are orthonormal to rounding, but the identity c̄₁ = c̄₂ − c̄₂M that
	// reverseVectors uses is exact only with M as computed.
	r.gram = make([]float64, comp*comp)
	if comp > 0 {
		r.m.opts.Backend.Dgemm(gblas.NoTrans, gblas.Trans, comp, comp, n, 1, r.kr.t, n, r.kr.t, n, 0, r.gram, comp)
	}
	r.c1, r.c2 = make([]float64, comp), make([]float64, comp)
	r.tin = [2][]float64{make([]float64, n), make([]float64, n)}
	r.tout = make([]float64, n)
	r.kq = make([]float64, chunk*n)
}

// gatherLater adds to dst (p×n) the later steps' share of the adjoint of
// step i, −Σ_{j>i} cc[j][i]·src_j, where src holds the kept blocks of
// steps i+1 … comp−1, each the size of dst. It walks dst in column
// strips that stay in cache, so each kept block is read once and dst is
// written once.
func gatherLater(bl blas.Float64, dst, src, cc []float64, i, comp int) {
	const strip = 2048
	size := len(dst)
	for lo := 0; lo < size; lo += strip {
		hi := min(lo+strip, size)
		for j := i + 1; j < comp; j++ {
			if c := cc[j*comp+i]; c != 0 {
				off := (j - i - 1) * size
				bl.Daxpy(hi-lo, -c, src[off+lo:off+hi], 1, dst[lo:hi], 1)
			}
		}
	}
}
