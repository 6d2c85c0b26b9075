//go:build !checkonly

package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/testkit/syncbuf"

	"github.com/mcpwatch/mcpwatch/internal/testkit/fixture"
	"github.com/mcpwatch/mcpwatch/internal/testkit/pgtest"
	"github.com/mcpwatch/mcpwatch/internal/units/unitstest"
	"github.com/mcpwatch/mcpwatch/store"
)

func serveFixture(t *testing.T, fault fixture.Fault) string {
	t.Helper()
	srv, err := fixture.New(fixture.Config{Fault: fault})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	return ts.URL + "/mcp"
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// latestRuns returns, per server name, the latest run of each enabled-or-not server.
func latestRuns(t *testing.T, st *store.Store) map[string]store.RunRecord {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	servers, err := st.Servers(ctx)
	if err != nil {
		return nil // not migrated yet
	}
	out := map[string]store.RunRecord{}
	for _, s := range servers {
		runs, err := st.Runs(ctx, store.RunQuery{ServerID: s.ID, Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(runs) == 1 {
			out[s.Name] = runs[0]
		}
	}
	return out
}

func waitUntil(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within %v: %s", within, what)
		}
		time.Sleep(50 * time.Millisecond) // the database is polled: no event to wait on
	}
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// One command against an empty database: it migrates, syncs the file's servers, probes them
// (HTTP and stdio), writes their runs with exact codes, serves metrics, reloads the file on
// the reload signal and stops with exit 0.
func TestRunMonitorsTheConfigAndStopsGracefully(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	dir := t.TempDir()
	config := filepath.Join(dir, "mcpwatch.yaml")
	good, broken := serveFixture(t, fixture.Conformant), serveFixture(t, fixture.InitError)
	writeFile(t, config, fmt.Sprintf(`concurrency: 4
shutdownGrace: 5s
defaults:
  schedule: "@every 1s"
  timeout: 5s
servers:
  - name: good
    url: %s
    headers:
      Authorization: {fromEnv: TEST_TOKEN, prefix: "Bearer "}
  - name: broken
    url: %s
  - name: exits
    command: [sh, -c, "exit 3"]
`, good, broken))
	metrics := freeAddr(t)
	var stdout bytes.Buffer
	var stderr syncbuf.Buffer
	env := environment{stdout: &stdout, stderr: &stderr, lookupEnv: func(k string) (string, bool) {
		if k == "TEST_TOKEN" {
			return "t0ken", true
		}
		return "", false
	}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	reload := make(chan os.Signal, 1)
	code := make(chan int, 1)
	go func() {
		code <- env.runMonitor(ctx, []string{"--config", config, "--database-url", db.URL, "--region", "eu",
			"--worker", "w1", "--metrics-addr", metrics, "--spool-dir", filepath.Join(dir, "spool")}, reload)
	}()

	st := openTestStore(t, db.URL)
	waitUntil(t, time.Minute, "runs of all three servers", func() bool { return len(latestRuns(t, st)) == 3 })
	runs := latestRuns(t, st)
	if r := runs["good"]; r.Outcome != store.OutcomeUp || r.Region != "eu" || r.Worker != "w1" || r.ToolCount == nil {
		t.Errorf("good: %+v, want up in eu by w1 with a tool count", r)
	}
	if r := runs["broken"]; r.Outcome != store.OutcomeDown || r.ErrorCode == nil || *r.ErrorCode != -32603 {
		t.Errorf("broken: %+v, want down with error code -32603", r)
	}
	if r := runs["exits"]; r.Outcome != store.OutcomeDown || r.ExitStatus == nil || *r.ExitStatus != 3 {
		t.Errorf("exits: %+v, want down with exit status 3", r)
	}

	status, body := get(t, "http://"+metrics+"/metrics")
	if status != http.StatusOK || !strings.Contains(body, `mcpwatch_probes_total{outcome="up",region="eu"}`) ||
		!strings.Contains(body, "mcpwatch_scheduling_lag_seconds_bucket") || !strings.Contains(body, `mcpwatch_probe_step_latency_seconds_count{outcome="ok",step="initialize"}`) ||
		!strings.Contains(body, "process_resident_memory_bytes") {
		t.Errorf("/metrics: %d\n%.2000s", status, body)
	}
	if status, body = get(t, "http://"+metrics+"/healthz"); status != http.StatusOK || !strings.Contains(body, `"ok":true`) {
		t.Errorf("/healthz: %d %s", status, body)
	}

	// An invalid file is refused and the running configuration stays.
	writeFile(t, config, "servers:\n  - name: x\n    url: nope\n")
	reload <- syscall.SIGHUP
	waitUntil(t, 30*time.Second, "the invalid reload refused", func() bool {
		return strings.Contains(stderr.String(), "configuration not reloaded") && strings.Contains(stderr.String(), "mcpwatch.yaml:3:10: servers[0].url")
	})

	// A valid one replaces the servers: broken goes, second comes.
	writeFile(t, config, fmt.Sprintf(`defaults:
  schedule: "@every 1s"
  timeout: 5s
servers:
  - name: good
    url: %s
    headers:
      Authorization: {fromEnv: TEST_TOKEN, prefix: "Bearer "}
  - name: exits
    command: [sh, -c, "exit 3"]
  - name: second
    url: %s
`, good, good))
	reload <- syscall.SIGHUP
	waitUntil(t, time.Minute, "runs of the server added by the reload", func() bool { _, ok := latestRuns(t, st)["second"]; return ok })
	s, err := st.ServerByName(t.Context(), "broken")
	if err != nil || s.Enabled {
		t.Errorf("broken after the reload: %+v, %v; want disabled", s, err)
	}

	cancel()
	expectCleanStop(t, code, &stderr)
	if !strings.Contains(stderr.String(), "stopped") {
		t.Errorf("no clean stop in the log:\n%s", stderr.String())
	}
	if strings.Contains(stderr.String(), "t0ken") {
		t.Error("the header's value is in the log")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "spool", "*.spool"))
	if len(files) != 0 {
		t.Errorf("spool files left after a clean stop with the database up: %v", files)
	}
}

func openTestStore(t *testing.T, url string) *store.Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, err := store.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	return st
}

// The memory budget of `prober run` reads the grammar of the configuration's sizes, which the
// file's spool.max-bytes once refused in the short form 16M.
func TestMemoryBudgetReadsTheGrammarOfTheConfiguration(t *testing.T) {
	for _, r := range unitstest.Sizes(t) {
		f, err := parseMonitorArgs([]string{"--config", "x.yaml", "--memory-budget", r.In})
		if ok := r.OK && r.Want >= 16<<20; (err == nil) != ok || (ok && f.memoryBudget != r.Want) {
			t.Errorf("--memory-budget %q: %v", r.In, err)
		}
	}
}

func TestRunUsageAndConfigErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	writeFile(t, bad, "servers:\n  - name: a\n    url: http://127.0.0.1:1/mcp\n    schedule: sometimes\n")
	good := filepath.Join(dir, "good.yaml")
	writeFile(t, good, "servers:\n  - name: a\n    url: http://127.0.0.1:1/mcp\n")
	short := filepath.Join(dir, "token")
	writeFile(t, short, "secret\n")
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no config", []string{"--database-url", "postgres://x@127.0.0.1:1/db"}, exitUsage, "--config is required"},
		{"an invalid config", []string{"--config", bad, "--database-url", "postgres://x@127.0.0.1:1/db"}, exitUsage, bad + `:4:15: servers[0].schedule: not a schedule: "sometimes"`},
		{"a missing config", []string{"--config", filepath.Join(dir, "nope.yaml")}, exitUsage, "nope.yaml: no such file"},
		{"a data directory and a database", []string{"--config", good, "--data-dir", dir, "--database-url", "postgres://x@127.0.0.1:1/db"}, exitUsage, "--data-dir is the directory of the database prober runs itself"},
		{"a data directory of other files", []string{"--config", good, "--data-dir", dir}, exitUsage, "unusable data directory: "},
		{"an admin token without --listen", []string{"--config", good, "--admin-token-file", good}, exitUsage, "--admin-token-file needs --listen"},
		{"a short admin token", []string{"--config", good, "--listen", "127.0.0.1:0", "--admin-token-file", short}, exitUsage, "--admin-token-file: the token must be at least 16 characters"},
		{"private without a token", []string{"--config", good, "--listen", "127.0.0.1:0", "--private"}, exitUsage, "--private needs --admin-token-file"},
		{"a bad concurrency", []string{"--config", good, "--concurrency", "0"}, exitUsage, "--concurrency 0"},
		{"a bad log level", []string{"--config", good, "--log-level", "loud"}, exitUsage, "--log-level"},
		{"a memory budget too small", []string{"--config", good, "--memory-budget", "1MiB"}, exitUsage, `--memory-budget "1MiB"`},
		{"an argument", []string{"--config", good, "extra"}, exitUsage, `unexpected argument "extra"`},
		{"an unparsable database URL", []string{"--config", good, "--database-url", "postgres://%zz"}, exitUsage, "--database-url"},
		{"help", []string{"--help"}, exitOK, "prober run: monitor the servers of a configuration file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := testEnv(&out, &errb, nil).runMonitor(t.Context(), tt.args, nil)
			if code != tt.code || !strings.Contains(out.String()+errb.String(), tt.want) {
				t.Errorf("exit %d, output %q; want %d and %q", code, out.String()+errb.String(), tt.code, tt.want)
			}
		})
	}
}

