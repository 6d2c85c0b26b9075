//go:build !checkonly

package main

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/testkit/syncbuf"

	"github.com/mcpwatch/mcpwatch/internal/pgembed"
	"github.com/mcpwatch/mcpwatch/internal/testkit/modroot"
)

// quickStartDeadline is what the README promises: a probe on the status page within a
// minute of the command.
const quickStartDeadline = 60 * time.Second

// The README's operator quick start, as written: `go run ./cmd/prober run --config
// examples/fleet.yaml --listen ADDR` from the clone, with the machine's PostgreSQL server
// binaries and no database set up, shows a probed server up on the status page within a
// minute, and a Ctrl-C stops it and the database it started. The test only gives port 0 and a
// data directory of its own; as root, the server runs as the postgres user.
func TestQuickStartShowsAProbeOnTheStatusPageWithinAMinute(t *testing.T) {
	if _, err := pgembed.FindBinaries(t.Context(), pgembed.Search{Path: os.Getenv("PATH"), Globs: pgembed.DefaultSearch()}, 0); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI installs PostgreSQL: %v", err)
		}
		t.Skipf("needs PostgreSQL's server binaries: %v", err)
	}
	root := modroot.Of(t)
	tmp := t.TempDir()
	// The server's user (postgres, when this runs as root) must reach the data directory.
	for _, d := range []string{filepath.Dir(tmp), tmp} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	dataDir := filepath.Join(tmp, "pg")
	cmd := exec.Command("go", "run", "./cmd/prober", "run", "--config", "examples/fleet.yaml",
		"--listen", "127.0.0.1:0", "--data-dir", dataDir)
	cmd.Dir = root
	// The spool stays out of the user's cache; the rest of the environment is the user's.
	// Go's build cache lives under XDG_CACHE_HOME too unless GOCACHE says where: kept where it
	// is, the command compiles what a user's machine has compiled already, instead of the
	// standard library from scratch within the minute measured.
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+filepath.Join(tmp, "cache"), "GOCACHE="+goEnv(t, "GOCACHE"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // a Ctrl-C reaches go run and prober
	var stderr syncbuf.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		// Ctrl-C at the terminal: go run waits for prober, which stops gracefully.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
		select {
		case <-exited:
			// go run exits 1 after an interrupt whatever its program's exit status; that
			// prober stopped in order its last log line says.
			if log := strings.TrimSpace(stderr.String()); !strings.HasSuffix(log, "msg=stopped worker="+workerOf(log)+" region=local") {
				t.Errorf("prober run did not stop in order after Ctrl-C:\n%s", log)
			}
		case <-time.After(time.Minute):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			t.Errorf("prober run did not stop within a minute of Ctrl-C\n%s", stderr.String())
		}
	}
	t.Cleanup(stop)

	addrRE := regexp.MustCompile(`msg="serving the status page and API".* addr=(127\.0\.0\.1:\d+)`)
	var base string
	var page string
	for deadline := start.Add(quickStartDeadline); ; time.Sleep(500 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no probe on the status page %s after %s; the status page:\n%.2000s\nthe log:\n%s", base, quickStartDeadline, page, stderr.String())
		}
		select {
		case err := <-exited:
			stopped = true
			t.Fatalf("prober run ended: %v\n%s", err, stderr.String())
		default:
		}
		if base == "" {
			m := addrRE.FindStringSubmatch(stderr.String())
			if m == nil {
				continue
			}
			base = "http://" + m[1]
		}
		page = tryGet(t, base+"/")
		if server := upRow(page); server != "" {
			t.Logf("%s up on the status page %.1fs after the command", server, time.Since(start).Seconds())
			break
		}
	}
	for path, says := range map[string]string{
		"/api/v1/servers":                     `"outcome":"up"`,
		"/badge/go-sdk-everything/status.svg": "<svg",
		"/metrics":                            "mcpwatch_",
	} {
		if body := tryGet(t, base+path); !strings.Contains(body, says) {
			t.Errorf("GET %s does not say %q:\n%.500s", path, says, body)
		}
	}
	log := stderr.String()
	for _, says := range []string{"dataDir=" + dataDir, `psql="psql \"host=` + dataDir} {
		if !strings.Contains(log, says) {
			t.Errorf("the log does not say %q:\n%s", says, log)
		}
	}

	stop()
	if _, err := os.Stat(filepath.Join(dataDir, "postmaster.pid")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the database still runs after prober stopped (postmaster.pid: %v)", err)
	}
}

// workerOf is the worker name in the log.
func workerOf(log string) string {
	if m := regexp.MustCompile(` worker=(\S+)`).FindStringSubmatch(log); m != nil {
		return m[1]
	}
	return ""
}

// upRow is the name of the first server of the fleet that the status page lists as up, ""
// when none is.
func upRow(page string) string {
	for _, item := range strings.Split(page, `<li class="server `)[1:] {
		for _, server := range []string{"go-sdk-everything", "reference-everything"} {
			if strings.HasPrefix(item, `s-up"`) && strings.Contains(item, ">"+server+"<") {
				return server
			}
		}
	}
	return ""
}

// tryGet is the body of a GET, "" when it fails (the caller waits and asks again).
func tryGet(t *testing.T, url string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// goEnv is a setting of the go command as this machine has it.
func goEnv(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Fatalf("go env %s: %v", name, err)
	}
	return strings.TrimSpace(string(out))
}
