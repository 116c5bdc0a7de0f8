package scale

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"
)

// Bounds of the checks.
const (
	rssBound = 8 << 30 // bytes of peak RSS allowed the protein and 100k runs
	timeExp  = 2.1     // protein/kin8nm time may be at most (n_protein/n_kin8nm)^timeExp
)

// meta describes the machine and build the runs were made on.
type meta struct {
	Date, Commit, Version string
	GOMAXPROCS            int
}

// result is one child run.
type result struct {
	Name   string
	Args   []string
	Wall   time.Duration
	MaxRSS int64 // bytes
	Doc    runDoc
}

// runDoc is what the report reads of `kpls select --json` and `kpls fit
// --json` (selectJSON and fitJSON in cmd/kpls).
type runDoc struct {
	N       int        `json:"n"`
	Storage storageDoc `json:"storage"`
	Best    *bestDoc   `json:"best"` // select only
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
			best = fmt.Sprintf("%s, width %g, m = %d (%s)", b.Kernel, b.Width, b.M, b.Criterion)
		}
		fmt.Fprintf(w, "| %s | %d | %s | %.2f | %.2f | %.2f | %.2f | %s |\n", r.Name, r.Doc.N, r.Doc.Storage.Kind,
			gib(r.Doc.Storage.Bytes), gib(r.Doc.Storage.MemoryLimit), r.Wall.Seconds(), gib(r.MaxRSS), best)
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
	}
	return failed
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
	return append(cs, c)
}

func verdict(ok bool) string {
	if ok {
		return "pass"
	}
	return "FAIL"
}

func gib(bytes int64) float64 { return float64(bytes) / (1 << 30) }
