package panel

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/cmd/cli"
	"github.com/kpls-go/kpls/kpls"
	"github.com/kpls-go/kpls/lab/allm"
)

// diagJSON is the document of `kpls-lab panel diag`: for each split, the
// default `kpls select` (k-fold CV) run with several fold seeds, and every
// cell of seed 0's grid with both its CV error and its held-out error.
type diagJSON struct {
	Data   string      `json:"data"`
	N      int         `json:"n"`
	D      int         `json:"d"`
	Seeds  int         `json:"seeds"`
	Splits []diagSplit `json:"splits"`
}

type diagSplit struct {
	Split  int        `json:"split"`
	NTrain int        `json:"n_train"`
	NTest  int        `json:"n_test"`
	Runs   []diagCell `json:"runs"` // the choice of each fold seed 0, 1, …
	Grid   []diagCell `json:"grid"` // seed 0's table, with each cell's held-out RMSE
}

// diagCell is one (kernel, width, m): its cross-validated RMSE, its RMSE on
// the split's test rows, and for a run the seed and the grid's widths.
type diagCell struct {
	Seed   *uint64   `json:"seed,omitempty"`
	Kernel string    `json:"kernel"`
	Width  float64   `json:"width"`
	M      int       `json:"m"`
	RMSECV cli.Num   `json:"rmsecv"`
	RMSE   cli.Num   `json:"rmse"`
	Widths []float64 `json:"widths,omitempty"`
}

// runDiag is `kpls-lab panel diag`.
func runDiag(ctx context.Context, e *cli.Env, args []string) error {
	fs := cli.NewFlagSet("panel diag", "--data F.csv --split-dir DIR [flags]",
		"Looks inside the default kpls select (5-fold CV) on a panel data set: on each split it runs\n"+
			"select with --seeds fold seeds (the folds' random assignment) and reports each run's choice\n"+
			"and its held-out RMSE, then fits every (kernel, width) of seed 0's grid to the training rows\n"+
			"and reports, for every m select scored, both the CV RMSE and the RMSE on the test rows. One\n"+
			"JSON document on stdout; lab/panel/diag.py summarises it.")
	var data, splitDir string
	var seeds int
	fs.StringVar(&data, "data", "", "panel data `file` (CSV, header, target y last; required)")
	fs.StringVar(&splitDir, "split-dir", "", "`directory` of split-K.train and split-K.test (required)")
	fs.IntVar(&seeds, "seeds", 5, "fold seeds per split (0, 1, …)")
	if err := fs.Parse(e, args); err != nil {
		return err
	}
	switch {
	case data == "" || splitDir == "":
		return cli.Usagef("--data and --split-dir are required")
	case seeds < 1:
		return cli.Usagef("--seeds %d: need at least 1", seeds)
	}
	head, rows, err := readCSV(data)
	if err != nil {
		return err
	}
	if head[len(head)-1] != "y" {
		return fmt.Errorf("%s: last column is %q, want the target y", data, head[len(head)-1])
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
	doc := diagJSON{Data: data, N: n, D: d, Seeds: seeds}
	for k := 0; ; k++ {
		tr, err := ReadIndices(filepath.Join(splitDir, fmt.Sprintf("split-%d.train", k)), n)
		if os.IsNotExist(err) && k > 0 {
			break
		}
		if err != nil {
			return err
		}
		te, err := ReadIndices(filepath.Join(splitDir, fmt.Sprintf("split-%d.test", k)), n)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.Stderr, "%s panel diag: %s split %d\n", e.Prog, filepath.Base(data), k)
		sp, err := diagSplitRun(ctx, k, seeds, x, y, tr, te)
		if err != nil {
			return fmt.Errorf("%s split %d: %w", data, k, err)
		}
		doc.Splits = append(doc.Splits, sp)
	}
	return cli.WriteJSON(e.Stdout, doc)
}

func diagSplitRun(ctx context.Context, k, seeds int, x *mat.Dense, y []float64, tr, te []int) (diagSplit, error) {
	xtr, ytr := Rows(x, y, tr)
	xte, yte := Rows(x, y, te)
	sp := diagSplit{Split: k, NTrain: len(tr), NTest: len(te)}
	var first *kpls.Selection
	for s := range uint64(seeds) {
		so := kpls.SelectOptions{By: kpls.CrossValidation{AverageBy: kpls.AverageNone}}
		so.Seed = s
		sel, err := kpls.Select(ctx, kpls.Data{X: xtr, Y: mat.NewVecDense(len(ytr), ytr)}, so, nil)
		if err != nil {
			return sp, err
		}
		pred, err := sel.Model.Predict(ctx, xte, kpls.PredictOptions{})
		if err != nil {
			return sp, err
		}
		var widths []float64
		for _, c := range sel.Choices {
			if w, ok := kpls.WidthOf(c.Kernel); ok {
				widths = append(widths, w)
			}
		}
		sp.Runs = append(sp.Runs, diagCell{Seed: &s, Kernel: sel.Best.Kernel.Name(), Width: sel.Best.Width(), M: sel.Best.M,
			RMSECV: cli.Num(sel.Best.RMSECV), RMSE: cli.Num(RMSE(pred.Yhat, yte)), Widths: widths})
		if s == 0 {
			first = sel
		}
	}
	// Every grid point of seed 0, fitted to all training rows up to the
	// largest m select scored there.
	type point struct {
		k    kpls.Kernel
		maxM int
	}
	var pts []point
	for _, r := range first.Table {
		if len(pts) > 0 && pts[len(pts)-1].k == r.Kernel {
			pts[len(pts)-1].maxM = max(pts[len(pts)-1].maxM, r.M)
			continue
		}
		pts = append(pts, point{r.Kernel, r.M})
	}
	test := map[kpls.Kernel][]float64{}
	for _, p := range pts {
		o := kpls.Options{Kernel: p.k, DoF: kpls.DoFNone, Components: p.maxM}
		m, err := kpls.Fit(ctx, kpls.Data{X: xtr, Y: mat.NewVecDense(len(ytr), ytr)}, o, nil)
		if err != nil {
			return sp, err
		}
		pe, err := allm.Predict(ctx, m, xte)
		if err != nil {
			return sp, err
		}
		for c := range len(m.Stats()) {
			test[p.k] = append(test[p.k], RMSE(mat.Col(nil, c, pe), yte))
		}
	}
	for _, r := range first.Table {
		e := math.NaN()
		if t := test[r.Kernel]; r.M < len(t) {
			e = t[r.M]
		}
		sp.Grid = append(sp.Grid, diagCell{Kernel: r.Kernel.Name(), Width: r.Width(), M: r.M,
			RMSECV: cli.Num(r.RMSECV), RMSE: cli.Num(e)})
	}
	return sp, nil
}
