package main

import (
	"fmt"
	"io"

	"github.com/kpls-go/kpls/cmd/cli"
	"github.com/kpls-go/kpls/cmd/cli/fitflags"
	"github.com/kpls-go/kpls/kpls"
)

// writeTargets writes the one document of a single target as it is, and
// several as {"targets": [...]} in the order of --target.
func writeTargets[T any](w io.Writer, docs []T) error {
	if len(docs) == 1 {
		return cli.WriteJSON(w, docs[0])
	}
	return cli.WriteJSON(w, struct {
		Targets []T `json:"targets"`
	}{docs})
}

// targetHeading starts target i's section of the text output when there
// are several.
func targetHeading(w io.Writer, targets []string, i int) {
	if len(targets) < 2 {
		return
	}
	if i > 0 {
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "── target %q (%d of %d) ──\n", targets[i], i+1, len(targets))
}

// targetPrefixed names the target in its warnings when there are several.
func targetPrefixed(targets []string, i int, msgs []string) []string {
	if len(targets) < 2 {
		return msgs
	}
	out := make([]string, len(msgs))
	for j, m := range msgs {
		out[j] = fmt.Sprintf("target %q: %s", targets[i], m)
	}
	return out
}

// saveModels writes the models of fit or select to path: one model as
// any model file, several as one file with an entry per target, named by
// its TargetName.
func saveModels(ms []*kpls.Model, path string) error {
	ps := make([]kpls.Predictor, len(ms))
	for i, m := range ms {
		ps[i] = m
	}
	return writeAtomically(path, func(w io.Writer) error { return kpls.Save(w, ps...) })
}

// saveKept writes the models to path, each kept to the components
// --keep-components says, and tells on stderr where a fit decided
// otherwise than the number given.
func saveKept(e *cli.Env, keep *fitflags.Keep, ms []*kpls.Model, targets []string, path string) error {
	kept, notes, err := keep.Apply(ms, targets)
	if err != nil {
		return err
	}
	for _, n := range notes {
		fmt.Fprintf(e.Stderr, "%s: note: %s\n", e.Prog, n)
	}
	return saveModels(kept, path)
}

// saveSelected writes the selections' predictors to path, each model
// kept as --keep-components says (a mean's others hold their m alone).
func saveSelected(e *cli.Env, keep *fitflags.Keep, sels []*kpls.Selection, targets []string, path string) error {
	ps := make([]kpls.Predictor, len(sels))
	for i, sel := range sels {
		members := []*kpls.Model{sel.Model}
		if a, ok := sel.Predictor.(*kpls.Mean); ok {
			members = a.Members()
		}
		names := make([]string, len(members))
		for j := range names {
			names[j] = targets[i]
		}
		kept, notes, err := keep.Apply(members, names)
		if err != nil {
			return err
		}
		if len(notes) > 0 { // the first model's: the others hold their m alone
			fmt.Fprintf(e.Stderr, "%s: note: %s\n", e.Prog, notes[0])
		}
		if ps[i] = kept[0]; len(kept) > 1 {
			if ps[i], err = kpls.NewMean(kept...); err != nil {
				return err
			}
		}
	}
	return writeAtomically(path, func(w io.Writer) error { return kpls.Save(w, ps...) })
}

// checkKeep holds --keep-components to --model and to the components
// asked for (0: no bound known before the fit).
func checkKeep(fs *cli.FlagSet, keep *fitflags.Keep, modelOut string, components int) error {
	if fs.IsSet("keep-components") && modelOut == "" {
		return cli.Usagef("--keep-components applies to the saved model: add --model")
	}
	return keep.Check(components)
}
