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
		func(k string) string { return map[string]string{envDatabaseURL: "postgres://from-env"}[k] })
	if !ok || cfg.databaseURL != "postgres://from-env" || cfg.adminToken != "a-long-enough-admin-token" || len(cfg.allow) != 2 || !cfg.private {
		t.Errorf("parsed %+v", cfg)
	}
	var help bytes.Buffer
	parseFlags([]string{"--help"}, &help, io.Discard, env)
	if !strings.Contains(help.String(), "/badge/NAME/status.svg") {
		t.Errorf("help: %s", help.String())
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
