package statussite

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/metrics"
	"github.com/mcpwatch/mcpwatch/internal/testkit/pgtest"
	"github.com/mcpwatch/mcpwatch/store"
)

// One listener serves the status page, the API, the badges and the metrics of the registry
// given; the site stops when its context ends.
func TestSiteServesEveryPageFromOneListenerAndStopsWithItsContext(t *testing.T) {
	t.Parallel()
	_, pool := pgtest.Migrated(t)
	reg := metrics.NewRegistry()
	if err := reg.Register(metrics.NewRuntimeCollector()); err != nil {
		t.Fatal(err)
	}
	site, err := New(store.New(pool), Options{Registry: reg, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- site.Serve(ctx, ln) }()
	base := "http://" + ln.Addr().String()
	for _, tc := range []struct{ path, says string }{
		{"/", "<html"},
		{"/api/v1/servers", `"servers"`},
		{"/badge/nobody/status.svg", "<svg"},
		{"/metrics", "go_goroutines"},
		{"/healthz", ""},
	} {
		resp, err := http.Get(base + tc.path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode >= 500 || !strings.Contains(string(body), tc.says) {
			t.Errorf("GET %s: %d, want %q in\n%.300s", tc.path, resp.StatusCode, tc.says, body)
		}
	}
	cancel()
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Serve after a stop: %v", err)
		}
	case <-time.After(ShutdownGrace + 5*time.Second):
		t.Fatal("Serve did not return after its context ended")
	}
}

func TestReadAdminTokenTakesALongEnoughTokenTrimmed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct {
		name, content, token, err string
	}{
		{"a token with its newline", "0123456789abcdef\n", "0123456789abcdef", ""},
		{"too short", "short\n", "", "at least 16 characters (it is 5)"},
		{"missing file", "", "", "no such file"},
	} {
		path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-"))
		if tc.name != "missing file" {
			if err := os.WriteFile(path, []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		token, err := ReadAdminToken(path)
		if token != tc.token || (tc.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s: %q, %v; want %q, error saying %q", tc.name, token, err, tc.token, tc.err)
		}
	}
}
