package kpls

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/internal/stacking"
)

// TestSmallSetLearnsRelevance: below a screen's rows, the default search
// learns feature weights with a Gaussian process and searches the grid
// again with them. Each search's best equals a search of its own on
// features the test standardised and weighed itself; the weighed one wins
// here (three of five features are noise) and predicts fresh rows better.
func TestSmallSetLearnsRelevance(t *testing.T) {
	ctx := context.Background()
	x, y := relevanceData(300, 5, 11)
	xt, yt := relevanceData(2000, 5, 12)
	var reports []Progress
	sel, err := Select(ctx, Data{X: x, Y: vec(y)}, SelectOptions{}, &Resources{Progress: func(p Progress) {
		if p.Stage == StageSelect {
			reports = append(reports, p)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	// Progress counts the points of both searches.
	for i, p := range reports {
		if i > 0 && p.Done < reports[i-1].Done || p.Done >= p.Total {
			t.Fatalf("progress report %d: %d of %d after %d", i, p.Done, p.Total, reports[max(0, i-1)].Done)
		}
	}
	if last := reports[len(reports)-1]; 2*last.Done < last.Total {
		t.Errorf("the last progress report is %d of %d: want the weighed search in the second half", last.Done, last.Total)
	}
	ws := sel.Weighed
	if ws == nil || len(ws.Relevance) != 5 || ws.Rows != 300 {
		t.Fatalf("weighed search %+v: want five weights learned on 300 rows", ws)
	}
	w := ws.Relevance
	t.Logf("weights %.3f; best unweighed %s RMSECV %.4f, weighed %s RMSECV %.4f", w, ws.Unweighed.label(), ws.Unweighed.RMSECV, ws.Weighed.label(), ws.Weighed.RMSECV)
	for j := 2; j < 5; j++ {
		if !(w[j] < min(w[0], w[1])/3) {
			t.Errorf("noise feature %d has weight %.3f against %.3f and %.3f for the true ones", j, w[j], w[0], w[1])
		}
	}
	alone := func(d Data, raw bool) *Selection {
		s, err := Select(ctx, d, SelectOptions{Isotropic: true, RawFeatures: raw}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	iso, weighed := alone(Data{X: x, Y: vec(y)}, false), alone(Data{X: standardisedTimes(x, x, w), Y: vec(y)}, true)
	for _, c := range []struct {
		got  SelectionRow
		want *Selection
	}{{ws.Unweighed, iso}, {ws.Weighed, weighed}} {
		b := c.want.Best
		if c.got.M != b.M || c.got.Width() != b.Width() || math.Abs(c.got.RMSECV-b.RMSECV) > 1e-9*b.RMSECV {
			t.Errorf("best %s m = %d RMSECV %.12g; searched alone: %s m = %d RMSECV %.12g", c.got.label(), c.got.M, c.got.RMSECV, b.label(), b.M, b.RMSECV)
		}
	}
	if !ws.Chosen || !sel.Best.Scaled || ws.Chosen != (ws.Weighed.RMSECV < ws.Unweighed.RMSECV) {
		t.Fatalf("chosen %v, best %s: want the weighed search (RMSECV %.4f against %.4f)", ws.Chosen, sel.Best.label(), ws.Weighed.RMSECV, ws.Unweighed.RMSECV)
	}
	if got := sel.Model.Options().Relevance; !reflect.DeepEqual(got, w) {
		t.Errorf("the chosen model weighs by %v, the search learned %v", got, w)
	}
	if len(sel.Table) != len(iso.Table)+len(weighed.Table) || len(sel.Choices) != len(iso.Choices)+len(weighed.Choices) {
		t.Errorf("table %d rows, choices %d: want both searches' (%d + %d, %d + %d)", len(sel.Table), len(sel.Choices), len(iso.Table), len(weighed.Table), len(iso.Choices), len(weighed.Choices))
	}
	// The weighed predictor against the isotropic one on fresh rows, and
	// against the weighed search's own predictor on the test's features.
	rmse := func(p Predictor, x *mat.Dense) float64 {
		out, err := p.Predict(ctx, x, PredictOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var ss float64
		for i, v := range out.Yhat {
			ss += (v - yt[i]) * (v - yt[i])
		}
		return math.Sqrt(ss / float64(len(yt)))
	}
	got, isoRMSE, want := rmse(sel.Predictor, xt), rmse(iso.Predictor, xt), rmse(weighed.Predictor, standardisedTimes(x, xt, w))
	t.Logf("held-out RMSE %.4f weighed, %.4f isotropic (noise sd 0.1)", got, isoRMSE)
	if math.Abs(got-want) > 1e-9*want {
		t.Errorf("held-out RMSE %.12g; the weighed search alone on the test's features %.12g", got, want)
	}
	if !(got < 0.8*isoRMSE) {
		t.Errorf("held-out RMSE %.4f weighed, %.4f isotropic: want the weights to pay", got, isoRMSE)
	}
	// Saved and loaded, the predictor keeps its weights.
	var buf bytes.Buffer
	if err := Save(&buf, sel.Predictor); err != nil {
		t.Fatal(err)
	}
	ps, err := Load(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if after := rmse(ps[0], xt); after != got {
		t.Errorf("held-out RMSE %.12g after a save and load, %.12g before", after, got)
	}
}

// TestSmallSetRelevanceWhen: the weights are learned on at most ardRows
// rows, and not where they are turned off or cannot be.
func TestSmallSetRelevanceWhen(t *testing.T) {
	ctx := context.Background()
	x, y := relevanceData(300, 3, 13)
	defer func(r int) { ardRows = r }(ardRows)
	ardRows = 120
	sel, err := Select(ctx, Data{X: x, Y: vec(y)}, SelectOptions{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sel.Weighed == nil || sel.Weighed.Rows != 120 {
		t.Fatalf("weighed search %+v: want weights learned on a sample of 120 rows", sel.Weighed)
	}
	y2 := mat.NewDense(300, 2, nil)
	for i := range 300 {
		y2.Set(i, 0, y[i])
		y2.Set(i, 1, -y[i]+x.At(i, 2))
	}
	small, _ := relevanceData(40, 3, 14)
	for name, run := range map[string]func() (*Selection, error){
		"Isotropic": func() (*Selection, error) {
			return Select(ctx, Data{X: x, Y: vec(y)}, SelectOptions{Isotropic: true}, nil)
		},
		"GMDL": func() (*Selection, error) {
			return Select(ctx, Data{X: x, Y: vec(y)}, SelectOptions{By: GMDL}, nil)
		},
		"no RBF": func() (*Selection, error) {
			return Select(ctx, Data{X: x, Y: vec(y)}, SelectOptions{Kernels: []Kernel{Laplacian{}}}, nil)
		},
		"RawFeatures": func() (*Selection, error) {
			return Select(ctx, Data{X: x, Y: vec(y)}, SelectOptions{RawFeatures: true}, nil)
		},
		"row weights": func() (*Selection, error) {
			w := make([]float64, 300)
			for i := range w {
				w[i] = float64(1 + i%3)
			}
			return Select(ctx, Data{X: x, Y: vec(y), Weights: w}, SelectOptions{}, nil)
		},
		"257 features": func() (*Selection, error) {
			wide, wy := relevanceData(60, 257, 17)
			return Select(ctx, Data{X: wide, Y: vec(wy)}, SelectOptions{}, nil)
		},
		"40 rows": func() (*Selection, error) {
			return Select(ctx, Data{X: small, Y: vec(y[:40])}, SelectOptions{}, nil)
		},
		"two targets": func() (*Selection, error) {
			sels, err := SelectTargets(ctx, Data{X: x, Y: y2}, SelectOptions{}, nil)
			if err != nil {
				return nil, err
			}
			return sels[0], nil
		},
	} {
		s, err := run()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if s.Weighed != nil || s.Best.Scaled {
			t.Errorf("%s: weighed search %+v, best %s: want none", name, s.Weighed, s.Best.label())
		}
	}
}

// TestSmallSetRelevanceFails: a target constant on the rows the Gaussian
// process learns from (a seeded sample of ardRows) cannot give weights;
// the selection is the unweighed search with a relevance warning.
func TestSmallSetRelevanceFails(t *testing.T) {
	defer func(r int) { ardRows = r }(ardRows)
	ardRows = 60
	const n, seed = 300, 7
	x, y := relevanceData(n, 3, 15)
	for _, i := range rand.New(rand.NewPCG(seed, 0xa5d)).Perm(n)[:ardRows] {
		y[i] = 0
	}
	sel, err := Select(context.Background(), Data{X: x, Y: vec(y)}, SelectOptions{Seed: seed}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var warned bool
	for _, w := range sel.Warnings {
		warned = warned || w.Code == WarnRelevance
	}
	if sel.Weighed != nil || sel.Best.Scaled || !warned {
		t.Errorf("weighed %+v, best %s, warnings %v: want the unweighed search and a relevance warning", sel.Weighed, sel.Best.label(), sel.Warnings)
	}
}

// TestSmallSetRelevanceBudget: the weighed search counts its passes on
// from the unweighed one's against the selection's one budget, and a
// budget it spends is named as the budget asked for.
func TestSmallSetRelevanceBudget(t *testing.T) {
	ctx := context.Background()
	x, y := relevanceData(300, 4, 16)
	iso, err := Select(ctx, Data{X: x, Y: vec(y)}, SelectOptions{Isotropic: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	budget := iso.Passes + 20 // the final fits' passes included: the weighed search gets fewer
	sel, err := Select(ctx, Data{X: x, Y: vec(y)}, SelectOptions{MaxPasses: budget}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sel.Weighed == nil {
		t.Fatal("no weighed search")
	}
	spent := false
	for _, w := range sel.Warnings {
		if w.Code == WarnBudget {
			spent = true
			if !strings.Contains(w.Message, fmt.Sprintf("budget of %d passes", budget)) {
				t.Errorf("budget warning %q: want the budget of %d passes asked for", w.Message, budget)
			}
		}
	}
	if !spent {
		t.Errorf("no budget warning with %d passes, %d spent", budget, sel.Passes)
	}
}

// TestSmallSetMeanMixesSearches: the stacked mean of a small set's
// selection weighs the grid points of both searches, unweighed and
// weighed, on their shared folds. Its members and weights must be those
// of stacking the candidates' out-of-fold predictions computed by hand,
// each on its own features (standardised, or standardised and weighed
// by the learned weights), and it must predict the equal mean of plain
// fits at its members.
func TestSmallSetMeanMixesSearches(t *testing.T) {
	ctx := context.Background()
	x, y := gaussData(120, 3, 5) // every feature matters
	z, _ := gaussData(15, 3, 23)
	sel, err := Select(ctx, Data{X: x, Y: vec(y)}, SelectOptions{Seed: 6, Widths: []float64{0.5, 1.5, 4, 12}, MaxComponents: 8, By: CrossValidation{AverageWithin: 0.25}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ws := sel.Weighed
	if ws == nil {
		t.Fatal("no weights learned")
	}
	// Each point's features: standardised, and weighed if it is scaled.
	weightsOf := func(c SelectionRow) []float64 {
		if c.Scaled {
			return ws.Relevance
		}
		return []float64{1, 1, 1}
	}
	featuresOf := func(c SelectionRow) *mat.Dense { return standardisedTimes(x, x, weightsOf(c)) }
	same := func(a, b SelectionRow) bool { return a.Kernel == b.Kernel && a.Scaled == b.Scaled }
	cands := []SelectionRow{sel.Best}
	for _, c := range sel.Choices {
		if !same(c, sel.Best) && c.RMSECV <= 1.25*sel.Best.RMSECV {
			cands = append(cands, c)
		}
	}
	oof := oofByHand(t, featuresOf, y, cands, 6)
	w, err := stacking.Weights(oof, y)
	if err != nil {
		t.Fatal(err)
	}
	var want []int
	scaled := 0
	for j := range cands {
		if j == 0 || w[j] >= 0.005 {
			want = append(want, j)
			if cands[j].Scaled {
				scaled++
			}
		}
	}
	t.Logf("candidates %d, members by hand %d (%d weighed), weights %.3f", len(cands), len(want), scaled, w)
	if scaled == 0 || scaled == len(want) {
		t.Fatalf("members by hand: %d of %d weighed; the test needs both searches' points in the mean", scaled, len(want))
	}
	checkMeanByHand(t, sel, cands, want, w, oof, y, z, func(c SelectionRow) ([]float64, error) {
		plain, err := Fit(ctx, Data{X: featuresOf(c), Y: vec(y)}, Options{Kernel: c.Kernel, Components: max(c.M, 1), DoF: DoFNone, RawFeatures: true}, nil)
		if err != nil {
			return nil, err
		}
		return plain.predictAt(ctx, standardisedTimes(x, z, weightsOf(c)), c.M)
	})
}
