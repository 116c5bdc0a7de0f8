package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"text/tabwriter"

	"github.com/kpls-go/kpls/kpls"
)

// num is a float64 written to JSON as null when it is NaN or infinite
// (a DoF that could not be computed reliably, its criteria, gMDL = +Inf).
type num float64

func (v num) MarshalJSON() ([]byte, error) {
	f := float64(v)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, f, 'g', -1, 64), nil
}

// writeJSON writes v as one indented JSON document.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// nonNil makes an absent list an empty JSON array.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// componentJSON is one m of a fit (docs/design.md §6).
type componentJSON struct {
	M          int  `json:"m"`
	RSS        num  `json:"rss"`
	DoF        num  `json:"dof"`
	DoFClipped num  `json:"dof_clipped"`
	DoFSE      *num `json:"dof_se,omitempty"`
	Sigma      num  `json:"sigma"`
	AIC        num  `json:"aic"`
	BIC        num  `json:"bic"`
	GMDL       num  `json:"gmdl"`
	GCV        num  `json:"gcv"`
}

func componentsJSON(stats []kpls.Stats, method kpls.DoFMethod) []componentJSON {
	out := make([]componentJSON, len(stats))
	for i, s := range stats {
		c := componentJSON{M: s.M, RSS: num(s.RSS), DoF: num(s.DoF), DoFClipped: num(s.DoFClipped),
			Sigma: num(s.Sigma), AIC: num(s.AIC), BIC: num(s.BIC), GMDL: num(s.GMDL), GCV: num(s.GCV)}
		if method == kpls.DoFApprox {
			se := num(s.DoFSE)
			c.DoFSE = &se
		}
		out[i] = c
	}
	return out
}

// kernelJSON names the kernel with its parameters; the RBF width also as
// scikit-learn's gamma.
type kernelJSON struct {
	Name   string   `json:"name"`
	Width  *float64 `json:"width,omitempty"`
	Gamma  *float64 `json:"gamma,omitempty"`
	Degree *int     `json:"degree,omitempty"`
	Offset *float64 `json:"offset,omitempty"`
}

func kernelOf(k kpls.Kernel) kernelJSON {
	out := kernelJSON{Name: k.Name()}
	if w, ok := kpls.WidthOf(k); ok {
		out.Width = &w
		if k.Name() == "rbf" {
			g := 1 / (2 * w)
			out.Gamma = &g
		}
	}
	if p, ok := k.(kpls.Polynomial); ok {
		out.Degree, out.Offset = &p.Degree, &p.Offset
	}
	return out
}

func describeKernel(k kpls.Kernel) string {
	w, hasWidth := kpls.WidthOf(k)
	switch {
	case k.Name() == "rbf":
		return fmt.Sprintf("rbf, width %.6g (gamma %.6g)", w, 1/(2*w))
	case hasWidth:
		return fmt.Sprintf("%s, width %.6g", k.Name(), w)
	}
	if p, ok := k.(kpls.Polynomial); ok {
		return fmt.Sprintf("polynomial, degree %d, offset %.6g", p.Degree, p.Offset)
	}
	return k.Name()
}

// selectedJSON is the number of components a criterion picks.
type selectedJSON struct {
	Criterion kpls.Criterion `json:"criterion"`
	M         int            `json:"m"`
	// ByCriterion gives every criterion's choice.
	ByCriterion map[kpls.Criterion]int `json:"by_criterion"`
}

// selectedOf is the model's recorded choice, which predictions use.
func selectedOf(m *kpls.Model) selectedJSON {
	c := m.Chosen()
	return selectedJSON{Criterion: c.Criterion, M: c.M, ByCriterion: map[kpls.Criterion]int{
		kpls.GMDL: m.ComponentsBy(kpls.GMDL), kpls.AIC: m.ComponentsBy(kpls.AIC), kpls.BIC: m.ComponentsBy(kpls.BIC), kpls.GCV: m.ComponentsBy(kpls.GCV)}}
}

// f formats a number for the tables: "—" for an unknown value.
func f(v float64) string {
	switch {
	case math.IsNaN(v):
		return "—"
	case math.IsInf(v, 1):
		return "+Inf"
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}

// statsTable writes one row per m, marking the row mark.
func statsTable(w io.Writer, stats []kpls.Stats, mark int, withWidth bool, width float64) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	if withWidth {
		fmt.Fprint(tw, "width\t")
	}
	fmt.Fprint(tw, "m\tRSS\tDoF\tsigma\tAIC\tBIC\tgMDL\t\n")
	for _, s := range stats {
		if withWidth {
			fmt.Fprintf(tw, "%s\t", f(width))
		}
		star := ""
		if s.M == mark {
			star = " *"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", s.M, f(s.RSS), f(s.DoF), f(s.Sigma), f(s.AIC), f(s.BIC), f(s.GMDL), star)
	}
	tw.Flush()
}

func printWarnings(w io.Writer, warns []string) {
	if len(warns) == 0 {
		return
	}
	fmt.Fprintln(w, "warnings:")
	for _, s := range warns {
		fmt.Fprintln(w, "  "+s)
	}
}

// warnLines writes warnings one per line with the program's prefix, for
// stderr next to a JSON document that also holds them.
func warnLines(w io.Writer, warns []string) {
	for _, s := range warns {
		fmt.Fprintln(w, "kpls: warning: "+s)
	}
}
