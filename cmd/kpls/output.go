package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/kpls-go/kpls/blas"
	"github.com/kpls-go/kpls/cmd/cli"
	"github.com/kpls-go/kpls/cmd/cli/fitflags"
	"github.com/kpls-go/kpls/kpls"
)

// pathRowJSON is one m of a fit, a row of its "path" (docs/design.md §6).
type pathRowJSON struct {
	M          int      `json:"m"`
	RSS        cli.Num  `json:"rss"`
	DoF        cli.Num  `json:"dof"`
	DoFClipped cli.Num  `json:"dof_clipped"`
	DoFSE      *cli.Num `json:"dof_se,omitempty"`
	Sigma      cli.Num  `json:"sigma"`
	AIC        cli.Num  `json:"aic"`
	BIC        cli.Num  `json:"bic"`
	GMDL       cli.Num  `json:"gmdl"`
	GCV        cli.Num  `json:"gcv"`
}

func pathJSON(stats []kpls.Stats, method kpls.DoFMethod) []pathRowJSON {
	out := make([]pathRowJSON, len(stats))
	for i, s := range stats {
		c := pathRowJSON{M: s.M, RSS: cli.Num(s.RSS), DoF: cli.Num(s.DoF), DoFClipped: cli.Num(s.DoFClipped),
			Sigma: cli.Num(s.Sigma), AIC: cli.Num(s.AIC), BIC: cli.Num(s.BIC), GMDL: cli.Num(s.GMDL), GCV: cli.Num(s.GCV)}
		if method == kpls.DoFApprox {
			se := cli.Num(s.DoFSE)
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

// statsTable writes one row per m, marking the row mark.
func statsTable(w io.Writer, stats []kpls.Stats, mark int, withWidth bool, width float64) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	if withWidth {
		fmt.Fprint(tw, "width\t")
	}
	fmt.Fprint(tw, "m\tRSS\tDoF\tsigma\tAIC\tBIC\tgMDL\t\n")
	for _, s := range stats {
		if withWidth {
			fmt.Fprintf(tw, "%s\t", cli.Cell(width))
		}
		star := ""
		if s.M == mark {
			star = " *"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", s.M, cli.Cell(s.RSS), cli.Cell(s.DoF), cli.Cell(s.Sigma), cli.Cell(s.AIC), cli.Cell(s.BIC), cli.Cell(s.GMDL), star)
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

func standardized(o kpls.Options) string {
	if o.RawFeatures {
		return "raw (--standardize=false)"
	}
	return "standardised"
}

func lanczosNote(d kpls.DoFMethod, steps int) string {
	if d == kpls.DoFLanczos || d == kpls.DoFApprox {
		return fmt.Sprintf(" (M = %d Lanczos steps)", steps)
	}
	return ""
}

// storageJSON is how a fit held its kernel matrix.
type storageJSON struct {
	Kind        kpls.Storage `json:"kind"`
	Bytes       int64        `json:"bytes"`        // of the kernel matrix (features: the centred inputs); 0 for matrix-free
	MemoryLimit int64        `json:"memory_limit"` // the limit it was chosen by
}

func storageOf(m *kpls.Model, r kpls.Resources) storageJSON {
	limit := r.MemoryLimit
	if limit == 0 {
		limit = kpls.Resources{}.Memory()
	}
	sm := m.Summary()
	s := sm.Storage
	b := s.Bytes(sm.N)
	switch s {
	case kpls.StorageFeatures:
		b = 8 * int64(sm.N) * int64(sm.D)
	case kpls.StorageHybrid:
		b = min(limit, kpls.StorageDense.Bytes(sm.N))
	}
	return storageJSON{Kind: s, Bytes: b, MemoryLimit: limit}
}

func describeStorage(s storageJSON) string {
	switch s.Kind {
	case kpls.StorageMatrixFree:
		return fmt.Sprintf("matrix-free kernel matrix (recomputed in every product; memory limit %s)", fitflags.FormatBytes(s.MemoryLimit))
	case kpls.StorageFeatures:
		return fmt.Sprintf("linear kernel matrix through its centred inputs, %s (memory limit %s)", fitflags.FormatBytes(s.Bytes), fitflags.FormatBytes(s.MemoryLimit))
	case kpls.StorageHybrid:
		return fmt.Sprintf("hybrid kernel matrix (%s cached, the rest recomputed in every product; memory limit %s)", fitflags.FormatBytes(s.Bytes), fitflags.FormatBytes(s.MemoryLimit))
	}
	return fmt.Sprintf("%s kernel matrix, %s (memory limit %s)", s.Kind, fitflags.FormatBytes(s.Bytes), fitflags.FormatBytes(s.MemoryLimit))
}

func backendName(r kpls.Resources) string {
	if r.Backend == nil {
		return blas.Name(blas.Default())
	}
	return blas.Name(r.Backend)
}

// The command's own warning codes, beside the library's: what it finds
// about predictions and demo runs.
const (
	warnOutside      kpls.WarningCode = "outside"
	warnNoiseUnknown kpls.WarningCode = "noise_unknown"
	warnBandsRefused kpls.WarningCode = "bands_refused"
)

// warningsJSON is ws for a JSON document: [] rather than null, each
// warning an object with its code and message.
func warningsJSON(ws []kpls.Warning) []kpls.Warning {
	if ws == nil {
		return []kpls.Warning{}
	}
	return ws
}

// messages are the warnings' messages.
func messages(ws []kpls.Warning) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.Message
	}
	return out
}
