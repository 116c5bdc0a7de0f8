package scale

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"
)

// Bounds of the checks.
const (
	rssBound = 8 << 30 // bytes of peak RSS allowed the protein and 100k runs
	timeExp  = 2.1     // protein/kin8nm time may be at most (n_protein/n_kin8nm)^timeExp
	// #23's targets for the default select on protein's 80/20 split.
	proteinHeldoutBound = 3.55             // held-out RMSE, Å
	proteinTimeBound    = 10 * time.Minute // the select's wall time
)

// meta describes the machine and build the runs were made on.
type meta struct {
	Date, Commit, Version string
	GOMAXPROCS            int
}

// result is one child run.
type result struct {
	Name    string
	Args    []string
	Predict []string // the predict run's arguments, with Heldout
	Wall    time.Duration
	MaxRSS  int64 // bytes
	Doc     runDoc
	Heldout *heldout // runs followed by predict on held-out rows
}

// heldout is what `kpls predict` reported on the held-out rows.
type heldout struct {
	RMSE float64
	Rows int
	Wall time.Duration
}

// runDoc is what the report reads of `kpls select --json` and `kpls fit
// --json` (selectJSON and fitJSON in cmd/kpls).
type runDoc struct {
	N       int        `json:"n"`
	Storage storageDoc `json:"storage"`
	Best    *bestDoc   `json:"best"` // select only
	Average *struct {  // select with an average
		Members []bestDoc `json:"members"`
	} `json:"average"`
}

type storageDoc struct {
	Kind        string `json:"kind"`
	Bytes       int64  `json:"bytes"`
	MemoryLimit int64  `json:"memory_limit"`
}

type bestDoc struct {
	Kernel    string  `json:"kernel"`
	Width     float64 `json:"width"`
	M         int     `json:"m"`
	Criterion string  `json:"criterion"`
}

// label is "kernel, width w, m = m", without the width for kernels
// that have none.
func (b bestDoc) label() string {
	if b.Width == 0 {
		return fmt.Sprintf("%s, m = %d", b.Kernel, b.M)
	}
	return fmt.Sprintf("%s, width %g, m = %d", b.Kernel, b.Width, b.M)
}

// check is one line of the checks table; Result is pass, FAIL or not run.
type check struct {
	Name, Value, Bound, Result string
}

// report writes results.md and returns the number of failed checks.
func report(w io.Writer, m meta, rs []result) (failed int) {
	fmt.Fprintf(w, "# Scale runs of kpls\n\n")
	fmt.Fprintf(w, "- date: %s\n- commit: %s\n- GOMAXPROCS: %d\n- kpls version:\n\n", m.Date, m.Commit, m.GOMAXPROCS)
	fmt.Fprintf(w, "```\n%s\n```\n\n## Runs\n\n", m.Version)
	fmt.Fprintf(w, "| run | n | storage | kernel matrix (GiB) | memory limit (GiB) | wall time (s) | peak RSS (GiB) | best |\n")
	fmt.Fprintf(w, "|---|--:|---|--:|--:|--:|--:|---|\n")
	for _, r := range rs {
		best := "—"
		if b := r.Doc.Best; b != nil {
			best = fmt.Sprintf("%s (%s)", b.label(), b.Criterion)
			if a := r.Doc.Average; a != nil && len(a.Members) > 1 {
				best += fmt.Sprintf(", in a mean of %d", len(a.Members))
			}
		}
		fmt.Fprintf(w, "| %s | %d | %s | %.2f | %.2f | %.2f | %.2f | %s |\n", r.Name, r.Doc.N, r.Doc.Storage.Kind,
			gib(r.Doc.Storage.Bytes), gib(r.Doc.Storage.MemoryLimit), r.Wall.Seconds(), gib(r.MaxRSS), best)
	}
	if slices.ContainsFunc(rs, func(r result) bool { return r.Heldout != nil }) {
		fmt.Fprintf(w, "\n## Held out\n\n| run | held-out rows | RMSE | predict wall time (s) | model |\n|---|--:|--:|--:|---|\n")
		for _, r := range rs {
			if h := r.Heldout; h != nil {
				fmt.Fprintf(w, "| %s | %d | %.4f | %.2f | %s |\n", r.Name, h.Rows, h.RMSE, h.Wall.Seconds(), members(r.Doc))
			}
		}
	}
	fmt.Fprintf(w, "\n## Checks\n\n| check | value | bound | result |\n|---|--:|--:|---|\n")
	for _, c := range checks(rs) {
		fmt.Fprintf(w, "| %s | %s | %s | %s |\n", c.Name, c.Value, c.Bound, c.Result)
		if c.Result == "FAIL" {
			failed++
		}
	}
	fmt.Fprintf(w, "\n## Commands\n\n")
	for _, r := range rs {
		fmt.Fprintf(w, "- %s: `kpls %s`\n", r.Name, strings.Join(r.Args, " "))
		if r.Heldout != nil {
			fmt.Fprintf(w, "  then `kpls %s`\n", strings.Join(r.Predict, " "))
		}
	}
	return failed
}

