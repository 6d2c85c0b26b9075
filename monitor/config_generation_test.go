package monitor

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/testkit/syncbuf"

	"github.com/mcpwatch/mcpwatch/internal/metrics"
	"github.com/mcpwatch/mcpwatch/internal/testkit/pgtest"
	"github.com/mcpwatch/mcpwatch/store"
)

func TestGenerationHashesTheServersAsSyncedOnly(t *testing.T) {
	t.Parallel()
	const base = `region: eu
concurrency: 4
defaults: {schedule: "@every 1m"}
servers:
  - name: alpha
    url: http://127.0.0.1:1/mcp
  - name: beta
    url: http://127.0.0.1:2/mcp
`
	parse := func(t *testing.T, body string) string {
		t.Helper()
		cfg, err := ParseConfig("mcpwatch.yaml", []byte(body))
		if err != nil {
			t.Fatal(err)
		}
		gen, err := cfg.Generation()
		if err != nil {
			t.Fatal(err)
		}
		if len(gen.Hash) != 64 || gen.Path != "mcpwatch.yaml" {
			t.Fatalf("generation %+v: want a SHA-256 hex hash and the path", gen)
		}
		return gen.Hash
	}
	want := parse(t, base)
	for _, tc := range []struct {
		name string
		body string
		same bool
	}{
		{"another region, concurrency and comments", strings.NewReplacer("region: eu", "region: us # the other one",
			"concurrency: 4", "concurrency: 8").Replace(base), true},
		{"the servers in another order", `region: eu
concurrency: 4
defaults: {schedule: "@every 1m"}
servers:
  - name: beta
    url: http://127.0.0.1:2/mcp
  - name: alpha
    url: http://127.0.0.1:1/mcp
`, true},
		{"the default written out", strings.Replace(base, "    url: http://127.0.0.1:2/mcp\n", "    url: http://127.0.0.1:2/mcp\n    schedule: \"@every 1m\"\n", 1), true},
		{"a server more", base + "  - name: gamma\n    url: http://127.0.0.1:3/mcp\n", false},
		{"a server fewer", strings.Replace(base, "  - name: beta\n    url: http://127.0.0.1:2/mcp\n", "", 1), false},
		{"another url", strings.Replace(base, "127.0.0.1:2", "127.0.0.1:4", 1), false},
		{"another default schedule", strings.Replace(base, "@every 1m", "@every 2m", 1), false},
		{"a server disabled", strings.Replace(base, "127.0.0.1:2/mcp\n", "127.0.0.1:2/mcp\n    enabled: false\n", 1), false},
	} {
		if got := parse(t, tc.body); (got == want) != tc.same {
			t.Errorf("%s: hash %s against %s, want same %v", tc.name, got[:12], want[:12], tc.same)
		}
	}
}

func TestLoadConfigTakesTheFilesModificationTime(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "mcpwatch.yaml")
	if err := os.WriteFile(path, []byte("servers: []\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	written := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	if err := os.Chtimes(path, written, written); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	if gen, _ := cfg.Generation(); !gen.Time.Equal(written) {
		t.Errorf("generation time %v, want the file's %v", gen.Time, written)
	}
}

// writeConfig writes a configuration file with the given modification time and loads it.
func writeConfig(t *testing.T, path, body string, written time.Time) *Config {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, written, written); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// fleetConfig is a file of one region listing the given servers, all unreachable, probed
// rarely: the tests read what the sync did, not probes.
func fleetConfig(spool string, names ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "shutdown-grace: 2s\nspool:\n  dir: %s\ndefaults:\n  schedule: \"@every 1h\"\n  timeout: 1s\nservers:\n", spool)
	for i, n := range names {
		fmt.Fprintf(&b, "  - name: %s\n    url: http://127.0.0.1:%d/mcp\n", n, i+1)
	}
	return b.String()
}

