package monitor

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/testkit/syncbuf"

	"github.com/mcpwatch/mcpwatch/internal/testkit/fixture"
	"github.com/mcpwatch/mcpwatch/internal/testkit/pgtest"
	"github.com/mcpwatch/mcpwatch/store"
)

// serviceConfig writes a configuration file of the given body and loads it.
func serviceConfig(t *testing.T, path, body string) *Config {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// latestRunsByName returns, per server name, the latest stored run.
func latestRunsByName(t *testing.T, st *store.Store) map[string]store.RunRecord {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	servers, err := st.Servers(ctx)
	if err != nil {
		t.Fatal(err)
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

func pollUntil(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within %v: %s", within, what)
		}
		time.Sleep(50 * time.Millisecond) // the database is polled: no event to wait on
	}
}

// A started service migrates an empty database, probes the file's servers, applies a reload
// (its servers at once, its other settings only at the next start, which it says), and
// stops in order: the worker's Run returns nil, the buffer leaves no spool file behind and
// the database is let go.
func TestServiceStartsReloadsAndStops(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	srv, err := fixture.New(fixture.Config{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	dir := t.TempDir()
	spool := filepath.Join(dir, "spool")
	path := filepath.Join(dir, "mcpwatch.yaml")
	cfg := serviceConfig(t, path, fmt.Sprintf(`concurrency: 2
shutdownGrace: 5s
spool:
  dir: %s
defaults:
  schedule: "@every 1s"
  timeout: 5s
servers:
  - name: first
    url: %s/mcp
`, spool, ts.URL))
	var logs syncbuf.Buffer
	svc, err := Start(t.Context(), cfg, ServiceOptions{
		DatabaseURL: db.URL, Migrate: true, Worker: "w1", LookupEnv: func(string) (string, bool) { return "", false },
		Version: "test", Logger: slog.New(slog.NewTextHandler(&logs, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			_ = svc.Stop(context.Background())
		}
	})
	st := openStore(t, db.URL)
	pollUntil(t, time.Minute, "a run of the file's server", func() bool {
		r, ok := latestRunsByName(t, st)["first"]
		return ok && r.Outcome == store.OutcomeUp && r.Worker == "w1"
	})

	// The servers change at once; the concurrency waits for the next start.
	next := serviceConfig(t, path, fmt.Sprintf(`concurrency: 3
shutdownGrace: 5s
spool:
  dir: %s
defaults:
  schedule: "@every 1s"
  timeout: 5s
servers:
  - name: second
    url: %s/mcp
`, spool, ts.URL))
	if err := svc.Reload(t.Context(), next); err != nil {
		t.Fatalf("Reload: %v", err)
	}
	pollUntil(t, time.Minute, "a run of the server the reload added", func() bool {
		_, ok := latestRunsByName(t, st)["second"]
		return ok
	})
	if s, err := st.ServerByName(t.Context(), "first"); err != nil || s.Enabled {
		t.Errorf("first after the reload: %+v, %v; want disabled", s, err)
	}
	if !strings.Contains(logs.String(), "take effect at the next start") {
		t.Errorf("a changed concurrency was not said to wait for the next start:\n%s", logs.String())
	}
	if next.Concurrency != 2 {
		t.Errorf("the running configuration says concurrency %d, want the 2 the worker was built with", next.Concurrency)
	}
	select {
	case <-svc.Done():
		t.Fatalf("the worker stopped before Stop: %v", svc.Err())
	default:
	}

	stopped = true
	if err := svc.Stop(t.Context()); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	select {
	case <-svc.Done():
	default:
		t.Fatal("Done is not closed after Stop")
	}
	if err := svc.Err(); err != nil {
		t.Errorf("the worker stopped with %v, want nil after a graceful stop", err)
	}
	if err := svc.Stop(t.Context()); err != nil {
		t.Errorf("a second Stop: %v", err)
	}
	if files, _ := filepath.Glob(filepath.Join(spool, "*.spool")); len(files) != 0 {
		t.Errorf("spool files left after a clean stop: %v", files)
	}
	if !strings.Contains(logs.String(), "worker stopped") || !strings.Contains(logs.String(), "msg=stopped") {
		t.Errorf("no orderly stop in the log:\n%s", logs.String())
	}
}

// A service whose database never answers waits until its context ends, then says so.
func TestServiceStartWaitsForTheDatabaseUntilItsContextEnds(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	cfg := serviceConfig(t, filepath.Join(t.TempDir(), "mcpwatch.yaml"), "servers: []\n")
	ctx, cancel := context.WithTimeout(t.Context(), 1500*time.Millisecond)
	defer cancel()
	started := time.Now()
	_, err = Start(ctx, cfg, ServiceOptions{DatabaseURL: "postgres://postgres@" + addr + "/none?sslmode=disable", Worker: "w1"})
	if !errors.Is(err, ErrStoppedWaiting) {
		t.Fatalf("Start: %v, want ErrStoppedWaiting", err)
	}
	if waited := time.Since(started); waited < time.Second {
		t.Errorf("gave up after %v, before its context ended", waited)
	}
}

// A start that fails half-way stops what it had started: the spool file it took is let go,
// so that the next start in the same directory gets it.
func TestServiceStartThatFailsLetsGoOfWhatItStarted(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	dir := t.TempDir()
	cfg := serviceConfig(t, filepath.Join(dir, "mcpwatch.yaml"), fmt.Sprintf("spool:\n  dir: %s\nservers: []\n", filepath.Join(dir, "spool")))
	opts := ServiceOptions{DatabaseURL: db.URL, Migrate: true, Worker: "w1", MetricsAddr: busy.Addr().String(),
		LookupEnv: func(string) (string, bool) { return "", false }}
	if _, err := Start(t.Context(), cfg, opts); err == nil || !strings.Contains(err.Error(), "--metrics-addr") {
		t.Fatalf("Start on a taken metrics address: %v, want a --metrics-addr error", err)
	}
	opts.MetricsAddr = ""
	svc, err := Start(t.Context(), cfg, opts)
	if err != nil {
		t.Fatalf("the next start: %v", err)
	}
	if err := svc.Stop(t.Context()); err != nil {
		t.Errorf("Stop: %v", err)
	}
}
