//go:build unix

package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hangingServerArgs probes a stdio fixture that never answers and ignores stdin EOF, so only
// the shutdown sequence can end it. It writes its pid to dir/pids once it runs.
func hangingServerArgs(t *testing.T, dir string) []string {
	return stdioArgs(t, modeHang, "--dir", dir, "--env", fixturePIDFileEnv+"=pids",
		"--shutdown-grace", "200ms", "--init-timeout", "60s", "--timeout", "90s")
}

// waitForServer returns once the fixture wrote its pid: the moment to interrupt.
func waitForServer(t *testing.T, pidFile string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if b, err := os.ReadFile(pidFile); err == nil && len(b) > 0 && b[len(b)-1] == '\n' {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the fixture server never started")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// assertServersGone checks that no process listed in the pid file exists any more (not even
// as a zombie: kill(pid, 0) succeeds on a zombie).
func assertServersGone(t *testing.T, pidFile string) {
	t.Helper()
	b, _ := os.ReadFile(pidFile)
	pids := strings.Fields(string(b))
	if len(pids) == 0 {
		t.Fatal("no server pid recorded")
	}
	for _, line := range pids {
		pid, err := strconv.Atoi(line)
		if err != nil {
			t.Fatalf("pid file: %q", b)
		}
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("server process %d still exists after prober returned (kill 0: %v)", pid, err)
		}
	}
}

// assertReportedAsInterrupted checks that a report of an interrupted probe says so and
// blames nothing on the server: no timeout, no failure, what was cut short untested.
func assertReportedAsInterrupted(t *testing.T, report string) {
	t.Helper()
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`probe error: interrupted after \d+(\.\d+)?m?s, before the probe finished`),
		// The hanging server never wrote a byte: the untested checks share one line.
		regexp.MustCompile(`(?m)^  all \d+: nothing came back from the server \(interrupted after \d+(\.\d+)?m?s, before the probe finished\); --verbose lists them$`),
		regexp.MustCompile(`(?m)^INTERRUPTED after \d+(\.\d+)?m?s, before the probe finished; \d+ checks untested, not passed$`),
	} {
		if !want.MatchString(report) {
			t.Errorf("the report does not match %s:\n%s", want, report)
		}
	}
	for _, unwanted := range []string{"timed out", "context canceled", "FAIL "} {
		if strings.Contains(report, unwanted) {
			t.Errorf("the report of an interrupted probe says %q:\n%s", unwanted, report)
		}
	}
}

func TestCheckInterruptShutsTheServerDownAndExits130(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type result struct {
		code           int
		stdout, stderr string
	}
	done := make(chan result, 1)
	start := time.Now()
	go func() {
		var out, errOut bytes.Buffer
		code := dispatch(ctx, hangingServerArgs(t, dir), &out, &errOut)
		done <- result{code, out.String(), errOut.String()}
	}()
	waitForServer(t, filepath.Join(dir, "pids"))
	cancel()
	var r result
	select {
	case r = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("prober did not return after the interrupt")
	}
	if r.code != exitInterrupted {
		t.Errorf("exit %d, want %d\n%s\n%s", r.code, exitInterrupted, r.stdout, r.stderr)
	}
	if elapsed := time.Since(start); elapsed > 20*time.Second {
		t.Errorf("took %s: the interrupt did not cut the 60s initialize wait short", elapsed)
	}
	assertReportedAsInterrupted(t, r.stdout)
	assertServersGone(t, filepath.Join(dir, "pids"))
}

// The same through a real SIGINT to a prober process: main wires the signal to the probe.
func TestSIGINTEndsProberAndShutsTheServerDown(t *testing.T) {
	dir := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	args := hangingServerArgs(t, dir)
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), asMainEnv+"=1")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	waitForServer(t, filepath.Join(dir, "pids"))
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("prober did not exit after SIGINT")
	}
	if code := cmd.ProcessState.ExitCode(); code != exitInterrupted {
		t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitInterrupted, out.String(), errOut.String())
	}
	assertReportedAsInterrupted(t, out.String())
	assertServersGone(t, filepath.Join(dir, "pids"))
}
