package kpls

import (
	"encoding/json"
	"math"
)

// jsonNum is a float64 that JSON holds as null where it is NaN or
// infinite, which encoding/json refuses: an unknown DoF is NaN in Go and
// null in JSON (docs/design.md §6).
type jsonNum float64

func (v jsonNum) MarshalJSON() ([]byte, error) {
	f := float64(v)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return json.Marshal(f)
}

func (v *jsonNum) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*v = jsonNum(math.NaN())
		return nil
	}
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	*v = jsonNum(f)
	return nil
}

// statsJSON is Stats as JSON holds it.
type statsJSON struct {
	M          int     `json:"m"`
	RSS        jsonNum `json:"rss"`
	DoF        jsonNum `json:"dof"`
	DoFSE      jsonNum `json:"dof_se"`
	DoFClipped jsonNum `json:"dof_clipped"`
	Sigma      jsonNum `json:"sigma"`
	AIC        jsonNum `json:"aic"`
	BIC        jsonNum `json:"bic"`
	GMDL       jsonNum `json:"gmdl"`
	GCV        jsonNum `json:"gcv"`
	YhatSq     jsonNum `json:"yhat_sq"`
}

func (s Stats) json() statsJSON {
	return statsJSON{s.M, jsonNum(s.RSS), jsonNum(s.DoF), jsonNum(s.DoFSE), jsonNum(s.DoFClipped), jsonNum(s.Sigma),
		jsonNum(s.AIC), jsonNum(s.BIC), jsonNum(s.GMDL), jsonNum(s.GCV), jsonNum(s.YhatSq)}
}

func (j statsJSON) stats() Stats {
	return Stats{j.M, float64(j.RSS), float64(j.DoF), float64(j.DoFSE), float64(j.DoFClipped), float64(j.Sigma),
		float64(j.AIC), float64(j.BIC), float64(j.GMDL), float64(j.GCV), float64(j.YhatSq)}
}

// MarshalJSON writes the statistics with null for what is unknown (NaN).
func (s Stats) MarshalJSON() ([]byte, error) { return json.Marshal(s.json()) }

// UnmarshalJSON reads what MarshalJSON writes, null as NaN.
func (s *Stats) UnmarshalJSON(b []byte) error {
	var j statsJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*s = j.stats()
	return nil
}
