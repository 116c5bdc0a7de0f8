package main

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain runs the command itself when a test starts this test binary
// as a subprocess with KPLS_TEST_RUN_MAIN=1.
func TestMain(m *testing.M) {
	if os.Getenv("KPLS_TEST_RUN_MAIN") == "1" {
		os.Args = append(os.Args[:1], strings.Fields(os.Getenv("KPLS_TEST_ARGS"))...)
		main()
		return
	}
	os.Exit(m.Run())
}

// TestInterruptWhileReading starts the command on a standard input that
// never ends and signals it while it reads: it exits with status 130
// within a second or two, at the first signal. Before, the first signal
// was ignored while reading and the second killed the process.
func TestInterruptWhileReading(t *testing.T) {
	if testing.Short() {
		t.Skip("starts subprocesses")
	}
	for _, c := range []struct {
		name string
		sig  syscall.Signal
		args string
	}{
		{"fit SIGINT", syscall.SIGINT, "fit --data - --target y"},
		{"fit SIGTERM", syscall.SIGTERM, "fit --data - --components 1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "KPLS_TEST_RUN_MAIN=1", "KPLS_TEST_ARGS="+c.args)
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer stdin.Close()
			// A header and a few rows, then nothing: the reader waits.
			if _, err := stdin.Write([]byte("a,b,y\n1,2,3\n4,5,6\n")); err != nil {
				t.Fatal(err)
			}
			time.Sleep(500 * time.Millisecond)
			sent := time.Now()
			if err := cmd.Process.Signal(c.sig); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err = <-done:
			case <-time.After(5 * time.Second):
				cmd.Process.Kill()
				<-done
				t.Fatalf("still running 5 s after the signal; stderr: %s", stderr.String())
			}
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 130 {
				t.Fatalf("exit %v, want status 130; stderr: %s", err, stderr.String())
			}
			if took := time.Since(sent); took > 3*time.Second {
				t.Errorf("took %v to exit", took)
			}
			if !strings.Contains(stderr.String(), "interrupted") {
				t.Errorf("stderr %q does not say interrupted", stderr.String())
			}
			t.Logf("exited 130 after %v; stderr: %s", time.Since(sent), stderr.String())
		})
	}
}
