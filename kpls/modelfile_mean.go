package kpls

import (
	"fmt"
	"io"
	"slices"
)

// saveMeans writes means to one file, each under its name: typically one
// mean per target (Select averaging within CrossValidation.AverageWithin), all of
// models fitted to the same training inputs, which the file holds once.
// names is nil (no names) or has one name per mean; the names that are
// not empty must differ. A file of means of one model each is a plain
// file of format version 4, which Load and LoadModels read too; a mean of
// several models makes it a file of version 5, which only LoadMeans reads.
func saveMeans(w io.Writer, names []string, means []*Mean) error {
	switch {
	case len(means) == 0:
		return fmt.Errorf("%w: no means to save", ErrShape)
	case names != nil && len(names) != len(means):
		return fmt.Errorf("%w: %d names for %d means", ErrShape, len(names), len(means))
	}
	var models []*Model
	var flat []string
	counts := make([]int, len(means))
	several := false
	for i, a := range means {
		if a == nil {
			return fmt.Errorf("%w: mean %d is nil", ErrShape, i+1)
		}
		counts[i] = len(a.members)
		several = several || counts[i] > 1
		models = append(models, a.members...)
		name := ""
		if names != nil {
			name = names[i]
		}
		for range a.members {
			flat = append(flat, name)
		}
	}
	if !several {
		return saveModels(w, names, models)
	}
	f, err := newFileWriter(flat, models, counts)
	if err != nil {
		return err
	}
	return f.write(w)
}

// loadMeans reads a model file of any format version: the means it holds
// and their names (empty where the file gives none). In a file without
// means (format versions 1–4) each model is a mean of itself alone, which
// predicts with the model's chosen m.
func loadMeans(r io.Reader) (names []string, means []*Mean, err error) {
	f, err := load(r, nil)
	if err != nil {
		return nil, nil, err
	}
	at := 0
	for i, k := range f.counts() {
		a, err := NewMean(f.models[at : at+k]...)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: mean %d: %v", ErrModelFile, i+1, err)
		}
		names = append(names, f.names[at])
		means = append(means, a)
		at += k
	}
	return names, means, nil
}

// checkNames checks the names of a file's entries, grouped into means
// by counts when not nil: every mean has at least one entry, the means
// cover the entries, the entries of a mean share its name, and the names
// that are not empty differ from one mean (or model) to the next.
func checkNames(names []string, counts []int, entries int) error {
	if counts == nil {
		for i, name := range names {
			if name != "" && slices.Contains(names[:i], name) {
				return fmt.Errorf("%w: the name %q is given to two models", ErrShape, name)
			}
		}
		return nil
	}
	var heads []string
	at := 0
	for i, k := range counts {
		if k < 1 || k > entries-at {
			return fmt.Errorf("%w: mean %d of %d models, with %d models left", ErrShape, i+1, k, entries-at)
		}
		if names != nil {
			name := names[at]
			for _, other := range names[at : at+k] {
				if other != name {
					return fmt.Errorf("%w: mean %d names its models %q and %q", ErrShape, i+1, name, other)
				}
			}
			if name != "" && slices.Contains(heads, name) {
				return fmt.Errorf("%w: the name %q is given to two means", ErrShape, name)
			}
			heads = append(heads, name)
		}
		at += k
	}
	if at != entries {
		return fmt.Errorf("%w: means of %d models in all, the file has %d", ErrShape, at, entries)
	}
	return nil
}

// meanRefused is the error for a file holding a mean of several models
// (mean i of counts) read as plain models.
func meanRefused(counts []int, i int) error {
	what := fmt.Sprintf("a mean of %d models", counts[i])
	if len(counts) > 1 {
		what = fmt.Sprintf("%d means (of %v models)", len(counts), counts)
	}
	return fmt.Errorf("%w: the file holds %s, which predict together: read it with Load", ErrModelFile, what)
}
