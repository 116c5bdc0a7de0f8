package internal

import (
	"bufio"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// goFile is one Go source file of the module: the directory of its
// package relative to the module root ("kpls", "internal/simd"), whether
// it is a test file, and its imports with the module path cut off
// ("kpls", "internal/sim"; imports from outside the module are left out).
type goFile struct {
	dir, name string
	test      bool
	imports   []string
}

// rule forbids the packages in the directories it applies to from
// importing packages under the listed directories, but for those under
// the allowed ones.
type rule struct {
	why       string
	applies   func(dir string) bool
	tests     bool // whether _test.go files are held to it too
	forbidden []string
	allowed   []string // directories below a forbidden one that may be imported all the same
}

// under reports whether dir is prefix or a directory below it.
func under(dir, prefix string) bool { return dir == prefix || strings.HasPrefix(dir, prefix+"/") }

// inInternal reports whether dir lies under a directory named internal.
func inInternal(dir string) bool {
	return dir == "internal" || strings.HasPrefix(dir, "internal/") || strings.Contains(dir, "/internal/") || strings.HasSuffix(dir, "/internal")
}

// inCLI reports whether dir holds what the commands share (cmd/cli): under
// cmd/ beside the commands, importable by both of them and by the
// experiments, and a floor of its own, above the library it drives.
func inCLI(dir string) bool { return under(dir, "cmd/cli") }

// command returns the directory under cmd/ that dir belongs to ("cmd/kpls"
// for cmd/kpls/internal/x, "cmd/cli" for cmd/cli/fitflags), or "" when dir
// lies outside cmd/.
func command(dir string) string {
	parts := strings.SplitN(dir, "/", 3)
	if len(parts) < 2 || parts[0] != "cmd" {
		return ""
	}
	return parts[0] + "/" + parts[1]
}

var rules = []rule{
	{
		why:       "internal/ is the ground floor: kernels and data the library stands on, not users of it",
		applies:   inInternal,
		tests:     true,
		forbidden: []string{"kpls", "lab", "plots", "cmd", "examples", "bench"},
	},
	{
		why:       "cmd/cli is what the commands share: it drives the library, below the commands and experiments that use it",
		applies:   inCLI,
		tests:     true,
		forbidden: []string{"lab", "plots", "cmd", "examples", "bench"},
	},
	{
		why:       "plots only draws: the experiments that compute its data live in lab/ and use it, not the other way round",
		applies:   func(d string) bool { return under(d, "plots") },
		tests:     true,
		forbidden: []string{"lab", "cmd", "examples", "bench"},
	},
	{
		why:       "the library stands on internal/ alone, below the experiments, figures and commands",
		applies:   func(d string) bool { return under(d, "kpls") || under(d, "blas") },
		forbidden: []string{"lab", "plots", "cmd", "examples", "bench"},
	},
	{
		why:       "the command stands on the library and what the commands share, not on the experiments: its demo data is under internal/",
		applies:   func(d string) bool { return under(d, "cmd") && !inCLI(d) },
		tests:     true,
		forbidden: []string{"lab", "cmd", "examples", "bench"},
		allowed:   []string{"cmd/cli"},
	},
	{
		why:       "the experiments sit below the commands that run them; of cmd/ they use only what the commands share (cmd/cli)",
		applies:   func(d string) bool { return under(d, "lab") },
		tests:     true,
		forbidden: []string{"cmd", "examples", "bench"},
		allowed:   []string{"cmd/cli"},
	},
}

// violations lists every import that breaks a rule, sorted.
func violations(files []goFile) []string {
	var out []string
	for _, f := range files {
		for _, r := range rules {
			if !r.applies(f.dir) || f.test && !r.tests {
				continue
			}
			for _, imp := range f.imports {
				// A command's own packages are the command's.
				if c := command(f.dir); c != "" && under(imp, c) {
					continue
				}
				if slices.ContainsFunc(r.allowed, func(a string) bool { return under(imp, a) }) {
					continue
				}
				for _, bad := range r.forbidden {
					if under(imp, bad) {
						out = append(out, fmt.Sprintf("%s/%s imports %s: %s", f.dir, f.name, imp, r.why))
					}
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

// modulePath reads the module path from go.mod in root.
func modulePath(t *testing.T, root string) string {
	t.Helper()
	f, err := os.Open(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
			return strings.TrimSpace(rest)
		}
	}
	t.Fatal("go.mod names no module")
	return ""
}

// moduleFiles parses the imports of every Go file of the module, whatever
// its build tags, skipping the directories the go command ignores.
func moduleFiles(t *testing.T, root string) []goFile {
	t.Helper()
	mod := modulePath(t, root)
	var files []goFile
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata") {
				return filepath.SkipDir
			}
			if path != root {
				if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
					return filepath.SkipDir // another module
				}
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		af, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		f := goFile{dir: filepath.ToSlash(rel), name: name, test: strings.HasSuffix(name, "_test.go")}
		for _, is := range af.Imports {
			p, err := strconv.Unquote(is.Path.Value)
			if err != nil {
				return err
			}
			if rest, ok := strings.CutPrefix(p, mod+"/"); ok {
				f.imports = append(f.imports, rest)
			}
		}
		files = append(files, f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestLayers fails when an import points up: a package under internal/
// importing kpls, plots importing an experiment, and so on (see rules).
func TestLayers(t *testing.T) {
	files := moduleFiles(t, "..")
	// The walk must have seen the floors it checks.
	seen := map[string]bool{}
	for _, f := range files {
		seen[f.dir] = true
	}
	for _, d := range []string{"internal/simd", "internal/gram", "internal/dataset", "internal/sim", "internal/demodata", "plots", "kpls", "blas", "lab/dofbed", "cmd/cli", "cmd/cli/fitflags", "cmd/kpls", "lab/cmd/kpls-lab"} {
		if !seen[d] {
			t.Errorf("no Go files found in %s: the check would pass vacuously", d)
		}
	}
	for _, v := range violations(files) {
		t.Error(v)
	}
}

// The rules catch what they are for.
func TestLayersCatchViolations(t *testing.T) {
	files := []goFile{
		{dir: "internal/gram", name: "gram.go", imports: []string{"internal/simd"}},
		{dir: "internal/dofbed", name: "dofbed.go", imports: []string{"kpls"}},
		{dir: "internal/simd", name: "x_test.go", test: true, imports: []string{"kpls"}},
		{dir: "internal/dataset", name: "dataset.go", imports: []string{"kpls"}},
		{dir: "internal/dataset", name: "read.go", imports: []string{"cmd/cli"}},
		{dir: "internal/sim", name: "sinc.go", imports: []string{"lab/dofbed"}},
		{dir: "cmd/cli/fitflags", name: "model.go", imports: []string{"kpls", "cmd/cli", "cmd/cli/progress", "internal/dataset"}},
		{dir: "cmd/cli/progress", name: "progress.go", imports: []string{"lab/dofbed"}},
		{dir: "cmd/cli", name: "program_test.go", test: true, imports: []string{"cmd/kpls"}},
		{dir: "kpls", name: "options.go", imports: []string{"cmd/cli"}},
		{dir: "plots", name: "paper.go", imports: []string{"kpls", "internal/sim", "cmd/cli"}},
		{dir: "plots", name: "example_test.go", test: true, imports: []string{"lab/paper"}},
		{dir: "kpls", name: "fit.go", imports: []string{"plots"}},
		{dir: "kpls", name: "regimes_test.go", test: true, imports: []string{"lab/dofbed"}},
		{dir: "lab/paper", name: "paper.go", imports: []string{"kpls", "plots", "internal/sim"}},
		{dir: "cmd/kpls", name: "main.go", imports: []string{"cmd/cli", "cmd/cli/fitflags", "internal/dataset", "internal/demodata", "internal/sim"}},
		{dir: "cmd/kpls", name: "demo.go", imports: []string{"lab/paper"}},
		{dir: "cmd/kpls", name: "main_test.go", test: true, imports: []string{"lab/dofbed"}},
		{dir: "cmd/kpls/internal/fit", name: "fit.go", imports: []string{"cmd/kpls/internal/model"}},
		{dir: "cmd/kpls", name: "lab.go", imports: []string{"cmd/kpls-lab"}},
		{dir: "lab/panel", name: "panel.go", imports: []string{"cmd/cli", "cmd/cli/fitflags", "internal/sim"}},
		{dir: "lab/scale", name: "scale.go", imports: []string{"cmd/kpls"}},
	}
	got := violations(files)
	want := []string{
		"cmd/cli/program_test.go imports cmd/kpls",
		"cmd/cli/progress/progress.go imports lab/dofbed",
		"cmd/kpls/demo.go imports lab/paper",
		"cmd/kpls/lab.go imports cmd/kpls-lab",
		"cmd/kpls/main_test.go imports lab/dofbed",
		"internal/dataset/dataset.go imports kpls",
		"internal/dataset/read.go imports cmd/cli",
		"internal/dofbed/dofbed.go imports kpls",
		"internal/sim/sinc.go imports lab/dofbed",
		"internal/simd/x_test.go imports kpls",
		"kpls/fit.go imports plots",
		"kpls/options.go imports cmd/cli",
		"lab/scale/scale.go imports cmd/kpls",
		"plots/example_test.go imports lab/paper",
		"plots/paper.go imports cmd/cli",
	}
	if len(got) != len(want) {
		t.Fatalf("violations:\n%s\nwant %d", strings.Join(got, "\n"), len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(got[i], w+":") {
			t.Errorf("violation %d = %q, want %q", i, got[i], w)
		}
	}
}