// The real process: SIGHUP reloads the file, SIGTERM stops with exit 0.
func TestRunAsAProcessReloadsOnSIGHUPAndStopsOnSIGTERM(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	dir := t.TempDir()
	config := filepath.Join(dir, "mcpwatch.yaml")
	url := serveFixture(t, fixture.Conformant)
	server := func(name string) string { return fmt.Sprintf("  - name: %s\n    url: %s\n", name, url) }
	head := "defaults:\n  schedule: \"@every 1s\"\n  timeout: 5s\nservers:\n"
	writeFile(t, config, head+server("first"))

	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var stderr syncbuf.Buffer
	cmd := exec.Command(exe, "run", "--config", config, "--database-url", db.URL, "--spool-dir", filepath.Join(dir, "spool"))
	cmd.Env = append(os.Environ(), asMainEnv+"=1")
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{}) // closed once Wait returned, with its error in waitErr
	var waitErr error
	go func() {
		waitErr = cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})

	st := openTestStore(t, db.URL)
	waitUntil(t, time.Minute, "runs of the first server", func() bool { _, ok := latestRuns(t, st)["first"]; return ok })
	writeFile(t, config, head+server("first")+server("second"))
	if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, time.Minute, "runs of the server added on SIGHUP", func() bool { _, ok := latestRuns(t, st)["second"]; return ok })
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
		if waitErr != nil {
			t.Errorf("exit after SIGTERM: %v, want 0\n%s", waitErr, stderr.String())
		}
	case <-time.After(time.Minute):
		t.Fatalf("no exit within a minute of SIGTERM\n%s", stderr.String())
	}
}

