// Package apiserver is the HTTP server of the api command: the JSON API under /api/v1/ (with
// its OpenAPI document), README badges under /badge/, /healthz, /readyz and /metrics, and the
// dashboard (package web) mounted at "/". Reads are public unless the API is private;
// writes need the admin token. Every figure comes from the store's status queries.
package apiserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"golang.org/x/time/rate"

	"github.com/mcpwatch/mcpwatch/checks"
	"github.com/mcpwatch/mcpwatch/internal/metrics"
	"github.com/mcpwatch/mcpwatch/internal/netguard"
	"github.com/mcpwatch/mcpwatch/store"
)

// Config sets an API up.
type Config struct {
	Store Store
	// Guard vets the URLs of servers registered through the API (required).
	Guard *netguard.Guard
	// AdminToken is the bearer token of writes (and of reads when Private); "" takes no
	// writes.
	AdminToken string
	// Private makes every read need the admin token too (health and metrics stay open).
	Private bool
	// DashboardURL is where the dashboard is reached from outside (links in answers); ""
	// gives links relative to this API.
	DashboardURL string
	// Web serves everything outside /api/, /badge/ and the operational endpoints (nil: not
	// mounted).
	Web http.Handler
	// Catalog describes the checks (titles, areas, rules) in run reports; default
	// checks.Default().
	Catalog *checks.Registry
	// Registry receives the API's metrics; default a registry of its own, with the runtime
	// and process collectors. A registry given is the process's (the monitor's, when it
	// serves the API too) and has those already.
	Registry *metrics.Registry
	Logger   *slog.Logger
	// WriteRate and WriteBurst bound writes per client address (default 1 every 2s, bursts
	// of 10).
	WriteRate  rate.Limit
	WriteBurst int
	// HeaderEnvPrefix is the prefix every environment variable named by a registered
	// server's header must have (default "MCPWATCH_HEADER_"): without it, whoever holds the
	// token could send any variable of the prober's environment to a URL of their choosing.
	HeaderEnvPrefix string
	// MinInterval is the shortest time between two probes a registered server's schedule may
	// ask for (default 30s).
	MinInterval time.Duration
	// Statuses shares the statuses of every server among requests of GET /api/v1/servers,
	// and with the dashboard when it is served too (default: a snapshot of the API's own,
	// kept StatusTTL).
	Statuses *store.StatusSnapshot
	// StatusTTL is how long the API's own snapshot serves a reading of every server's status
	// as it is (default store.DefaultStatusTTL; negative: every request reads). Ignored when
	// Statuses is set.
	StatusTTL time.Duration
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Version names the build in reports.
	Version string
}

// API is the HTTP handler of the api command.
type API struct {
	cfg          Config
	log          *slog.Logger
	mux          *http.ServeMux
	handler      http.Handler
	routes       []route
	writes       *clientLimiter
	authFailures *clientLimiter
	metrics      *httpMetrics
	// dashboard is DashboardURL parsed (nil: links stay relative).
	dashboard *url.URL
	// statuses and list serve GET /api/v1/servers: the shared reading of every server's
	// status and its answer, encoded once per reading.
	statuses *store.StatusSnapshot
	list     encodedList
}

// route is one endpoint of the API: the OpenAPI document lists exactly these.
type route struct {
	method  string
	pattern string // path pattern of net/http's mux
	access  access
	handle  func(w http.ResponseWriter, r *http.Request) error
}

