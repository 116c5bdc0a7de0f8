package kpls

import (
	"fmt"
	"math"
	"strings"
)

// Stats describes the fit with m components.
type Stats struct {
	M int `json:"m"`
	// RSS is the residual sum of squares on the training data.
	RSS float64 `json:"rss"`
	// DoF is the degrees of freedom including the intercept's +1,
	// unclipped; NaN when it could not be computed reliably.
	DoF float64 `json:"dof"`
	// DoFSE is the standard error of a stochastic DoF estimate (DoFApprox);
	// zero for deterministic methods.
	DoFSE float64 `json:"dof_se"`
	// DoFClipped is DoF clipped to [1, n−1] (a linear kernel: [1, min(n−1, p+1)]);
	// it feeds Sigma and the criteria.
	DoFClipped float64 `json:"dof_clipped"`
	// Sigma is σ̂ = √(RSS/(n − DoFClipped)).
	Sigma float64 `json:"sigma"`
	AIC   float64 `json:"aic"`
	BIC   float64 `json:"bic"`
	GMDL  float64 `json:"gmdl"`
	// GCV is n·RSS/(n − DoFClipped)².
	GCV float64 `json:"gcv"`
	// YhatSq is the uncentred squared norm of the fitted values.
	YhatSq float64 `json:"yhat_sq"`
}

// Score returns the value of criterion c.
func (s Stats) Score(c Criterion) float64 {
	switch c {
	case AIC:
		return s.AIC
	case BIC:
		return s.BIC
	case GCV:
		return s.GCV
	case GMDL:
		return s.GMDL
	}
	return math.NaN()
}

// ParseCriterion accepts cv, gcv, gmdl, aic or bic (any case). Empty
// stays empty: an empty criterion means the default of whatever takes it
// (see Criterion).
func parseCriterion(s string) (Criterion, error) {
	c := Criterion(strings.ToLower(s))
	switch c {
	case GMDL, AIC, BIC, GCV, CV, "":
		return c, nil
	}
	return "", fmt.Errorf("%w: unknown criterion %q (want cv, gcv, gmdl, aic or bic)", ErrBadOption, s)
}

// fillCriteria computes DoFClipped, σ̂ and the criteria from RSS, DoF and
// YhatSq (docs/design.md §4). An unknown DoF (NaN) leaves them NaN.
func fillCriteria(s *Stats, nf, dofMax float64) {
	if math.IsNaN(s.DoF) {
		s.DoFClipped, s.Sigma, s.AIC, s.BIC, s.GMDL, s.GCV = math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN()
		return
	}
	dof := math.Min(math.Max(s.DoF, 1), dofMax)
	s.DoFClipped = dof
	s2 := s.RSS / (nf - dof)
	s.Sigma = math.Sqrt(s2)
	s.AIC = s.RSS/nf + 2*(dof/nf)*s2
	s.BIC = s.RSS/nf + math.Log(nf)*(dof/nf)*s2
	s.GCV = nf * s.RSS / ((nf - dof) * (nf - dof))
	f := s.YhatSq / (dof * s2)
	if f == 0 {
		s.GMDL = math.Inf(1)
	} else {
		s.GMDL = nf/2*math.Log(s2) + dof/2*math.Log(f) + 0.5*math.Log(nf)
	}
}

// FirstLocalMin returns the first index i with score[i] ≤ score[i+1], or
// the last index if the scores keep falling. Scores past the first NaN are
// not considered; it returns -1 if score[0] is NaN or scores is empty.
func firstLocalMin(score []float64) int {
	last := -1
	for i, v := range score {
		if math.IsNaN(v) {
			break
		}
		last = i
	}
	for i := 0; i < last; i++ {
		if score[i] <= score[i+1] {
			return i
		}
	}
	return last
}

// UnmarshalText sets c from a criterion's name in any case ("" is the
// default): flag.TextVar and encoding/json use it.
func (c *Criterion) UnmarshalText(b []byte) error {
	v, err := parseCriterion(string(b))
	if err == nil {
		*c = v
	}
	return err
}
