package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/dbenv"
	"github.com/mcpwatch/mcpwatch/internal/testkit/pgtest"
)

func TestFlagsAreCheckedBeforeAnythingStarts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := filepath.Join(dir, "token")
	short := filepath.Join(dir, "short")
	if err := os.WriteFile(good, []byte("  a-long-enough-admin-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(short, []byte("tiny"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := func(string) string { return "" }
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{}, exitUsage, "--database-url"},
		{[]string{"--database-url", "postgres://x", "extra"}, exitUsage, "unexpected argument"},
		{[]string{"--database-url", "postgres://x", "--admin-token-file", filepath.Join(dir, "missing")}, exitUsage, "--admin-token-file"},
		{[]string{"--database-url", "postgres://x", "--admin-token-file", short}, exitUsage, "at least 16"},
		{[]string{"--database-url", "postgres://x", "--private"}, exitUsage, "--private needs"},
		{[]string{"--database-url", "postgres://x", "--allow-private", "10.0.0.0/99"}, exitUsage, "--allow-private"},
		{[]string{"--database-url", "postgres://x", "--log-format", "xml"}, exitUsage, "--log-format"},
		{[]string{"--database-url", "postgres://x", "--dashboard-url", "status.example.com"}, exitUsage, "--dashboard-url"},
		{[]string{"--no-such-flag"}, exitUsage, "flag provided but not defined"},
		{[]string{"--help"}, exitOK, ""},
	} {
		var stdout, stderr bytes.Buffer
		_, code, ok := parseFlags(tc.args, &stdout, &stderr, env)
		if ok || code != tc.code || !strings.Contains(stderr.String(), tc.msg) {
			t.Errorf("%q: ok %v code %d, stderr %q; want code %d mentioning %q", tc.args, ok, code, stderr.String(), tc.code, tc.msg)
		}
	}
	cfg, _, ok := parseFlags([]string{"--admin-token-file", good, "--allow-private", "10.0.0.0/8,192.168.1.1", "--private"}, io.Discard, io.Discard,
		func(k string) string { return map[string]string{dbenv.Primary: "postgres://from-env"}[k] })
	if !ok || cfg.databaseURL != "postgres://from-env" || cfg.adminToken != "a-long-enough-admin-token" || len(cfg.allow) != 2 || !cfg.private {
		t.Errorf("parsed %+v", cfg)
	}
	var help bytes.Buffer
	parseFlags([]string{"--help"}, &help, io.Discard, env)
	if !strings.Contains(help.String(), "/badge/NAME/status.svg") {
		t.Errorf("help: %s", help.String())
	}
}

// The database comes from the flag, else the variables prober reads, in prober's order.
func TestTheDatabaseURLFallsBackAsProbersDoes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"the flag first", []string{"--database-url", "postgres://flag"}, map[string]string{dbenv.Primary: "postgres://a", dbenv.Fallback: "postgres://b"}, "postgres://flag"},
		{"then MCPWATCH_DATABASE_URL", nil, map[string]string{dbenv.Primary: "postgres://a", dbenv.Fallback: "postgres://b"}, "postgres://a"},
		{"then DATABASE_URL", nil, map[string]string{dbenv.Fallback: "postgres://b"}, "postgres://b"},
	} {
		cfg, code, ok := parseFlags(tc.args, io.Discard, io.Discard, func(k string) string { return tc.env[k] })
		if !ok || code != exitOK || cfg.databaseURL != tc.want {
			t.Errorf("%s: %q (ok %v, code %d), want %q", tc.name, cfg.databaseURL, ok, code, tc.want)
		}
	}
	var stderr bytes.Buffer
	if _, code, _ := parseFlags(nil, io.Discard, &stderr, func(string) string { return "" }); code != exitUsage ||
		!strings.Contains(stderr.String(), "$MCPWATCH_DATABASE_URL, or $DATABASE_URL") {
		t.Errorf("no database at all: code %d, %q", code, stderr.String())
	}
}

// Asked for, the usage is printed once, to stdout; a bad flag gets its error and a hint on
// stderr, not the whole usage.
func TestHelpIsPrintedOnce(t *testing.T) {
	t.Parallel()
	for _, arg := range []string{"--help", "-help", "-h"} {
		var stdout, stderr bytes.Buffer
		_, code, ok := parseFlags([]string{arg}, &stdout, &stderr, func(string) string { return "" })
		if ok || code != exitOK || strings.Count(stdout.String(), "Usage: api") != 1 || strings.Count(stdout.String(), "  -listen string") != 1 || stderr.Len() != 0 {
			t.Errorf("%s: code %d, stdout %d usages, stderr %q; want exit 0, one usage on stdout, nothing on stderr",
				arg, code, strings.Count(stdout.String(), "Usage: api"), stderr.String())
		}
	}
	var stdout, stderr bytes.Buffer
	if _, code, _ := parseFlags([]string{"--no-such-flag"}, &stdout, &stderr, func(string) string { return "" }); code != exitUsage ||
		stdout.Len() != 0 || strings.Contains(stderr.String(), "Usage: api") || !strings.Contains(stderr.String(), "Run 'api --help'") {
		t.Errorf("a bad flag: code %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
}

// api migrates the database, serves, and shuts down cleanly when its context ends.
func TestServeAnswersAndShutsDownGracefully(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	addr := make(chan string, 1)
	done := make(chan int, 1)
	lw := &lockedWriter{w: new(bytes.Buffer)}
	go func() {
		done <- serveWith(ctx, config{listen: "127.0.0.1:0", databaseURL: db.URL, migrate: true, logFormat: "json"},
			lw, func(a string) { addr <- a })
	}()
	var base string
	select {
	case a := <-addr:
		base = "http://" + a
	case code := <-done:
		t.Fatalf("api ended with %d before listening: %s", code, lw.String())
	case <-time.After(60 * time.Second):
		t.Fatal("api did not start listening")
	}
	for _, p := range []string{"/healthz", "/readyz", "/api/v1/servers", "/badge/x/status.svg", "/metrics"} {
		resp, err := http.Get(base + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		want := 200
		if strings.HasPrefix(p, "/badge/") {
			want = 404
		}
		if resp.StatusCode != want {
			t.Errorf("GET %s: %d, want %d", p, resp.StatusCode, want)
		}
	}
	cancel()
	select {
	case code := <-done:
		if code != exitOK {
			t.Errorf("exit %d: %s", code, lw.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("api did not shut down")
	}
}
