package paper

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"

	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/internal/demodata"
	"github.com/kpls-go/kpls/internal/sim"
	"github.com/kpls-go/kpls/kpls"
	"github.com/kpls-go/kpls/plots"
)

// Seeds of the simulations behind Figures: equal seeds, equal images.
const (
	SeedFigure1 = 2009
	SeedFigure3 = 3
	SeedKin8nm  = 8
)

// linspace returns n points evenly spaced from a to b.
func linspace(a, b float64, n int) []float64 {
	g := make([]float64, n)
	for i := range g {
		g[i] = a + (b-a)*float64(i)/float64(n-1)
	}
	return g
}

// column returns v as an n×1 matrix.
func column(v []float64) mat.Matrix { return mat.NewDense(len(v), 1, append([]float64(nil), v...)) }

// Figures recomputes the paper's simulations and writes their
// figures into dir (created if missing), returning the files written:
//
//   - fig1_sinc_dof_gmdl.{png,svg}: Figure 1. sinc, n = 100, x ~ U(−π, π),
//     σ = 0.1; widths 0.01, 0.1, 1; DoF (top) and gMDL (bottom) against m
//     ≤ 20 for the exact DoF, the paper's Lanczos DoF with M = m Ritz
//     values (its Figure 1), with M = 30 (fewer where the Krylov space is
//     exhausted first, as the panel title says), and the project's approx
//     DoF.
//   - fig3_band_width0.1_m15.{png,svg}, fig3_band_width1_m9.{png,svg}:
//     Figure 3. n = 40 from ½N(−2,1) + ½N(3,1), f(x) = (x−1)(x+2)(x−1.5)
//     exp(−x²/10), σ = 1; KPLS fits with 98 % confidence bands.
//   - kin8nm_gmdl_heatmap.png, kin8nm_gmdl_lines.png,
//     kin8nm_observed_vs_predicted.png: gMDL model selection over widths
//     × components on 500 kin8nm rows (the copy embedded in the module),
//     and the chosen model's predictions on 500 other rows.
func Figures(ctx context.Context, dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var files []string
	for _, step := range []func(context.Context, string) ([]string, error){figure1, figure3, kin8nmFigures} {
		if err := ctx.Err(); err != nil {
			return files, err
		}
		f, err := step(ctx, dir)
		files = append(files, f...)
		if err != nil {
			return files, err
		}
	}
	return files, nil
}

// figure1 is the paper's Figure 1 on its sinc simulation.
func figure1(ctx context.Context, dir string) ([]string, error) {
	const (
		n     = 100
		maxM  = 20
		mMax  = 30
		crit  = "gmdl"
		fname = "fig1_sinc_dof_gmdl"
	)
	sd := sim.Sinc(n, SeedFigure1)
	xs, y := sd.X, sd.Y
	x := column(xs)
	var panels []plots.DoFPanel
	for _, w := range []float64{0.01, 0.1, 1} {
		opts := kpls.Options{Kernel: kpls.RBF{Width: w}, Components: maxM, RawFeatures: true}
		fit := func(method kpls.DoFMethod, comps, lanczos int) (*kpls.Model, error) {
			o := opts
			o.DoF, o.Components, o.Lanczos = method, comps, lanczos
			m, err := kpls.Fit(ctx, kpls.Data{X: x, Y: mat.NewVecDense(len(y), y)}, o, nil)
			if err != nil {
				return nil, fmt.Errorf("figure 1, width %g, %s DoF: %w", w, method, err)
			}
			return m, nil
		}
		exact, err := fit(kpls.DoFExact, maxM, 0)
		if err != nil {
			return nil, err
		}
		valid := len(exact.Stats()) - 1
		lz30, err := fit(kpls.DoFLanczos, maxM, mMax)
		if err != nil {
			return nil, err
		}
		approx, err := fit(kpls.DoFApprox, maxM, mMax)
		if err != nil {
			return nil, err
		}
		// The paper's curve: for each m, the Lanczos DoF from the Ritz
		// values of m steps only (m_max = m).
		paper := []kpls.Stats{exact.Stats()[0]}
		for m := 1; m <= valid; m++ {
			mod, err := fit(kpls.DoFLanczos, m, m)
			if err != nil {
				return nil, err
			}
			st := mod.Stats()
			if len(st) <= m {
				break
			}
			paper = append(paper, st[m])
		}
		title := fmt.Sprintf("width %g (%d components)", w, valid)
		if lanczosShort(lz30) {
			title = fmt.Sprintf("width %g (%d components, M < %d)", w, valid, mMax)
		}
		panels = append(panels, plots.DoFPanel{
			Title: title,
			Width: w,
			Series: []plots.Series{
				{Label: "exact", Stats: exact.Stats()},
				{Label: "lanczos, M = m (paper)", Stats: paper},
				{Label: fmt.Sprintf("lanczos, M = %d", mMax), Stats: lz30.Stats()},
				{Label: "approx (project)", Stats: approx.Stats()},
			},
		})
	}
	var files []string
	for _, ext := range []string{".png", ".svg"} {
		path := filepath.Join(dir, fname+ext)
		if err := plots.DoFAndCriterionVersusM(path, crit, panels); err != nil {
			return files, err
		}
		files = append(files, path)
	}
	return files, nil
}

