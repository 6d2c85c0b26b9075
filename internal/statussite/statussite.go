// Package statussite serves what people and scripts read about the monitored servers: the
// dashboard (status page, a page per server and per run), the JSON API, README badges,
// /healthz, /readyz and /metrics, over HTTP from one listener. The api command serves it
// from a process of its own; 'prober run --listen' from the monitor's process.
package statussite

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"strings"
	"time"

	"github.com/mcpwatch/mcpwatch/checks"
	"github.com/mcpwatch/mcpwatch/internal/apiserver"
	"github.com/mcpwatch/mcpwatch/internal/metrics"
	"github.com/mcpwatch/mcpwatch/internal/netguard"
	"github.com/mcpwatch/mcpwatch/store"
	"github.com/mcpwatch/mcpwatch/web"
)

// ShutdownGrace is how long requests in flight get to finish after the site is told to stop.
const ShutdownGrace = 10 * time.Second

// MinAdminToken is the shortest admin token taken.
const MinAdminToken = 16

// Options sets a site up.
type Options struct {
	// AdminToken is the bearer token of writes (and of reads when Private); "" takes no
	// writes.
	AdminToken string
	// Private makes every read need the admin token too (health and metrics stay open).
	Private bool
	// DashboardURL is where the site is reached from outside (absolute links); "" keeps
	// them relative.
	DashboardURL string
	// Allow are the internal ranges that servers registered through the API may reach.
	Allow []netip.Prefix
	// HeaderEnvPrefix is the prefix of the variables a registered server's headers may name
	// (default "MCPWATCH_HEADER_").
	HeaderEnvPrefix string
	// NoDashboard serves the API and badges only.
	NoDashboard bool
	// Registry receives the site's metrics and is what /metrics serves: the monitor passes
	// its own, so that one scrape has both (default a registry of the site's own).
	Registry *metrics.Registry
	// Version names the build.
	Version string
	Logger  *slog.Logger
	// Maintenance, when set, names the maintenance window in force for a server (the
	// monitor's alerts configuration); the pages then show it.
	Maintenance func(at time.Time, server string) (name string, end time.Time, ok bool)
}

// Site is the HTTP handler of every page and endpoint, with the refresh of the status sums
// it reads.
type Site struct {
	api  *apiserver.API
	opts Options
	log  *slog.Logger
}

// New builds the site on st.
func New(st *store.Store, opts Options) (*Site, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	catalog, err := checks.Default()
	if err != nil {
		return nil, err
	}
	// One reading of every server's status serves both the JSON API's list and the status
	// page: the database pays for it once per period whichever readers come.
	statuses := store.NewStatusSnapshot(st.ServerStatuses, store.DefaultStatusTTL, store.DefaultStatusStale)
	cfg := apiserver.Config{
		Store: st, Guard: netguard.New(netguard.Config{Allow: opts.Allow}), Statuses: statuses,
		AdminToken: opts.AdminToken, Private: opts.Private, DashboardURL: opts.DashboardURL,
		Catalog: catalog, Logger: log, HeaderEnvPrefix: opts.HeaderEnvPrefix, Version: opts.Version,
		Registry: opts.Registry,
	}
	if !opts.NoDashboard {
		dash, err := web.New(web.Deps{Store: st, Logger: log, Checks: catalog, Version: opts.Version, Statuses: statuses,
			Maintenance: opts.Maintenance})
		if err != nil {
			return nil, err
		}
		cfg.Web = dash
	}
	api, err := apiserver.New(cfg)
	if err != nil {
		return nil, err
	}
	return &Site{api: api, opts: opts, log: log}, nil
}

// ServeHTTP serves a request.
func (s *Site) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.api.ServeHTTP(w, r) }

// Serve serves on ln, and keeps the status sums current, until ctx ends; then requests in
// flight get ShutdownGrace to finish. It returns nil after a stop asked by ctx.
func (s *Site) Serve(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{
		Handler:           s.api,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	bg, stopBG := context.WithCancel(ctx)
	defer stopBG()
	go s.api.RefreshLoop(bg)
	s.log.Info("serving the status page and API", "addr", ln.Addr().String(), "url", "http://"+ln.Addr().String()+"/",
		"writes", s.opts.AdminToken != "", "private", s.opts.Private, "version", s.opts.Version)
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err := <-served:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	downCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ShutdownGrace)
	defer cancel()
	if err := hs.Shutdown(downCtx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}

// ReadAdminToken reads the admin token from a file (surrounding space trimmed); it must
// have MinAdminToken characters at least.
func ReadAdminToken(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	token := strings.TrimSpace(string(b))
	if len(token) < MinAdminToken {
		return "", fmt.Errorf("the token must be at least %d characters (it is %d)", MinAdminToken, len(token))
	}
	return token, nil
}
