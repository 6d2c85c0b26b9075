//go:build !checkonly

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/testkit/syncbuf"

	"github.com/mcpwatch/mcpwatch/internal/testkit/pgtest"
)

// Two `prober run` on one database: a's file adds beta, b starts from an older file without
// it. b's sync is refused, which its log and /metrics say, and beta stays; b restarted with
// --force-sync applies its file, beta goes, and the log says it was forced.
func TestRunRefusesAnOlderFileUnlessForced(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	dir := t.TempDir()
	config := func(name string, written time.Time, servers ...string) string {
		path := filepath.Join(dir, name)
		body := "defaults:\n  schedule: \"@every 1h\"\n  timeout: 1s\nservers:\n"
		for i, s := range servers {
			body += fmt.Sprintf("  - name: %s\n    url: http://127.0.0.1:%d/mcp\n", s, i+1)
		}
		writeFile(t, path, body)
		if err := os.Chtimes(path, written, written); err != nil {
			t.Fatal(err)
		}
		return path
	}
	now := time.Now()
	newer := config("a.yaml", now, "alpha", "beta")
	older := config("b.yaml", now.Add(-time.Hour), "alpha")
	run := func(worker, file string, extra ...string) (*syncbuf.Buffer, func()) {
		var stderr syncbuf.Buffer
		env := environment{stdout: &syncbuf.Buffer{}, stderr: &stderr, lookupEnv: func(string) (string, bool) { return "", false }}
		ctx, cancel := context.WithCancel(context.Background())
		code := make(chan int, 1)
		args := append([]string{"--config", file, "--database-url", db.URL, "--worker", worker,
			"--spool-dir", filepath.Join(dir, "spool")}, extra...)
		go func() { code <- env.runMonitor(ctx, args, nil) }()
		stop := func() {
			cancel()
			expectCleanStop(t, code, &stderr)
		}
		t.Cleanup(cancel)
		return &stderr, stop
	}
	st := openTestStore(t, db.URL)
	betaEnabled := func() bool {
		s, err := st.ServerByName(t.Context(), "beta")
		return err == nil && s.Enabled
	}

	logsA, stopA := run("a", newer)
	defer stopA()
	waitUntil(t, 30*time.Second, "a synced", func() bool { return strings.Contains(logsA.String(), "configuration synced") })

	metrics := freeAddr(t)
	logsB, stopB := run("b", older, "--metrics-addr", metrics)
	waitUntil(t, 30*time.Second, "b refused", func() bool { return strings.Contains(logsB.String(), "configuration not synced") })
	waitUntil(t, 30*time.Second, "b's metrics served", func() bool { return strings.Contains(logsB.String(), "serving /metrics") })
	if !betaEnabled() {
		t.Fatal("beta disabled by b's older file")
	}
	if _, body := get(t, "http://"+metrics+"/metrics"); !strings.Contains(body, "mcpwatch_config_stale 1") ||
		!strings.Contains(body, `mcpwatch_config_syncs_total{result="refused"} 1`) {
		t.Errorf("b's /metrics does not count the refusal:\n%s", body)
	}
	stopB()

	logsF, stopF := run("b", older, "--force-sync")
	defer stopF()
	waitUntil(t, 30*time.Second, "b forced", func() bool { return strings.Contains(logsF.String(), "synced although older") })
	if betaEnabled() {
		t.Error("beta still enabled after b's file was forced")
	}
	// Stopped only once started: a stop while it registers its region is another test's.
	waitUntil(t, 30*time.Second, "b started", func() bool { return strings.Contains(logsF.String(), "worker started") })
	for _, line := range strings.Split(logsF.String(), "\n") {
		if strings.Count(line, " worker=") > 1 || strings.Count(line, " region=") > 1 {
			t.Errorf("a log line names the worker or region twice: %s", line)
		}
	}
}

func TestForceSyncIsAFlagOfRun(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{[]string{"--config", "x.yaml"}, false},
		{[]string{"--config", "x.yaml", "--force-sync"}, true},
		{[]string{"--config", "x.yaml", "--force-sync=false"}, false},
	} {
		f, err := parseMonitorArgs(tc.args)
		if err != nil || f.forceSync != tc.want {
			t.Errorf("%q: force %v, %v; want %v", tc.args, f != nil && f.forceSync, err, tc.want)
		}
	}
	var help syncbuf.Buffer
	writeMonitorHelp(&help)
	if !strings.Contains(help.String(), "--force-sync") {
		t.Error("the help of run does not document --force-sync")
	}
}