// figure3 is the paper's Figure 3: two fits with 98 % bands.
func figure3(ctx context.Context, dir string) ([]string, error) {
	sd := sim.Figure3(40, SeedFigure3)
	xs, y := sd.X, sd.Y
	x := column(xs)
	grid := linspace(-7, 8, 301)
	gx := column(grid)
	var files []string
	for _, c := range []struct {
		width float64
		comps int
	}{{0.1, 15}, {1, 9}} {
		m, err := kpls.Fit(ctx, kpls.Data{X: x, Y: mat.NewVecDense(len(y), y)}, kpls.Options{Kernel: kpls.RBF{Width: c.width}, Components: c.comps, DoF: kpls.DoFExact, RawFeatures: true}, nil)
		if err != nil {
			return files, fmt.Errorf("figure 3, width %g: %w", c.width, err)
		}
		comp := min(c.comps, len(m.Stats())-1)
		mc, err := m.At(comp)
		if err != nil {
			return files, fmt.Errorf("figure 3, width %g: %w", c.width, err)
		}
		title := fmt.Sprintf("KPLS, width %g, %d components", c.width, comp)
		if comp < c.comps {
			title += fmt.Sprintf(" (%d asked for, the rest broke down)", c.comps)
		}
		bands, err := mc.Predict(ctx, gx, kpls.PredictOptions{Uncertainty: kpls.ConfidenceBand, Level: 0.98})
		if err != nil {
			if !errors.Is(err, kpls.ErrUnreliable) {
				return files, fmt.Errorf("figure 3, width %g: %w", c.width, err)
			}
			bands, err = mc.Predict(ctx, gx, kpls.PredictOptions{})
			if err != nil {
				return files, fmt.Errorf("figure 3, width %g: %w", c.width, err)
			}
			nan := make([]float64, len(bands.Yhat))
			for i := range nan {
				nan[i] = math.NaN()
			}
			bands.SE, bands.Lower, bands.Upper = nan, nan, nan
			title += ": band not reliable in float64"
		} else {
			title += ", 98 % band"
		}
		for _, ext := range []string{".png", ".svg"} {
			path := filepath.Join(dir, fmt.Sprintf("fig3_band_width%g_m%d%s", c.width, c.comps, ext))
			if err := plots.Band1D(path, xs, y, grid, bands, sim.Figure3Truth, title); err != nil {
				return files, err
			}
			files = append(files, path)
		}
	}
	return files, nil
}

// kin8nmFigures selects width and m by gMDL on a kin8nm subsample and
// checks the chosen model on held-out rows.
func kin8nmFigures(ctx context.Context, dir string) ([]string, error) {
	const nTrain, nTest = 500, 500
	xAll, n, d, yAll, _ := demodata.Kin8nm()
	rng := rand.New(rand.NewPCG(SeedKin8nm, 0x8192))
	perm := rng.Perm(n)
	take := func(idx []int) (*mat.Dense, []float64) {
		x := mat.NewDense(len(idx), d, nil)
		y := make([]float64, len(idx))
		for r, i := range idx {
			x.SetRow(r, xAll[i*d:(i+1)*d])
			y[r] = yAll[i]
		}
		return x, y
	}
	xTrain, yTrain := take(perm[:nTrain])
	xTest, yTest := take(perm[nTrain : nTrain+nTest])
	widths := []float64{0.5, 1, 2, 4, 8, 16, 32, 64}
	sel, err := kpls.Select(ctx, kpls.Data{X: xTrain, Y: mat.NewVecDense(len(yTrain), yTrain)}, kpls.SelectOptions{Components: 25, DoF: kpls.DoFApprox, Seed: SeedKin8nm, Kernels: []kpls.Kernel{kpls.RBF{}}, Widths: widths, MaxComponents: 25, By: kpls.GMDL}, nil)
	if err != nil {
		return nil, fmt.Errorf("kin8nm selection: %w", err)
	}
	var files []string
	heat := filepath.Join(dir, "kin8nm_gmdl_heatmap.png")
	if err := plots.CriterionHeatmap(heat, sel); err != nil {
		return files, err
	}
	files = append(files, heat)
	lines := filepath.Join(dir, "kin8nm_gmdl_lines.png")
	if err := plots.CriterionVersusM(lines, sel); err != nil {
		return files, err
	}
	files = append(files, lines)
	pred, err := sel.Model.Predict(ctx, xTest, kpls.PredictOptions{})
	if err != nil {
		return files, fmt.Errorf("kin8nm prediction: %w", err)
	}
	ovp := filepath.Join(dir, "kin8nm_observed_vs_predicted.png")
	if err := plots.ObservedVsPredicted(ovp, yTest, pred.Yhat); err != nil {
		return files, err
	}
	return append(files, ovp), nil
}

// lanczosShort reports whether m's Lanczos DoF ran fewer steps than asked.
func lanczosShort(m *kpls.Model) bool {
	for _, w := range m.Warnings() {
		if w.Code == kpls.WarnLanczosShort {
			return true
		}
	}
	return false
}