// members lists the models a select chose: the mean's members, or the
// best alone.
func members(d runDoc) string {
	if a := d.Average; a != nil && len(a.Members) > 0 {
		s := make([]string, len(a.Members))
		for i, b := range a.Members {
			s[i] = b.label()
		}
		return "mean of " + strings.Join(s, "; ")
	}
	if d.Best != nil {
		return d.Best.label()
	}
	return "—"
}

// checks evaluates the peak RSS bounds of the protein and 100k runs and
// the growth of the selection's time from kin8nm to protein.
func checks(rs []result) []check {
	byName := map[string]*result{}
	for i := range rs {
		byName[rs[i].Name] = &rs[i]
	}
	var cs []check
	for _, name := range []string{"protein", "100k"} {
		c := check{Name: name + " peak RSS", Bound: fmt.Sprintf("≤ %.0f GiB", gib(rssBound)), Value: "—", Result: "not run"}
		if r := byName[name]; r != nil {
			c.Value, c.Result = fmt.Sprintf("%.2f GiB", gib(r.MaxRSS)), verdict(r.MaxRSS <= rssBound)
		}
		cs = append(cs, c)
	}
	c := check{Name: "protein time / kin8nm time", Bound: fmt.Sprintf("≤ (n_protein/n_kin8nm)^%g", timeExp), Value: "—", Result: "not run"}
	if p, k := byName["protein"], byName["kin8nm"]; p != nil && k != nil {
		ratio := p.Wall.Seconds() / k.Wall.Seconds()
		bound := math.Pow(float64(p.Doc.N)/float64(k.Doc.N), timeExp)
		c.Value = fmt.Sprintf("%.2f", ratio)
		c.Bound = fmt.Sprintf("≤ %.2f = (%d/%d)^%g", bound, p.Doc.N, k.Doc.N, timeExp)
		c.Result = verdict(ratio <= bound)
	}
	cs = append(cs, c)
	p := byName["protein-default"]
	for _, c := range []check{
		{Name: "protein-default held-out RMSE", Bound: fmt.Sprintf("≤ %g", proteinHeldoutBound)},
		{Name: "protein-default select time", Bound: fmt.Sprintf("≤ %.0f s", proteinTimeBound.Seconds())},
		{Name: "protein-default peak RSS", Bound: fmt.Sprintf("≤ %.0f GiB", gib(rssBound))},
	} {
		c.Value, c.Result = "—", "not run"
		if p != nil {
			switch {
			case strings.HasSuffix(c.Name, "RMSE") && p.Heldout != nil:
				c.Value, c.Result = fmt.Sprintf("%.4f", p.Heldout.RMSE), verdict(p.Heldout.RMSE <= proteinHeldoutBound)
			case strings.HasSuffix(c.Name, "time"):
				c.Value, c.Result = fmt.Sprintf("%.0f s", p.Wall.Seconds()), verdict(p.Wall <= proteinTimeBound)
			case strings.HasSuffix(c.Name, "RSS"):
				c.Value, c.Result = fmt.Sprintf("%.2f GiB", gib(p.MaxRSS)), verdict(p.MaxRSS <= rssBound)
			}
		}
		cs = append(cs, c)
	}
	return cs
}

func verdict(ok bool) string {
	if ok {
		return "pass"
	}
	return "FAIL"
}

func gib(bytes int64) float64 { return float64(bytes) / (1 << 30) }
