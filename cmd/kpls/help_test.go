package main

import (
	"regexp"
	"strings"
	"testing"
)

// helpDefaults reads a command's --help: each flag's default as printed,
// and the whole text with whitespace folded.
func helpDefaults(t *testing.T, cmd string) (map[string]string, string) {
	t.Helper()
	code, out, stderr := kplsRun(t, cmd, "--help")
	if code != 0 {
		t.Fatalf("%s --help: exit %d, %s", cmd, code, stderr)
	}
	defs := map[string]string{}
	flag := regexp.MustCompile(`(?m)^  --([a-z0-9-]+)[^\n]*\n      (?:[^\n]*)\(default ([^)\n]*)\)$`)
	for _, m := range flag.FindAllStringSubmatch(out, -1) {
		defs[m[1]] = strings.Trim(m[2], `"`)
	}
	return defs, strings.Join(strings.Fields(out), " ")
}

// TestHelpStatesTrueDefaults: where a command's help text names a flag's
// default in words ("--criterion cv, the default"), it is the flag's
// default; select's --kernel has none (select searches --kernels); the
// help does not call the approximate DoF the most accurate, and select's
// --seed says it sets the folds.
func TestHelpStatesTrueDefaults(t *testing.T) {
	stated := []*regexp.Regexp{
		regexp.MustCompile(`--([a-z-]+) ([A-Za-z0-9.]+),? the default`),
		regexp.MustCompile(`default(?: is|:)? --([a-z-]+) ([A-Za-z0-9.]+)`),
	}
	for _, c := range program.Commands {
		defs, text := helpDefaults(t, c.Name)
		if len(defs) == 0 && c.Name != "inspect" {
			t.Errorf("%s --help: no flag defaults read", c.Name)
		}
		for _, re := range stated {
			for _, m := range re.FindAllStringSubmatch(text, -1) {
				if def, ok := defs[m[1]]; ok && def != m[2] {
					t.Errorf("%s --help says %q, but --%s defaults to %q", c.Name, m[0], m[1], def)
				}
			}
		}
		if strings.Contains(text, "most accurate") {
			t.Errorf("%s --help calls something the most accurate", c.Name)
		}
	}
	defs, text := helpDefaults(t, "select")
	if defs["kernel"] != "" || defs["kernels"] == "" || !strings.Contains(defs["kernels"], ",") {
		t.Errorf("select: --kernel defaults to %q, --kernels to %q; want none and a list", defs["kernel"], defs["kernels"])
	}
	if !strings.Contains(text, "seed of the cross-validation folds") {
		t.Error("select --help: --seed does not say it sets the folds")
	}
	if defs, _ := helpDefaults(t, "fit"); defs["kernel"] != "rbf" || defs["dof"] != "approx" {
		t.Errorf("fit: --kernel %q, --dof %q", defs["kernel"], defs["dof"])
	}
}
