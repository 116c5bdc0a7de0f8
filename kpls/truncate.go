package kpls

import "fmt"

// Truncated returns the model with components 0..keep only, for a smaller
// model file: what predictions, bands and statistics need for m ≤ keep,
// and nothing of larger m. Its predictions and bands for m ≤ keep are
// those of m, bit for bit; its ValidComponents is keep and its warnings
// say it was kept (WarnKept). LanczosSteps still reports the steps behind
// the DoF it keeps, though the Lanczos matrix it holds covers keep steps:
// bands at m need only its leading m×m block.
//
// keep must lie in 0..ValidComponents() and be at least Chosen().M, the m
// predictions use by default. Keeping every valid component returns m.
func (m *Model) Truncated(keep int) (*Model, error) {
	if err := m.checkComponents(keep); err != nil {
		return nil, err
	}
	if c := m.Chosen(); c.M > keep {
		return nil, fmt.Errorf("%w: keeping %d components would drop m = %d, the model's choice (%s): keep at least %d", ErrComponents, keep, c.M, c.Criterion, c.M)
	}
	if keep == m.valid {
		return m, nil
	}
	n := m.n
	t := &Model{opts: m.opts, n: n, d: m.d, scale: m.scale, x: m.x, yMean: m.yMean, yc: m.yc,
		colMean: m.colMean, grand: m.grand, valid: keep, steps: keep, lanczos: m.lanczos,
		alpha: append([]float64(nil), m.alpha[:(keep+1)*n]...),
		t:     append([]float64(nil), m.t[:keep*n]...),
		g:     append([]float64(nil), m.g[:keep*n]...),
		l:     make([]float64, keep*keep),
		stats: append([]Stats(nil), m.stats[:keep+1]...),
		stop:  m.stop, storage: m.storage,
	}
	for i := range keep {
		copy(t.l[i*keep:(i+1)*keep], m.l[i*m.steps:i*m.steps+keep])
	}
	if m.dofSE != nil {
		t.dofSE = append([]float64(nil), m.dofSE[:keep+1]...)
	}
	if m.chosen != nil {
		c := *m.chosen
		t.chosen = &c
	}
	t.warns = append(append([]Warning(nil), m.warns...),
		warnf(WarnKept, "kept to %d of the %d valid components (Truncated): larger m need the full model", keep, m.valid))
	return t, nil
}
