package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/kpls-go/kpls/cmd/cli"
	"github.com/kpls-go/kpls/cmd/cli/fitflags"
	"github.com/kpls-go/kpls/kpls"
)

// inspectJSON is the document of `kpls inspect --json`.
type inspectJSON struct {
	File    string `json:"file"`
	Format  string `json:"format"`
	Version int    `json:"version"`
	// Encoding is "binary" (versions 4 and 5) or "json" (versions 1–3).
	Encoding string `json:"encoding"`
	Checksum string `json:"checksum"`
	// Verified says whether inspect checked the checksum: it does for JSON
	// files, which it reads whole, and not for binary ones, whose arrays
	// it does not read (kpls predict checks it).
	Verified   bool               `json:"checksum_verified"`
	Bytes      int64              `json:"bytes"`
	ArrayBytes int64              `json:"array_bytes"`
	Models     []inspectModelJSON `json:"models"`
	// Means groups the models into means (select --average-within):
	// the first means[0] models are one mean, and so on.
	Means []int `json:"means,omitempty"`
}

type inspectModelJSON struct {
	Name        string     `json:"name"`
	Target      string     `json:"target"`
	Features    []string   `json:"features"`
	N           int        `json:"n"`
	D           int        `json:"d"`
	Kernel      kernelJSON `json:"kernel"`
	Standardize bool       `json:"standardize"`
	// Relevance are the weights of the standardised features (kpls
	// select learns them on its screen's sample), absent where all are 1.
	Relevance           []relevanceJSON  `json:"relevance,omitempty"`
	DoFMethod           kpls.DoFMethod   `json:"dof_method"`
	Lanczos             int              `json:"lanczos"`
	ComponentsRequested int              `json:"components_requested"`
	ValidComponents     int              `json:"valid_components"`
	KrylovSteps         int              `json:"krylov_steps"`
	Chosen              kpls.Choice      `json:"chosen"`
	Storage             kpls.Storage     `json:"storage"`
	Stop                *kpls.Stop       `json:"stop,omitempty"`
	Warnings            []kpls.Warning   `json:"warnings"`
	Arrays              []inspectArrJSON `json:"arrays"`
	// WeightTotal is N = Σw of a model fitted with --weights.
	WeightTotal float64 `json:"weight_total,omitempty"`
}

type inspectArrJSON struct {
	Name   string `json:"name"`
	Length int64  `json:"length"`
	Offset int64  `json:"offset"` // in the file; −1 in JSON files
	Shared bool   `json:"shared,omitempty"`
}

// inspectConfig is a checked `kpls inspect` command line.
type inspectConfig struct {
	c    fitflags.Common
	path string
}

func parseInspectFlags(e *cli.Env, args []string) (*inspectConfig, error) {
	fs := cli.NewFlagSet("inspect", "MODEL [--json]",
		"Prints what a model file's header says: its format version, and for each model in it (one per\n"+
			"target) the name, training size, kernel, components, the m it predicts with and how it was\n"+
			"chosen, and the arrays with their sizes. A binary file (format version 4) is read up to the end\n"+
			"of its header: its arrays are not read, nor their checksum checked (kpls predict does that).")
	cfg := &inspectConfig{}
	cfg.c.Register(fs, false)
	// The flags are all switches, so the one argument not starting with
	// "-" is the file, before or after them.
	var flags, files []string
	for _, a := range args {
		if strings.HasPrefix(a, "-") && a != "-" {
			flags = append(flags, a)
		} else {
			files = append(files, a)
		}
	}
	if err := fs.Parse(e, flags); err != nil {
		return nil, err
	}
	if len(files) != 1 {
		return nil, cli.Usagef("inspect: give one model file (got %d arguments)", len(files))
	}
	cfg.path = files[0]
	return cfg, nil
}

func (cfg *inspectConfig) run(_ context.Context, _ *cli.Env) (*kpls.FileInfo, error) {
	f, err := os.Open(cfg.path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := kpls.Inspect(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cfg.path, err)
	}
	return info, nil
}

func (cfg *inspectConfig) render(e *cli.Env, info *kpls.FileInfo) error {
	if cfg.c.JSON {
		return cli.WriteJSON(e.Stdout, inspectDoc(cfg.path, info))
	}
	renderInspect(e.Stdout, cfg.path, info)
	return nil
}