// The operator's scenario of issue 22: worker A runs with a file that adds beta; worker C
// starts from a copy of the same file made earlier; worker B starts from an older file that
// lacks beta. C and A never refuse each other; B's sync is refused (logged, counted), beta
// stays enabled and B runs on. Reloading the same stale file is refused again; once the
// operator edits B's file and reloads, it is applied.
func TestAWorkersStaleFileDisablesNothingFleetWide(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	dir := t.TempDir()
	now := time.Now()
	start := func(name string, cfg *Config) (*Service, *syncbuf.Buffer) {
		t.Helper()
		var logs syncbuf.Buffer
		svc, err := Start(t.Context(), cfg, ServiceOptions{
			DatabaseURL: db.URL, Migrate: true, Worker: name, LookupEnv: func(string) (string, bool) { return "", false },
			Version: "test", Logger: slog.New(slog.NewTextHandler(&logs, nil)),
		})
		if err != nil {
			t.Fatalf("start %s: %v", name, err)
		}
		t.Cleanup(func() { _ = svc.Stop(context.Background()) })
		return svc, &logs
	}
	newer := fleetConfig(filepath.Join(dir, "spool"), "alpha", "beta")
	_, logsA := start("a", writeConfig(t, filepath.Join(dir, "a.yaml"), newer, now))
	_, logsC := start("c", writeConfig(t, filepath.Join(dir, "c.yaml"), newer, now.Add(-2*time.Hour)))
	pathB := filepath.Join(dir, "b.yaml")
	svcB, logsB := start("b", writeConfig(t, pathB, fleetConfig(filepath.Join(dir, "spool"), "alpha"), now.Add(-time.Hour)))

	st := openStore(t, db.URL)
	enabled := func(name string) bool {
		t.Helper()
		s, err := st.ServerByName(t.Context(), name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return s.Enabled
	}
	if !enabled("beta") {
		t.Fatal("beta was disabled by the worker started from the older file")
	}
	for name, logs := range map[string]*syncbuf.Buffer{"a": logsA, "c": logsC} {
		if strings.Contains(logs.String(), "not synced") || !strings.Contains(logs.String(), "configuration synced") {
			t.Errorf("worker %s, from the newer file or a copy of it, did not sync:\n%s", name, logs.String())
		}
	}
	line := logsB.String()
	for _, want := range []string{"level=ERROR", "configuration not synced", "older than the one synced last", "--force-sync",
		"config=" + pathB, "synced.config=" + filepath.Join(dir, "a.yaml"), "synced.worker=a"} {
		if !strings.Contains(line, want) {
			t.Errorf("the refusal does not say %q:\n%s", want, line)
		}
	}
	if stale, refused := svcB.m.configStale.Value(), svcB.m.configSyncs.WithLabelValues(syncRefused).Value(); stale != 1 || refused != 1 {
		t.Errorf("worker b counts stale %v, refused %v; want 1 and 1", stale, refused)
	}
	select {
	case <-svcB.Done():
		t.Fatalf("worker b stopped after the refusal: %v", svcB.Err())
	default:
	}

	// SIGHUP with the same stale file: refused again, the running configuration stays.
	again, err := LoadConfig(pathB)
	if err != nil {
		t.Fatal(err)
	}
	if err := svcB.Reload(t.Context(), again); !errors.Is(err, store.ErrStaleGeneration) {
		t.Errorf("reload of the same stale file: %v, want ErrStaleGeneration", err)
	}
	if !enabled("beta") || svcB.m.configSyncs.WithLabelValues(syncRefused).Value() != 2 {
		t.Errorf("after a reload of the stale file: beta enabled %v, refusals %v; want true, 2",
			enabled("beta"), svcB.m.configSyncs.WithLabelValues(syncRefused).Value())
	}

	// The operator edits b's file (written now) and sends SIGHUP: applied as written.
	edited := writeConfig(t, pathB, fleetConfig(filepath.Join(dir, "spool"), "alpha", "gamma"), time.Now())
	if err := svcB.Reload(t.Context(), edited); err != nil {
		t.Fatalf("reload of the edited file: %v", err)
	}
	if enabled("beta") || !enabled("gamma") {
		t.Errorf("after the edited file: beta enabled %v, gamma enabled %v; want false, true", enabled("beta"), enabled("gamma"))
	}
	if stale := svcB.m.configStale.Value(); stale != 0 {
		t.Errorf("worker b still counts its file stale (%v) after the edited file was synced", stale)
	}
}

// --force-sync applies an older file, says so and counts it; the file is then the recorded
// generation.
func TestForcedSyncAppliesAnOlderFileAndSaysSo(t *testing.T) {
	t.Parallel()
	_, pool := pgtest.Migrated(t)
	st := store.New(pool)
	ctx := t.Context()
	dir := t.TempDir()
	m, err := NewMetrics(metrics.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	var logs syncbuf.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	now := time.Now()
	newer := writeConfig(t, filepath.Join(dir, "a.yaml"), fleetConfig(dir, "alpha", "beta"), now)
	older := writeConfig(t, filepath.Join(dir, "b.yaml"), fleetConfig(dir, "alpha"), now.Add(-time.Hour))
	if err := syncConfig(ctx, st, newer, syncOptions{worker: "a"}, m, log); err != nil {
		t.Fatal(err)
	}
	if err := syncConfig(ctx, st, older, syncOptions{worker: "b"}, m, log); !errors.Is(err, store.ErrStaleGeneration) {
		t.Fatalf("unforced sync of the older file: %v, want ErrStaleGeneration", err)
	}
	if err := syncConfig(ctx, st, older, syncOptions{worker: "b", force: true}, m, log); err != nil {
		t.Fatalf("forced sync: %v", err)
	}
	if s, err := st.ServerByName(ctx, "beta"); err != nil || s.Enabled {
		t.Errorf("beta after the forced sync: %+v, %v; want disabled", s, err)
	}
	for _, want := range []string{"level=WARN", "synced although older", "--force-sync", "replaced.worker=a", "disabled=[beta]"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("the forced sync's log does not say %q:\n%s", want, logs.String())
		}
	}
	for result, want := range map[string]float64{syncSynced: 1, syncRefused: 1, syncForced: 1, syncFailed: 0} {
		if got := m.configSyncs.WithLabelValues(result).Value(); got != want {
			t.Errorf("syncs %s: %v, want %v", result, got, want)
		}
	}
	if m.configStale.Value() != 0 {
		t.Errorf("stale %v after the forced sync, want 0", m.configStale.Value())
	}
	g, err := st.ConfigGeneration(ctx, store.SourceConfig)
	if gen, _ := older.Generation(); err != nil || g.Hash != gen.Hash || g.Worker != "b" {
		t.Errorf("recorded generation %+v, %v; want b's file", g, err)
	}
}
