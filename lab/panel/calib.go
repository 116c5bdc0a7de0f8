package panel

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/kpls-go/kpls/cmd/cli"
	"github.com/kpls-go/kpls/kpls"
)

// calibRules are the noise levels `kpls-lab panel calib` compares for
// the 95 % prediction intervals ŷ ± z·se_y of Select's default
// predictor, with h²(x) = (band se(x)/s)², the band's variance per unit
// noise variance:
//
//	rmsecv+band  se_y² = s²(1 + h²), s the library's rule before this
//	             study (σ̂ or the RMSECV, for a mean the root mean of the
//	             members' RMSECV²)
//	sigma+band   se_y² = σ̂²(1 + h²), σ̂ of the predictor's own fit (a
//	             mean's members refitted with their approximate DoF)
//	oof+band     se_y² = s_oof²(1 + h²), s_oof the RMSE of the
//	             predictor's own out-of-fold predictions
//	             (Selection.PredictorRMSECV)
//	best+band    se_y² = s_best²(1 + h²), s_best the best grid point's
//	             RMSECV (Selection.Best.RMSECV; a mean's first member's)
//	oofq+band    se_y² = s_q²(1 + h²), s_q = q/z with q the level's
//	             quantile of the absolute out-of-fold residuals of the
//	             predictor's members refitted (kernel and m fixed) on five
//	             folds of the lab's own: split conformal's width made a se
//	oofq         se_y² = s_q²
//	oof+excess   se_y² = s_oof²(1 + max(0, h² − h̄²)), h̄² the mean of h²
//	             over (up to 200 of) the training rows: s_oof already
//	             holds the fit's average variance, so the band adds only
//	             where a point's exceeds it
//	oof          se_y² = s_oof²
//	rmsecv       se_y² = s², the first rule without the band
//
// The band rules need the bands (--bands); the others only ŷ.
var calibRules = []string{"rmsecv+band", "sigma+band", "oof+band", "best+band", "oof+excess", "oofq+band", "oofq", "oof", "rmsecv"}

// calibSplit is one split's outcome: per rule the test targets inside the
// intervals and the sum of their Gaussian log predictive densities.
type calibSplit struct {
	Set     string             `json:"set"`
	Split   int                `json:"split"`
	NTest   int                `json:"n_test"`
	Members int                `json:"members"`
	RMSE    float64            `json:"rmse"`
	HBar2   float64            `json:"hbar2"`  // the mean h² over training rows (oof+excess)
	S       map[string]float64 `json:"s"`      // the noise level of each rule
	Inside  map[string]int     `json:"inside"` // targets inside, per rule
	LPD     map[string]float64 `json:"lpd"`    // mean log density, per rule
}