func inspectDoc(path string, info *kpls.FileInfo) inspectJSON {
	doc := inspectJSON{File: path, Format: info.Format, Version: info.Version, Encoding: encoding(info), Checksum: info.Checksum,
		Verified: info.Version < 4, Bytes: info.Bytes, ArrayBytes: info.ArrayBytes, Means: info.Means}
	for _, mi := range info.Models {
		o := mi.Options
		m := inspectModelJSON{Name: mi.Name, Target: mi.TargetName, Features: cli.NonNil(mi.FeatureNames), N: mi.N, D: mi.D, Kernel: kernelOf(o.Kernel),
			Standardize: !o.RawFeatures, DoFMethod: o.DoF, Lanczos: mi.LanczosSteps, ComponentsRequested: o.Components,
			ValidComponents: mi.ValidComponents, KrylovSteps: mi.KrylovSteps, Chosen: mi.Chosen, Storage: mi.Storage,
			Warnings: warningsJSON(mi.Warnings), WeightTotal: mi.WeightTotal, Relevance: relevanceOf(o.Relevance, mi.FeatureNames)}
		if mi.Stop.Reason != kpls.StopNone {
			s := mi.Stop
			m.Stop = &s
		}
		for _, a := range mi.Arrays {
			m.Arrays = append(m.Arrays, inspectArrJSON{Name: a.Name, Length: a.Length, Offset: a.Offset, Shared: a.Shared})
		}
		doc.Models = append(doc.Models, m)
	}
	return doc
}

// encoding names how the file stores its arrays.
func encoding(info *kpls.FileInfo) string {
	if info.Version < 4 {
		return "json"
	}
	return "binary"
}

// describeMeans says how a file's models group into means, "" for none.
func describeMeans(means []int) string {
	switch {
	case means == nil:
		return ""
	case len(means) == 1:
		return fmt.Sprintf(": the mean of %d (kpls select --average-within), which predict uses", means[0])
	}
	return fmt.Sprintf(": %d means of %v models, one per target (kpls select --average-within)", len(means), means)
}

func renderInspect(w io.Writer, path string, info *kpls.FileInfo) {
	check := "CRC-32C, not checked here (kpls predict checks it)"
	if info.Version < 4 {
		check = "SHA-256, checked"
	}
	fmt.Fprintf(w, "file       %s: %s (%d bytes)\n", path, fitflags.FormatBytes(info.Bytes), info.Bytes)
	fmt.Fprintf(w, "format     %s version %d, %s; checksum %s\n", info.Format, info.Version, encoding(info), check)
	fmt.Fprintf(w, "arrays     %s as float64 (%.1f %% of the file)\n", fitflags.FormatBytes(info.ArrayBytes), 100*float64(info.ArrayBytes)/float64(info.Bytes))
	fmt.Fprintf(w, "models     %d%s\n", len(info.Models), describeMeans(info.Means))
	for i, mi := range info.Models {
		o := mi.Options
		fmt.Fprintf(w, "\nmodel %d    %s\n", i+1, orUnnamed(mi.Name))
		features := "unnamed"
		if len(mi.FeatureNames) > 0 {
			features = strings.Join(mi.FeatureNames, ", ")
		}
		fmt.Fprintf(w, "  data       n = %d, d = %d; target %s; features %s\n", mi.N, mi.D, orUnnamed(mi.TargetName), features)
		fmt.Fprintf(w, "  kernel     %s, features %s\n", describeKernel(o.Kernel), standardized(o))
		if o.Relevance != nil {
			fmt.Fprintf(w, "  relevance  %s (each standardised feature's weight in the kernel)\n", relevanceList(relevanceOf(o.Relevance, mi.FeatureNames)))
		}
		fmt.Fprintf(w, "  components %d valid of %d asked for (Krylov steps %d); DoF %s%s\n", mi.ValidComponents, o.Components,
			mi.KrylovSteps, o.DoF, lanczosNote(o.DoF, mi.LanczosSteps))
		fmt.Fprintf(w, "  chosen     m = %d by %s (kpls predict uses it unless told otherwise)\n", mi.Chosen.M, mi.Chosen.Criterion)
		if mi.Storage != "" {
			fmt.Fprintf(w, "  storage    %s (how the fit held the kernel matrix)\n", mi.Storage)
		}
		if mi.WeightTotal > 0 {
			fmt.Fprintf(w, "  weights    frequency weights over the n rows, N = %s\n", cli.Cell(mi.WeightTotal))
		}
		if mi.Stop.Reason != kpls.StopNone {
			fmt.Fprintf(w, "  stopped    %s\n", mi.Stop.Message)
		}
		var arrs []string
		for _, a := range mi.Arrays {
			s := fmt.Sprintf("%s %d", a.Name, a.Length)
			if a.Shared {
				s += " (shared)"
			}
			arrs = append(arrs, s)
		}
		fmt.Fprintf(w, "  arrays     %s (float64 values)\n", strings.Join(arrs, ", "))
		inspectWarnings(w, messages(mi.Warnings))
	}
}

// inspectWarnings prints the first few warnings and counts the rest
// (a fit's warnings can name every m whose DoF is unknown).
func inspectWarnings(w io.Writer, warns []string) {
	const shown = 3
	for i, s := range warns[:min(len(warns), shown)] {
		label := ""
		if i == 0 {
			label = "warnings"
		}
		fmt.Fprintf(w, "  %-10s %s\n", label, s)
	}
	if len(warns) > shown {
		fmt.Fprintf(w, "             … and %d more (--json lists them all)\n", len(warns)-shown)
	}
}

func orUnnamed(name string) string {
	if name == "" {
		return "(unnamed)"
	}
	return fmt.Sprintf("%q", name)
}