// expectCleanStop waits for a stopped `prober run` to exit 0, within a minute.
func expectCleanStop(t *testing.T, code <-chan int, stderr *syncbuf.Buffer) {
	t.Helper()
	select {
	case c := <-code:
		if c != exitOK {
			t.Errorf("exit %d after the stop, want 0\n%s", c, stderr.String())
		}
	case <-time.After(time.Minute):
		t.Fatalf("prober run did not stop within a minute\n%s", stderr.String())
	}
}

// The monitor's own status site names the maintenance window in force for a server: the
// monitor has the alerts section, a separate `api` does not.
func TestRunListenShowsTheMaintenanceWindowInForce(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	dir := t.TempDir()
	config := filepath.Join(dir, "mcpwatch.yaml")
	writeFile(t, config, fmt.Sprintf(`defaults:
  schedule: "@every 1s"
  timeout: 5s
servers:
  - name: good
    url: %s
alerts:
  maintenance:
    - name: weekly deploy
      schedule: "* * * * *"
      duration: 2h
`, serveFixture(t, fixture.Conformant)))
	site := freeAddr(t)
	var stderr syncbuf.Buffer
	env := environment{stdout: &bytes.Buffer{}, stderr: &stderr, lookupEnv: func(string) (string, bool) { return "", false }}
	ctx, cancel := context.WithCancel(context.Background())
	code := make(chan int, 1)
	go func() {
		code <- env.runMonitor(ctx, []string{"--config", config, "--database-url", db.URL, "--worker", "w1",
			"--listen", site, "--spool-dir", filepath.Join(dir, "spool")}, nil)
	}()
	defer func() {
		cancel()
		expectCleanStop(t, code, &stderr)
	}()
	var page string
	waitUntil(t, time.Minute, "the status page with a run of good", func() bool {
		resp, err := http.Get("http://" + site + "/") // refused until the site listens
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		page = string(body)
		return resp.StatusCode == http.StatusOK && strings.Contains(page, `href="/servers/good"`) && !strings.Contains(page, "No run yet")
	})
	if !strings.Contains(page, "Maintenance window weekly deploy in force until") {
		t.Errorf("the status page does not name the window in force:\n%.3000s", page)
	}
}
