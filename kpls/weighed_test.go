package kpls

import (
	"context"
	"math"
	"reflect"
	"testing"

	"gonum.org/v1/gonum/mat"
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
