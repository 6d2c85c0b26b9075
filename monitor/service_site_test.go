package monitor

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/metrics"
	"github.com/mcpwatch/mcpwatch/internal/testkit/pgtest"
	"github.com/mcpwatch/mcpwatch/store"
)

// registrySite is a site that serves /metrics from the registry it was built with, and says
// whether it was stopped.
type registrySite struct {
	registry *metrics.Registry
	stopped  chan struct{}
}

func (s *registrySite) Serve(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{Handler: s.registry, ReadHeaderTimeout: time.Second}
	go func() {
		<-ctx.Done()
		_ = hs.Close()
	}()
	err := hs.Serve(ln)
	close(s.stopped)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// With Listen, the service serves the site it is given on its own store and metrics
// registry (one scrape has the monitor's metrics), and a Stop closes it first.
func TestServiceServesTheSiteOnItsRegistryAndStopsIt(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	dir := t.TempDir()
	cfg := serviceConfig(t, filepath.Join(dir, "mcpwatch.yaml"), "spool:\n  dir: "+filepath.Join(dir, "spool")+"\nservers: []\n")
	site := &registrySite{stopped: make(chan struct{})}
	var gotStore *store.Store
	svc, err := Start(t.Context(), cfg, ServiceOptions{
		DatabaseURL: db.URL, Migrate: true, Worker: "w1", Listen: "127.0.0.1:0", LookupEnv: func(string) (string, bool) { return "", false },
		Site: func(st *store.Store, registry *metrics.Registry, _ *slog.Logger) (Site, error) {
			gotStore, site.registry = st, registry
			return site, nil
		},
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	if gotStore == nil || svc.SiteAddr() == "" {
		t.Fatalf("the site was not built on the service's store (%v) or does not listen (%q)", gotStore, svc.SiteAddr())
	}
	resp, err := http.Get("http://" + svc.SiteAddr() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), "mcpwatch_") || !strings.Contains(string(body), "go_goroutines") {
		t.Errorf("the site's /metrics lacks the monitor's metrics:\n%.500s", body)
	}
	if err := svc.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	select {
	case <-site.stopped:
	default:
		t.Error("the site still serves after Stop")
	}
}

// Listen without a site to serve is a programming error, said at Start.
func TestServiceWithListenButNoSiteFailsToStart(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	dir := t.TempDir()
	cfg := serviceConfig(t, filepath.Join(dir, "mcpwatch.yaml"), "spool:\n  dir: "+filepath.Join(dir, "spool")+"\nservers: []\n")
	_, err := Start(t.Context(), cfg, ServiceOptions{DatabaseURL: db.URL, Migrate: true, Worker: "w1", Listen: "127.0.0.1:0",
		LookupEnv: func(string) (string, bool) { return "", false }})
	if err == nil || !strings.Contains(err.Error(), "needs a site") {
		t.Errorf("%v, want an error saying a site is needed", err)
	}
}
