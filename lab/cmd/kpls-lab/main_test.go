package main

import (
	"bytes"
	"context"
	"github.com/kpls-go/kpls/cmd/cli"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// labRun runs the command in-process and returns its exit status, stdout
// and stderr.
func labRun(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := program.Run(context.Background(), args, cli.Env{Stdout: &out, Stderr: &errb})
	if s := errb.String(); strings.Contains(s, "panic") || strings.Contains(s, "goroutine ") || strings.Contains(s, "internal error") {
		t.Errorf("kpls-lab %q: stderr looks like a panic:\n%s", args, s)
	}
	return code, out.String(), errb.String()
}

// writeFile writes content to name in a fresh temporary directory.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// smallCSV is a noisy smooth function of two features, target last.
func smallCSV(n int) string {
	var b strings.Builder
	b.WriteString("a,b,y\n")
	for i := range n {
		a := float64(i)/float64(n)*4 - 2
		bb := math.Sin(float64(3 * i))
		y := math.Sin(a) + 0.3*bb + 0.05*math.Cos(float64(7*i))
		b.WriteString(strings.Join([]string{fmtF(a), fmtF(bb), fmtF(y)}, ",") + "\n")
	}
	return b.String()
}

func fmtF(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

func TestHelpListsEveryCommand(t *testing.T) {
	code, out, _ := labRun(t, "--help")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, c := range program.Commands {
		if !strings.Contains(out, "\n  "+c.Name+" ") {
			t.Errorf("kpls-lab --help does not list %s", c.Name)
		}
		code, out, _ := labRun(t, c.Name, "--help")
		if code != 0 || !strings.Contains(out, "Usage: kpls-lab "+c.Name) {
			t.Errorf("kpls-lab %s --help: exit %d, no usage line:\n%s", c.Name, code, out)
		}
	}
}