// New builds the API.
func New(cfg Config) (*API, error) {
	if cfg.Store == nil || cfg.Guard == nil {
		return nil, errors.New("apiserver: a store and a guard are required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.WriteRate <= 0 {
		cfg.WriteRate = rate.Every(2 * time.Second)
	}
	if cfg.WriteBurst <= 0 {
		cfg.WriteBurst = 10
	}
	if cfg.HeaderEnvPrefix == "" {
		cfg.HeaderEnvPrefix = "MCPWATCH_HEADER_"
	}
	if cfg.MinInterval <= 0 {
		cfg.MinInterval = 30 * time.Second
	}
	if cfg.Statuses == nil {
		ttl := cfg.StatusTTL
		if ttl == 0 {
			ttl = store.DefaultStatusTTL
		}
		cfg.Statuses = store.NewStatusSnapshot(cfg.Store.ServerStatuses, ttl, store.DefaultStatusStale)
	}
	if cfg.Catalog == nil {
		cat, err := checks.Default()
		if err != nil {
			return nil, fmt.Errorf("apiserver: %w", err)
		}
		cfg.Catalog = cat
	}
	ownRegistry := cfg.Registry == nil
	if ownRegistry {
		cfg.Registry = metrics.NewRegistry()
	}
	s := &API{
		cfg:          cfg,
		log:          cfg.Logger,
		mux:          http.NewServeMux(),
		writes:       newClientLimiter(cfg.WriteRate, cfg.WriteBurst, cfg.Now),
		authFailures: newClientLimiter(rate.Every(time.Second), 10, cfg.Now),
		statuses:     cfg.Statuses,
	}
	if cfg.DashboardURL != "" {
		u, err := url.Parse(cfg.DashboardURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("apiserver: dashboard URL %q is not an http(s) URL", cfg.DashboardURL)
		}
		s.dashboard = u
	}
	m, err := newHTTPMetrics(cfg.Registry, cfg.Store, ownRegistry)
	if err != nil {
		return nil, err
	}
	s.metrics = m
	s.routes = s.routeTable()
	for _, rt := range s.routes {
		s.mux.Handle(rt.method+" "+rt.pattern, s.endpoint(rt))
	}
	s.mux.Handle("GET /metrics", cfg.Registry)
	s.mux.HandleFunc("/api/", s.unrouted)
	s.mux.HandleFunc("/badge/", s.unrouted)
	if cfg.Web != nil {
		s.mux.Handle("/", s.endpoint(route{access: accessRead, handle: func(w http.ResponseWriter, r *http.Request) error {
			cfg.Web.ServeHTTP(w, r)
			return nil
		}}))
	} else {
		s.mux.HandleFunc("/", s.unrouted)
	}
	s.handler = s.accessLog(s.recoverPanics(s.refuseUnstorableInput(s.mux)))
	return s, nil
}

// routeTable lists the endpoints.
func (s *API) routeTable() []route {
	return []route{
		{"GET", "/healthz", accessOpen, s.healthz},
		{"GET", "/readyz", accessOpen, s.readyz},
		{"GET", "/api/v1/openapi.json", accessOpen, s.openAPI},
		{"GET", "/api/v1/servers", accessRead, s.listServers},
		{"POST", "/api/v1/servers", accessWrite, s.createServer},
		{"GET", "/api/v1/servers/{server}", accessRead, s.getServer},
		{"PATCH", "/api/v1/servers/{server}", accessWrite, s.updateServer},
		{"DELETE", "/api/v1/servers/{server}", accessWrite, s.deleteServer},
		{"POST", "/api/v1/servers/{server}/pause", accessWrite, s.pauseServer},
		{"POST", "/api/v1/servers/{server}/resume", accessWrite, s.resumeServer},
		{"GET", "/api/v1/servers/{server}/runs", accessRead, s.listRuns},
		{"GET", "/api/v1/servers/{server}/tools", accessRead, s.getTools},
		{"GET", "/api/v1/servers/{server}/alerts", accessRead, s.serverAlerts},
		{"GET", "/api/v1/runs/{run}", accessRead, s.getRun},
		{"GET", "/api/v1/alerts", accessRead, s.listAlerts},
		{"GET", "/badge/{server}/status.svg", accessRead, s.statusBadge},
		{"GET", "/badge/{server}/uptime.svg", accessRead, s.uptimeBadge},
		{"GET", "/badge/{server}/latency.svg", accessRead, s.latencyBadge},
		{"GET", "/badge/{server}/conformance.svg", accessRead, s.conformanceBadge},
	}
}

// ServeHTTP serves a request.
func (s *API) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// endpoint wraps a route's handler with its access check, the write rate limit and error
// answers.
func (s *API) endpoint(rt route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rt.access == accessWrite && !s.writes.allow(clientKey(r)) {
			w.Header().Set("Retry-After", "2")
			s.writeError(w, r, errorf(http.StatusTooManyRequests, codeRateLimited, "too many writes from this address; wait and try again"))
			return
		}
		if err := s.authorize(r, rt.access); err != nil {
			if ae, ok := err.(*apiError); ok && ae.Status == http.StatusUnauthorized {
				w.Header().Set("WWW-Authenticate", `Bearer realm="mcpwatch"`)
			}
			s.writeError(w, r, err)
			return
		}
		if err := rt.handle(w, r); err != nil {
			s.writeError(w, r, err)
		}
	})
}

// unrouted answers a path no route serves: 405 with Allow when the path exists for other
// methods, 404 otherwise, as JSON.
func (s *API) unrouted(w http.ResponseWriter, r *http.Request) {
	var allow []string
	for _, m := range []string{"GET", "POST", "PATCH", "DELETE"} {
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, pattern := s.mux.Handler(probe); pattern != "" && pattern != "/api/" && pattern != "/badge/" && pattern != "/" {
			allow = append(allow, m)
		}
	}
	if len(allow) > 0 {
		for _, m := range allow {
			w.Header().Add("Allow", m)
		}
		s.writeError(w, r, errorf(http.StatusMethodNotAllowed, codeMethodNotAllowed, fmt.Sprintf("%s is not served at %s", r.Method, r.URL.Path)))
		return
	}
	s.writeError(w, r, errorf(http.StatusNotFound, codeNotFound, "nothing is served at "+r.URL.Path+"; see /api/v1/openapi.json"))
}

// recoverPanics answers 500 for a handler that panicked instead of dropping the connection.
func (s *API) recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.writeError(w, r, fmt.Errorf("panic: %v", v))
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// RefreshLoop keeps the store's status sums current: it refreshes them at once and then each
// time an hour begins, until ctx ends. Errors are logged and retried a minute later.
func (s *API) RefreshLoop(ctx context.Context) {
	for {
		now := s.cfg.Now()
		t0 := time.Now()
		done, err := s.cfg.Store.RefreshStatusWindows(ctx, now)
		wait := now.Truncate(time.Hour).Add(time.Hour + 5*time.Second).Sub(now)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			s.log.WarnContext(ctx, "refreshing status sums failed", slog.Any("err", err))
			wait = time.Minute
		case done:
			s.log.InfoContext(ctx, "status sums refreshed", slog.Duration("took", time.Since(t0)))
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}
