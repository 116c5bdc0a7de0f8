package relevance

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/cmd/cli"
	"github.com/kpls-go/kpls/kpls"
	"github.com/kpls-go/kpls/lab/allm"
	"github.com/kpls-go/kpls/lab/panel"
)

// nestedComponents is the most components the nested CV fits.
const nestedComponents = 60

// runNested scores the isotropic RBF kernel and the GOP-scaled one by
// 5-fold cross-validation in which everything learned from the rows is
// learned from each fold's training rows alone: the standardisation and,
// for gop, the scales (the GOP of the fold's own fit at the isotropic
// selection's best RBF width and m). Each rule's grid is the RBF widths
// d'·{1/16, …, 4}, d' = Σ_j s_j² (d for iso), and m = 0…60; its score is
// the lowest RMSECV on the grid. The selection's CV error cannot tell
// whether scales help: their GOP saw every training row, its folds'
// held-out rows included (lab/relevance/doc.go).
func runNested(ctx context.Context, e *cli.Env, name string, k int, x *mat.Dense, y []float64, train []int) ([]Variant, error) {
	xtr, ytr := panel.Rows(x, y, train)
	iso, err := kpls.Select(ctx, kpls.Data{X: xtr, Y: mat.NewVecDense(len(ytr), ytr)}, kpls.SelectOptions{Isotropic: true}, nil)
	if err != nil {
		return nil, err
	}
	w0, m0 := 0.0, 0 // without an RBF choice gop is iso
	if b0, ok := bestRBF(iso); ok {
		w0, m0 = b0.Width(), b0.M
	}
	n, d := xtr.Dims()
	const folds = 5
	perm := rand.New(rand.NewPCG(seedOf("folds", name, 1), uint64(k))).Perm(n)
	factors := []float64{1.0 / 16, 1.0 / 8, 1.0 / 4, 1.0 / 2, 1, 2, 4}
	rules := []string{"nested-iso", "nested-gop"}
	press := make([][][]float64, len(rules)) // rule, width, m
	for r := range rules {
		press[r] = make([][]float64, len(factors))
		for wi := range factors {
			press[r][wi] = make([]float64, nestedComponents+1)
		}
	}
	for f := range folds {
		var tr, va []int
		for i, p := range perm {
			if i%folds == f {
				va = append(va, p)
			} else {
				tr = append(tr, p)
			}
		}
		xf, yf := panel.Rows(xtr, ytr, tr)
		xv, yv := panel.Rows(xtr, ytr, va)
		st := newStandardiser(xf)
		zf := st.apply(xf, nil)
		gopScales := slices.Repeat([]float64{1}, d)
		if w0 > 0 && m0 > 0 {
			model, err := kpls.Fit(ctx, kpls.Data{X: zf, Y: mat.NewVecDense(len(yf), yf)},
				kpls.Options{Kernel: kpls.RBF{Width: w0}, Components: m0, RawFeatures: true, DoF: kpls.DoFNone}, nil)
			if err != nil {
				return nil, err
			}
			alpha, err := model.Alpha(min(m0, len(model.Stats())-1))
			if err != nil {
				return nil, err
			}
			gopScales = normalised(gopOfRows(zf, alpha, w0), 1)
		}
		for r, s := range [][]float64{nil, gopScales} {
			deff := float64(d)
			if s != nil {
				deff = 0
				for _, v := range s {
					deff += v * v
				}
			}
			a, b := st.apply(xf, s), st.apply(xv, s)
			for wi, fac := range factors {
				model, err := kpls.Fit(ctx, kpls.Data{X: a, Y: mat.NewVecDense(len(yf), yf)},
					kpls.Options{Kernel: kpls.RBF{Width: fac * deff}, Components: nestedComponents, RawFeatures: true, DoF: kpls.DoFNone}, nil)
				if err != nil {
					return nil, err
				}
				p, err := allm.Predict(ctx, model, b)
				if err != nil {
					return nil, err
				}
				_, cols := p.Dims()
				for m := 0; m <= nestedComponents; m++ {
					c := min(m, cols-1) // past the fit's last component: its last prediction
					for i, yi := range yv {
						res := yi - p.At(i, c)
						press[r][wi][m] += res * res
					}
				}
			}
		}
	}
	var out []Variant
	for r, rule := range rules {
		v := Variant{Name: rule, Kernel: "rbf", CV: math.Inf(1)}
		for wi, fac := range factors {
			for m, pr := range press[r][wi] {
				if cv := math.Sqrt(pr / float64(n)); cv < v.CV {
					v.CV, v.Width, v.M = cv, fac, m
				}
			}
		}
		fmt.Fprintf(e.Stderr, "%s relevance: %s split %d %-9s width factor %g, m %d: CV %.5g\n", e.Prog, name, k, rule, v.Width, v.M, v.CV)
		out = append(out, v)
	}
	return out, nil
}

// bestRBF is the RBF choice of a selection with the lowest RMSECV.
func bestRBF(sel *kpls.Selection) (kpls.SelectionRow, bool) {
	var best kpls.SelectionRow
	found := false
	for _, c := range sel.Choices {
		if c.Kernel.Name() == "rbf" && (!found || c.RMSECV < best.RMSECV) {
			best, found = c, true
		}
	}
	return best, found
}
