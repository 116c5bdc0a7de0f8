package main

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"runtime"
	"sync"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/kpls"
)

// TimeShare is the share of Timeout an admitted request may be estimated
// to need: the rest is headroom for a loaded machine (the cost model is
// measured once, at start-up) and for the wait for a work slot.
const TimeShare = 0.5

// bandBlock is the block of points a band request is priced by: a
// request of up to bandBlock points costs one block's m products with the
// kernel matrix, whatever its size (the library's blocks hold up to 128
// points on the Ritz path and fewer on the reverse path, so 32 errs on
// the side of refusing).
const bandBlock = 32

// defaultMaxDecodes is the number of bodies read at once when
// Server.MaxDecodes is 0: two per core, so that a slow client does not
// hold up the others, and few enough that their memory stays bounded.
func defaultMaxDecodes() int { return 2 * runtime.GOMAXPROCS(0) }

// admission holds the server's decode slots and its cost model.
type admission struct {
	once    sync.Once
	decodes chan struct{}
	// plain and band are seconds per unit of work, measured by
	// Calibrate; 0 until then (no limit from the cost model). A plain
	// unit is one kernel evaluation's share, point × n × (d + 1); a band
	// unit is bandBlock points × n × m: the library's bands pass a block
	// of points through m products with the n×n kernel matrix, and a
	// block of one point costs about what a full block costs.
	plain, band float64
}

// admission returns s's admission state, making its decode slots on
// first use (MaxDecodes is read then).
func (s *Server) admission() *admission {
	s.adm.once.Do(func() {
		n := s.MaxDecodes
		if n <= 0 {
			n = defaultMaxDecodes()
		}
		s.adm.decodes = make(chan struct{}, n)
	})
	return &s.adm
}

// Calibrate measures the cost model: the time of a plain prediction of
// 256 points and, with bands, of a band request of one block (bandBlock
// points, after one that builds the kernel matrix and the scores at the
// default m). Call it before serving; main does so at start-up. Without it only MaxPoints and
// BandBudget bound the work of a request.
func (s *Server) Calibrate(ctx context.Context, bands bool) error {
	a := s.admission()
	p, first := s.predictors[0], s.first
	n, d := float64(first.N), float64(first.D)
	members, comps := float64(len(first.Members)), 0.0
	for _, m := range first.Members {
		comps += float64(max(m.M, 1))
	}
	const plainPoints = 256
	x := mat.NewDense(plainPoints, first.D, nil)
	best := time.Duration(math.MaxInt64)
	for range 3 {
		t0 := time.Now()
		if _, err := p.Predict(ctx, x, kpls.PredictOptions{}); err != nil {
			return fmt.Errorf("calibrating plain predictions: %w", err)
		}
		best = min(best, time.Since(t0))
	}
	a.plain = best.Seconds() / (plainPoints * n * (d + 1) * members)
	if !bands {
		return nil
	}
	band := kpls.PredictOptions{Uncertainty: kpls.ConfidenceBand}
	if _, err := p.Predict(ctx, mat.NewDense(1, first.D, nil), band); err != nil {
		return fmt.Errorf("calibrating bands: %w", err)
	}
	t0 := time.Now()
	if _, err := p.Predict(ctx, mat.NewDense(bandBlock, first.D, nil), band); err != nil {
		return fmt.Errorf("calibrating bands: %w", err)
	}
	a.band = time.Since(t0).Seconds() / (n * comps)
	return nil
}

// CostModel returns the seconds per unit of work Calibrate measured
// (plain: point × n × (d + 1); bands: point × n × m), 0 when unmeasured.
func (s *Server) CostModel() (plain, band float64) {
	a := s.admission()
	return a.plain, a.band
}

// estimate is the time the request is expected to compute for with the
// predictors ps: plain predictions (with leverage or outside, m more
// multiply–adds per kernel row) for every target and member, and the
// bands.
func (s *Server) estimate(req *predictRequest, points int, ps []kpls.Predictor) time.Duration {
	a := s.admission()
	n, d, p := float64(s.first.N), float64(s.first.D), float64(points)
	plain := 0.0 // per point and row of the training data
	band := 0.0
	for _, pr := range ps {
		for _, m := range pr.Summary().Members {
			if req.Level == nil || req.Leverage || req.Outside {
				plain += d + 1
			}
			if req.Leverage || req.Outside {
				plain += float64(m.M)
			}
			if req.Level != nil {
				band += float64(max(m.M, 1))
			}
		}
	}
	blocks := math.Ceil(p / bandBlock)
	sec := p*n*plain*a.plain + blocks*n*band*a.band
	return time.Duration(sec * float64(time.Second))
}

// admit prices the request, refusing it at once (413) when it could not
// finish within TimeShare of the timeout, then waits for a work slot
// within ctx, refusing it (503) when what is left of the deadline no
// longer covers the estimate. done releases the slot.
func (s *Server) admit(ctx context.Context, req *predictRequest, points int, ps []kpls.Predictor) (done func(), status int, err error) {
	est := s.estimate(req, points, ps)
	if limit := time.Duration(TimeShare * float64(s.Timeout)); est > limit {
		most := int(float64(points) * float64(limit) / float64(est))
		if one := s.estimate(req, 1, ps); one > limit {
			return nil, http.StatusRequestEntityTooLarge, fmt.Errorf(
				"even one point would take about %v at the speed measured at start-up, over %v (%.0f %% of the %v timeout): ask without a level, or run the service with a longer -timeout",
				one.Round(time.Millisecond), limit, 100*TimeShare, s.Timeout)
		}
		return nil, http.StatusRequestEntityTooLarge, fmt.Errorf(
			"%d points would take about %v at the speed measured at start-up, over %v (%.0f %% of the %v timeout): send at most %d points per request",
			points, est.Round(time.Millisecond), limit, 100*TimeShare, s.Timeout, max(most, 1))
	}
	select {
	case s.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, http.StatusServiceUnavailable, fmt.Errorf("busy: no work slot within %v", s.Timeout)
	}
	if dl, ok := ctx.Deadline(); ok && est > 0 && time.Until(dl) < est {
		<-s.slots
		return nil, http.StatusServiceUnavailable, fmt.Errorf("busy: %v of the %v timeout left after waiting for a work slot, the request needs about %v",
			time.Until(dl).Round(time.Millisecond), s.Timeout, est.Round(time.Millisecond))
	}
	return func() { <-s.slots }, http.StatusOK, nil
}