// runCalib is `kpls-lab panel calib`.
func runCalib(ctx context.Context, e *cli.Env, args []string) error {
	fs := cli.NewFlagSet("panel calib", "--panel DIR [flags]",
		"Compares noise levels for the prediction intervals of the default select on the panel's\n"+
			"splits: for each data set and split it runs kpls.Select on the training rows and scores\n"+
			"the 95 % intervals of several rules (lab/panel/calib.go) on the test rows by coverage and\n"+
			"by the mean Gaussian log predictive density. One JSON line per split, then a table.")
	var dir, sets string
	var level float64
	var bands, sigma, quant bool
	fs.StringVar(&dir, "panel", "", "`directory` written by kpls-lab panel gen (required)")
	fs.StringVar(&sets, "sets", "", "comma-separated data sets (default every set in DIR/panel.json)")
	fs.Float64Var(&level, "level", 0.95, "the intervals' `level`")
	fs.BoolVar(&bands, "bands", true, "compute the bands (the +band rules); off, only the rules without them")
	fs.BoolVar(&sigma, "sigma", true, "refit a mean's members with DoF for σ̂ (sigma+band)")
	fs.BoolVar(&quant, "quantile", true, "refit a mean's members on five folds for the quantile of the out-of-fold residuals (oofq)")
	if err := fs.Parse(e, args); err != nil {
		return err
	}
	if dir == "" {
		return cli.Usagef("--panel is required")
	}
	var names []string
	if sets != "" {
		names = strings.Split(sets, ",")
	} else {
		var doc struct {
			Sets []struct{ Name string } `json:"sets"`
		}
		b, err := os.ReadFile(filepath.Join(dir, "panel.json"))
		if err != nil {
			return err
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			return err
		}
		for _, s := range doc.Sets {
			names = append(names, s.Name)
		}
	}
	zq := distuv.UnitNormal.Quantile(0.5 + level/2)
	type total struct {
		inside   map[string]int
		lpd      map[string]float64
		n        int
		perSplit map[string][]float64
	}
	var order []string
	totals := map[string]*total{}
	enc := json.NewEncoder(e.Stdout)
	for _, name := range names {
		x, y, err := readPanelSet(filepath.Join(dir, name+".csv"))
		if err != nil {
			return err
		}
		n, _ := x.Dims()
		tot := &total{inside: map[string]int{}, lpd: map[string]float64{}, perSplit: map[string][]float64{}}
		for k := 0; ; k++ {
			sdir := filepath.Join(dir, name+".splits")
			tr, err := ReadIndices(filepath.Join(sdir, fmt.Sprintf("split-%d.train", k)), n)
			if os.IsNotExist(err) && k > 0 {
				break
			}
			if err != nil {
				return err
			}
			te, err := ReadIndices(filepath.Join(sdir, fmt.Sprintf("split-%d.test", k)), n)
			if err != nil {
				return err
			}
			fmt.Fprintf(e.Stderr, "%s panel calib: %s split %d\n", e.Prog, name, k)
			sp, err := calibSplitRun(ctx, x, y, tr, te, zq, bands, sigma, quant)
			if err != nil {
				return fmt.Errorf("%s split %d: %w", name, k, err)
			}
			sp.Set, sp.Split = name, k
			if err := enc.Encode(sp); err != nil {
				return err
			}
			for r, c := range sp.Inside {
				tot.inside[r] += c
				tot.lpd[r] += sp.LPD[r] * float64(sp.NTest)
				tot.perSplit[r] = append(tot.perSplit[r], float64(c)/float64(sp.NTest))
			}
			tot.n += sp.NTest
		}
		order = append(order, name)
		totals[name] = tot
	}
	rules := slices.DeleteFunc(slices.Clone(calibRules), func(r string) bool {
		return (!bands && (strings.HasSuffix(r, "+band") || r == "oof+excess")) || (!sigma && r == "sigma+band") || (!quant && strings.HasPrefix(r, "oofq"))
	})
	w := e.Stdout
	fmt.Fprintf(w, "\n%g %% prediction intervals: pooled coverage / median split's, and the mean log predictive density\n\n", 100*level)
	fmt.Fprint(w, "| data | test points |")
	for _, r := range rules {
		fmt.Fprintf(w, " %s: coverage | %s: LPD |", r, r)
	}
	fmt.Fprint(w, "\n|---|--:|"+strings.Repeat("--:|--:|", len(rules))+"\n")
	meanLPD := map[string]float64{}
	for _, name := range order {
		t := totals[name]
		fmt.Fprintf(w, "| %s | %d |", name, t.n)
		for _, r := range rules {
			ps := slices.Clone(t.perSplit[r])
			sort.Float64s(ps)
			fmt.Fprintf(w, " %.1f %% / %.1f %% | %.3f |", 100*float64(t.inside[r])/float64(t.n), 100*Median(ps), t.lpd[r]/float64(t.n))
			meanLPD[r] += t.lpd[r] / float64(t.n) / float64(len(order))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprint(w, "| mean over sets | |")
	for _, r := range rules {
		fmt.Fprintf(w, " | %.3f |", meanLPD[r])
	}
	fmt.Fprintln(w)
	return nil
}

// readPanelSet reads a panel data file: CSV with a header, target y last.
func readPanelSet(path string) (*mat.Dense, []float64, error) {
	head, rows, err := readCSV(path)
	if err != nil {
		return nil, nil, err
	}
	if head[len(head)-1] != "y" {
		return nil, nil, fmt.Errorf("%s: last column is %q, want the target y", path, head[len(head)-1])
	}
	n, d := len(rows), len(head)-1
	x := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	for i, r := range rows {
		for j := range d {
			v, _ := strconv.ParseFloat(r[j], 64) // readCSV checked them
			x.Set(i, j, v)
		}
		y[i], _ = strconv.ParseFloat(r[d], 64)
	}
	return x, y, nil
}

func calibSplitRun(ctx context.Context, x *mat.Dense, y []float64, tr, te []int, zq float64, bands, sigma, quant bool) (calibSplit, error) {
	xtr, ytr := Rows(x, y, tr)
	xte, yte := Rows(x, y, te)
	sp := calibSplit{NTest: len(te), S: map[string]float64{}, Inside: map[string]int{}, LPD: map[string]float64{}}
	sel, err := kpls.Select(ctx, kpls.Data{X: xtr, Y: mat.NewVecDense(len(ytr), ytr)}, kpls.SelectOptions{}, nil)
	if err != nil {
		return sp, err
	}
	po := kpls.PredictOptions{}
	if bands {
		po = kpls.PredictOptions{Uncertainty: kpls.ConfidenceBand, Level: 0.95}
	}
	p, err := sel.Predictor.Predict(ctx, xte, po)
	if err != nil {
		return sp, err
	}
	sp.RMSE = RMSE(p.Yhat, yte)
	sum := sel.Predictor.Summary()
	sp.Members = len(sum.Members)
	sA := sum.Noise
	h2 := make([]float64, len(te))
	var hbar2 float64
	if bands {
		sA = p.Noise
		for i, se := range p.SE {
			h2[i] = (se / sA) * (se / sA)
		}
	}
	sp.S["rmsecv"], sp.S["rmsecv+band"] = sA, sA
	sp.S["oof"], sp.S["oof+band"] = sel.PredictorRMSECV, sel.PredictorRMSECV
	rules := []string{"oof", "rmsecv"}
	if quant {
		q, err := oofQuantile(ctx, xtr, ytr, sel, zqLevel(zq))
		if err != nil {
			return sp, err
		}
		sp.S["oofq"], sp.S["oofq+band"] = q/zq, q/zq
		rules = append(rules, "oofq")
		if bands {
			rules = append(rules, "oofq+band")
		}
	}
	if bands {
		rules = append(rules, "rmsecv+band", "oof+band", "best+band", "oof+excess")
		sp.S["best+band"] = sel.Best.RMSECV
		sp.S["oof+excess"] = sel.PredictorRMSECV
		step := max(1, len(tr)/200)
		var sub []int
		for i := 0; i < len(tr); i += step {
			sub = append(sub, i)
		}
		xs, _ := Rows(xtr, ytr, sub)
		pt, err := sel.Predictor.Predict(ctx, xs, po)
		if err != nil {
			return sp, err
		}
		for _, se := range pt.SE {
			hbar2 += (se / sA) * (se / sA) / float64(len(pt.SE))
		}
		sp.HBar2 = hbar2
		if sigma {
			s, err := sigmaOf(ctx, xtr, ytr, sel)
			if err != nil {
				return sp, err
			}
			sp.S["sigma+band"] = s
			rules = append(rules, "sigma+band")
		}
	}
	for _, r := range rules {
		s := sp.S[r]
		var in int
		var lpd float64
		for i, v := range yte {
			v2 := s * s
			if strings.HasSuffix(r, "+band") {
				v2 *= 1 + h2[i]
			}
			if r == "oof+excess" {
				v2 *= 1 + max(0, h2[i]-hbar2)
			}
			se := math.Sqrt(v2)
			e := v - p.Yhat[i]
			if math.Abs(e) <= zq*se {
				in++
			}
			lpd += -0.5*math.Log(2*math.Pi*v2) - e*e/(2*v2)
		}
		sp.Inside[r], sp.LPD[r] = in, lpd/float64(len(yte))
	}
	return sp, nil
}

// sigmaOf returns σ̂ of the selection's predictor: the model's at its m,
// or for a mean that of the mean of its members refitted to the same
// rows with their approximate DoF.
func sigmaOf(ctx context.Context, x *mat.Dense, y []float64, sel *kpls.Selection) (float64, error) {
	if m, ok := sel.Predictor.(*kpls.Model); ok {
		if s := m.Stats()[m.Chosen().M].Sigma; !math.IsNaN(s) {
			return s, nil
		}
	}
	var ms []*kpls.Model
	for _, m := range sel.Predictor.Summary().Members {
		o := kpls.Options{Kernel: m.Kernel, DoF: kpls.DoFApprox, Components: m.M}
		f, err := kpls.Fit(ctx, kpls.Data{X: x, Y: mat.NewVecDense(len(y), y)}, o, nil)
		if err != nil {
			return 0, err
		}
		f, err = f.At(m.M)
		if err != nil {
			return 0, err
		}
		ms = append(ms, f)
	}
	mean, err := kpls.NewMean(ms...)
	if err != nil {
		return 0, err
	}
	return mean.Summary().Stats.Sigma, nil
}

// zqLevel is the level of the two-sided normal quantile zq.
func zqLevel(zq float64) float64 { return 2*distuv.UnitNormal.CDF(zq) - 1 }

// oofQuantile returns the p quantile of |y − ŷ_oof| over the training
// rows, ŷ_oof the mean of the selection's members refitted (each with
// its kernel and m) on five folds of rows i with i mod 5 = f held out.
func oofQuantile(ctx context.Context, x *mat.Dense, y []float64, sel *kpls.Selection, p float64) (float64, error) {
	const folds = 5
	n := len(y)
	members := sel.Predictor.Summary().Members
	oof := make([]float64, n)
	for f := range folds {
		var tr, te []int
		for i := range n {
			if i%folds == f {
				te = append(te, i)
			} else {
				tr = append(tr, i)
			}
		}
		xtr, ytr := Rows(x, y, tr)
		xte, _ := Rows(x, y, te)
		for _, m := range members {
			fit, err := kpls.Fit(ctx, kpls.Data{X: xtr, Y: mat.NewVecDense(len(ytr), ytr)}, kpls.Options{Kernel: m.Kernel, DoF: kpls.DoFNone, Components: m.M}, nil)
			if err != nil {
				return 0, err
			}
			at := min(m.M, len(fit.Stats())-1)
			if fit, err = fit.At(at); err != nil {
				return 0, err
			}
			pr, err := fit.Predict(ctx, xte, kpls.PredictOptions{})
			if err != nil {
				return 0, err
			}
			for j, i := range te {
				oof[i] += pr.Yhat[j] / float64(len(members))
			}
		}
	}
	r := make([]float64, n)
	for i := range r {
		r[i] = math.Abs(y[i] - oof[i])
	}
	sort.Float64s(r)
	// The ⌈p(n+1)⌉-th smallest, split conformal's quantile.
	k := min(n, int(math.Ceil(p*float64(n+1)))) - 1
	return r[k], nil
}
