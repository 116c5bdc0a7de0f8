package relevance

import (
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/kpls-go/kpls/lab/panel"
)

// kept returns the variant cross-validation picks among the named ones
// (the lowest CV error of the predictor; the first on ties).
func kept(r Record, names ...string) (Variant, bool) {
	var best Variant
	found := false
	for _, want := range names {
		for _, v := range r.Variants {
			if v.Name == want && (!found || v.CV < best.CV) {
				best, found = v, true
			}
		}
	}
	return best, found
}

// nestedKept is gop when the nested CV (scales learned within each fold)
// scores it below iso, else iso.
func nestedKept(r Record) (Variant, bool) {
	ni, ok1 := kept(r, "nested-iso")
	ng, ok2 := kept(r, "nested-gop")
	if !ok1 || !ok2 {
		return Variant{}, false
	}
	if ng.CV < ni.CV {
		return kept(r, "gop")
	}
	return kept(r, "iso")
}

// column is one column of the table: a variant, or a rule of keeping.
type column struct {
	name string
	pick func(Record) (Variant, bool)
}

func columns() []column {
	one := func(n string) func(Record) (Variant, bool) {
		return func(r Record) (Variant, bool) { return kept(r, n) }
	}
	return []column{
		{"iso", one("iso")},
		{"gop-kept", func(r Record) (Variant, bool) { return kept(r, "iso", "gop") }},
		{"gop", one("gop")},
		{"gop-sqrt", one("gop-sqrt")},
		{"gop2", one("gop2")},
		{"cv-best", func(r Record) (Variant, bool) { return kept(r, "iso", "gop", "gop-sqrt", "gop2") }},
		{"kta", one("kta")},
		{"ard-scales", one("ard")},
		{"ard-kept", func(r Record) (Variant, bool) {
			if _, ok := kept(r, "ard"); !ok {
				return Variant{}, false
			}
			return kept(r, "iso", "ard")
		}},
		{"gop-nested", nestedKept},
	}
}

// summary prints, per set, the median held-out RMSE of each column, then
// the ratios to iso (median and worst split) and how often CV kept a
// scaled selection.
func summary(w io.Writer, in, ardPath string, only []string) error {
	recs, err := readRecords(in)
	if err != nil {
		return err
	}
	ard, err := readARD(ardPath)
	if err != nil {
		return err
	}
	var sets []string
	bySet := map[string][]Record{}
	for _, r := range recs {
		if only != nil && !slices.Contains(only, r.Set) {
			continue
		}
		if _, ok := bySet[r.Set]; !ok {
			sets = append(sets, r.Set)
		}
		bySet[r.Set] = append(bySet[r.Set], r)
	}
	cols := columns()
	fmt.Fprintln(w, "Median held-out RMSE over the splits:")
	fmt.Fprintln(w)
	fmt.Fprint(w, "| set | n_train×d | splits |")
	for _, c := range cols {
		fmt.Fprintf(w, " %s |", c.name)
	}
	fmt.Fprintln(w, " ARD GP itself |")
	fmt.Fprint(w, "|---|---|---|")
	for range cols {
		fmt.Fprint(w, "---|")
	}
	fmt.Fprintln(w, "---|")
	ratios := map[string]map[string][]float64{} // set → column → per split ratio to iso
	for _, s := range sets {
		rs := bySet[s]
		fmt.Fprintf(w, "| %s | %d×%d | %d |", s, rs[0].NTrain, rs[0].D, len(rs))
		ratios[s] = map[string][]float64{}
		for _, c := range cols {
			var v []float64
			for _, r := range rs {
				if x, ok := c.pick(r); ok {
					v = append(v, x.RMSE)
					if iso, ok := kept(r, "iso"); ok {
						ratios[s][c.name] = append(ratios[s][c.name], x.RMSE/iso.RMSE)
					}
				}
			}
			fmt.Fprintf(w, " %s |", cell(panel.Median(v)))
		}
		var g []float64
		for _, r := range rs {
			if a, ok := ard[fmt.Sprintf("%s/%d", r.Set, r.Split)]; ok {
				g = append(g, a.RMSE)
				ratios[s]["ARD GP"] = append(ratios[s]["ARD GP"], a.RMSE/mustIso(r))
			}
		}
		fmt.Fprintf(w, " %s |\n", cell(panel.Median(g)))
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Ratio to iso, per split: median (worst); kept: splits where CV chose a scaled selection:")
	fmt.Fprintln(w)
	rc := []string{"gop-kept", "gop-nested", "gop", "gop-sqrt", "gop2", "cv-best", "kta", "ard-scales", "ard-kept", "ARD GP"}
	fmt.Fprint(w, "| set |")
	for _, c := range rc {
		fmt.Fprintf(w, " %s |", c)
	}
	fmt.Fprintln(w, " gop kept | nested kept | cv-best kept | ard kept |")
	fmt.Fprint(w, "|---|")
	for range rc {
		fmt.Fprint(w, "---|")
	}
	fmt.Fprintln(w, "---|---|---|---|")
	logs := map[string][]float64{}
	for _, s := range sets {
		fmt.Fprintf(w, "| %s |", s)
		for _, c := range rc {
			v := ratios[s][c]
			if len(v) == 0 {
				fmt.Fprint(w, " |")
				continue
			}
			m := panel.Median(v)
			logs[c] = append(logs[c], math.Log(m))
			fmt.Fprintf(w, " %.3f (%.3f) |", m, slices.Max(v))
		}
		var gk, nk, nn, ck, ak, na int
		for _, r := range bySet[s] {
			if v, _ := kept(r, "iso", "gop"); v.Name != "iso" {
				gk++
			}
			if v, ok := nestedKept(r); ok {
				nn++
				if v.Name != "iso" {
					nk++
				}
			}
			if v, _ := kept(r, "iso", "gop", "gop-sqrt", "gop2"); v.Name != "iso" {
				ck++
			}
			if _, ok := kept(r, "ard"); ok {
				na++
				if v, _ := kept(r, "iso", "ard"); v.Name != "iso" {
					ak++
				}
			}
		}
		fmt.Fprintf(w, " %d/%d | %d/%d | %d/%d | %d/%d |\n", gk, len(bySet[s]), nk, nn, ck, len(bySet[s]), ak, na)
	}
	fmt.Fprint(w, "| geometric mean of the medians |")
	for _, c := range rc {
		var sum float64
		for _, l := range logs[c] {
			sum += l
		}
		fmt.Fprintf(w, " %.3f |", math.Exp(sum/float64(len(logs[c]))))
	}
	fmt.Fprintln(w, " | | | |")
	return nil
}

func mustIso(r Record) float64 {
	if v, ok := kept(r, "iso"); ok {
		return v.RMSE
	}
	return math.NaN()
}

func cell(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return fmt.Sprintf("%.4g", v)
}
