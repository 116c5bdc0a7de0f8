package fitflags

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kpls-go/kpls/cmd/cli"
	"github.com/kpls-go/kpls/kpls"
)

// Keep is the --keep-components flag of fit and select: which components
// a saved model keeps. The zero value keeps every valid component.
type Keep struct {
	set    bool
	chosen bool // keep up to each model's chosen m
	m      int  // with set and not chosen: keep up to m
}

// Register adds --keep-components.
func (k *Keep) Register(fs *cli.FlagSet) {
	fs.Var(k, "keep-components", "components the saved model keeps: all, chosen (up to the m it predicts with) or `M` ≥ 0 (up to M, and at least up to the chosen m); a smaller model file, which cannot predict with more components")
}

func (k *Keep) String() string {
	switch {
	case !k.set:
		return "all"
	case k.chosen:
		return "chosen"
	}
	return strconv.Itoa(k.m)
}

func (k *Keep) Set(s string) error {
	switch v := strings.ToLower(strings.TrimSpace(s)); v {
	case "all":
		*k = Keep{}
	case "chosen":
		*k = Keep{set: true, chosen: true}
	default:
		m, err := strconv.Atoi(v)
		if err != nil || m < 0 {
			return fmt.Errorf("want all, chosen or a number of components ≥ 0")
		}
		*k = Keep{set: true, m: m}
	}
	return nil
}

// Check holds a number against the components asked for: keeping more
// than the fit can have is a typo.
func (k *Keep) Check(components int) error {
	if k.set && !k.chosen && components > 0 && k.m > components {
		return cli.Usagef("--keep-components %d: more than the %d components asked for (--components)", k.m, components)
	}
	return nil
}

// Apply returns the models to save, each kept as the flag says, with a
// note for each model whose fit decided otherwise than the number given:
// fewer valid components than it (all are kept), or a chosen m above it
// (kept up to the chosen m, so that the model holds the m it predicts
// with). Those are notes, not errors: they are known only after the fit.
func (k *Keep) Apply(ms []*kpls.Model, targets []string) ([]*kpls.Model, []string, error) {
	if !k.set {
		return ms, nil, nil
	}
	out := make([]*kpls.Model, len(ms))
	var notes []string
	for i, m := range ms {
		valid, chosen := len(m.Stats())-1, m.Chosen()
		keep := k.m
		switch {
		case k.chosen:
			keep = chosen.M
		case keep > valid:
			keep = valid
			notes = append(notes, fmt.Sprintf("%s--keep-components %d: the fit has %d valid components; all are kept", targetOf(targets, i), k.m, valid))
		case keep < chosen.M:
			keep = chosen.M
			notes = append(notes, fmt.Sprintf("%s--keep-components %d is below the chosen m = %d (%s): components 0..%d are kept, so that the model holds the m it predicts with",
				targetOf(targets, i), k.m, chosen.M, chosen.Criterion, keep))
		}
		var err error
		if out[i], err = m.Truncated(keep); err != nil {
			return nil, nil, err
		}
	}
	return out, notes, nil
}

// targetOf names target i of several in a note.
func targetOf(targets []string, i int) string {
	if len(targets) < 2 {
		return ""
	}
	return fmt.Sprintf("target %q: ", targets[i])
}
