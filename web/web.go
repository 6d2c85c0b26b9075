// Package web is the dashboard: a public status page of every monitored MCP server, a page per
// server (latency, uptime by day, current findings, runs, tools, alerts) and a page per run
// (the report as `prober check` prints it, and the transcript frame by frame).
//
// Pages are rendered on the server with html/template from embedded files; charts are SVG
// drawn by package chart. Every page works without JavaScript; a small script re-fetches the
// live part of the status and server pages every 30 seconds while they are visible (without
// it, a meta refresh does the same once a minute). The stylesheet adapts to phones and to a
// dark colour scheme.
//
// Figures come from the store's status queries (ServerStatuses, ServerDetail), the same ones
// the JSON API serves, so a page and the API never disagree.
package web

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"time"

	"github.com/mcpwatch/mcpwatch/checks"
	"github.com/mcpwatch/mcpwatch/internal/lru"
	"github.com/mcpwatch/mcpwatch/store"
)

// Deps are what the dashboard needs.
type Deps struct {
	// Store is required.
	Store Store
	// Logger receives errors that end a request (default: discarded).
	Logger *slog.Logger
	// Checks describe the stored verdicts of the run and server pages and give them the
	// evidence of the stored recording (default: checks.Default(), which compiles the
	// message schemas: pass one you have already).
	Checks *checks.Registry
	// Now is the clock (default time.Now); tests pin it.
	Now func() time.Time
	// Title heads every page (default "MCP server status").
	Title string
	// Version names the build in the footer and in rebuilt reports.
	Version string
	// Refresh is how often open pages fetch their live part again (default 30 s).
	Refresh time.Duration
	// Statuses shares the statuses of every server among requests, and with the JSON API
	// when both are served by one process (default: a snapshot of the dashboard's own).
	Statuses *store.StatusSnapshot
	// StatusTTL is how long the dashboard's own snapshot serves a reading of the statuses as
	// it is (default store.DefaultStatusTTL; negative: every request reads). Ignored when
	// Statuses is set.
	StatusTTL time.Duration
	// Maintenance, when set, says which maintenance window of the alerts configuration is in
	// force for a server at a time, and until when (the monitor's process has the
	// configuration; `api`, which has none, leaves it nil and shows no window).
	Maintenance func(at time.Time, server string) (name string, end time.Time, ok bool)
}

// defaultRefresh is how often open pages re-fetch their live part.
const defaultRefresh = 30 * time.Second

// dashboard serves the pages. It holds no state that outlives a request besides the caches
// of immutable things (assets, analysed runs, the status page rendered for one reading of
// the statuses) and the shared reading of the statuses.
type dashboard struct {
	store    Store
	log      *slog.Logger
	checks   *checks.Registry
	now      func() time.Time
	title    string
	version  string
	refresh  int // seconds
	pages    map[string]*template.Template
	assets   *assets
	analyses *lru.Cache[store.RunID, *analysis]
	statuses *store.StatusSnapshot
	// statusPages keeps renderings of the status page, by the reading of statuses they show.
	statusPages *lru.Cache[statusPageKey, renderedPage]
	gzips       gzipPool
	maintenance func(at time.Time, server string) (name string, end time.Time, ok bool)
}

// New builds the dashboard's handler, to be mounted at "/": it serves "/", "/servers/{name}",
// "/runs/{id}" and "/static/", and a page saying so for every other path.
func New(deps Deps) (http.Handler, error) {
	if deps.Store == nil {
		return nil, errors.New("web: no store")
	}
	d := &dashboard{
		store: deps.Store, log: deps.Logger, checks: deps.Checks, now: deps.Now,
		title: deps.Title, version: deps.Version, maintenance: deps.Maintenance,
		analyses:    lru.New[store.RunID, *analysis](analysisCacheSize),
		statusPages: lru.New[statusPageKey, renderedPage](statusPageCacheSize),
	}
	if d.log == nil {
		d.log = slog.New(slog.DiscardHandler)
	}
	if d.now == nil {
		d.now = time.Now
	}
	if d.title == "" {
		d.title = "MCP server status"
	}
	d.statuses = deps.Statuses
	if d.statuses == nil {
		ttl := deps.StatusTTL
		if ttl == 0 {
			ttl = store.DefaultStatusTTL
		}
		d.statuses = store.NewStatusSnapshot(d.store.ServerStatuses, ttl, store.DefaultStatusStale)
	}
	d.refresh = int(defaultRefresh / time.Second)
	if deps.Refresh > 0 {
		d.refresh = max(int(deps.Refresh/time.Second), 1)
	}
	if d.checks == nil {
		reg, err := checks.Default()
		if err != nil {
			return nil, fmt.Errorf("web: %w", err)
		}
		d.checks = reg
	}
	var err error
	if d.assets, err = loadAssets(); err != nil {
		return nil, err
	}
	if d.pages, err = parsePages(d.assets); err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", d.statusPage)
	mux.HandleFunc("GET /servers/{name}", d.serverPage)
	mux.HandleFunc("GET /runs/{id}", d.runPage)
	mux.HandleFunc("GET /static/{file}", d.assets.serve)
	mux.HandleFunc("/", d.notFoundPage)
	return secureHeaders(mux), nil
}

// secureHeaders sets what every response of the dashboard carries: no inline script or style
// may run (the pages need none), nothing may frame them.
func secureHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		next.ServeHTTP(w, r)
	})
}

// page is what every template gets besides its own data.
type page struct {
	Title   string // of the document
	Site    string
	Version string
	Now     time.Time
	// Refresh is the live part's refresh interval in seconds (0: the page does not refresh).
	Refresh int
	// CSS and JS are the asset URLs, versioned by content.
	CSS, JS string
	Data    any
}

// render writes a page, or only its live part when the script asks for it (?fragment=live).
// It renders into a buffer first so that a template error becomes a clean 500.
func (d *dashboard) render(w http.ResponseWriter, r *http.Request, status int, name, title string, refresh int, data any) {
	body, err := d.execute(r, name, title, refresh, data)
	if err != nil {
		d.fail(w, r, err)
		return
	}
	setPageHeaders(w.Header(), refresh)
	d.gzips.write(w, r, status, body)
}

// execute runs the template of a page, or of its live part when the script asks for it.
func (d *dashboard) execute(r *http.Request, name, title string, refresh int, data any) ([]byte, error) {
	t, ok := d.pages[name]
	if !ok {
		return nil, fmt.Errorf("no template %q", name)
	}
	p := page{Title: title, Site: d.title, Version: d.version, Now: d.now().UTC(), Refresh: refresh,
		CSS: d.assets.url("style.css"), JS: d.assets.url("live.js"), Data: data}
	root := "layout"
	if wantsLive(r) && t.Lookup("live") != nil {
		root = "live"
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, root, p); err != nil {
		return nil, fmt.Errorf("render %s: %w", name, err)
	}
	return buf.Bytes(), nil
}

// wantsLive says whether the script asks for the live part of a page only.
func wantsLive(r *http.Request) bool { return r.URL.Query().Get("fragment") == "live" }

// setPageHeaders sets the type and caching of a page: one that refreshes itself must be
// asked for again each time.
func setPageHeaders(h http.Header, refresh int) {
	h.Set("Content-Type", "text/html; charset=utf-8")
	if refresh > 0 {
		h.Set("Cache-Control", "no-cache")
	} else if h.Get("Cache-Control") == "" {
		h.Set("Cache-Control", "public, max-age=60")
	}
}

// problem is the data of the error page.
type problem struct {
	Status  int
	Heading string
	Detail  string
}

func (d *dashboard) problemPage(w http.ResponseWriter, r *http.Request, status int, heading, detail string) {
	w.Header().Set("Cache-Control", "no-store")
	d.render(w, r, status, "problem", heading, 0, problem{Status: status, Heading: heading, Detail: detail})
}

func (d *dashboard) notFoundPage(w http.ResponseWriter, r *http.Request) {
	d.problemPage(w, r, http.StatusNotFound, "Page not found", "There is no page at "+r.URL.Path+".")
}

// fail logs an error that ended a request and answers 500 without details: they may name
// database internals.
func (d *dashboard) fail(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, context.Canceled) && r.Context().Err() != nil {
		return // the reader left
	}
	d.log.ErrorContext(r.Context(), "dashboard request failed", "path", r.URL.Path, "err", err)
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusInternalServerError)
	_, _ = w.Write([]byte("The dashboard could not build this page; the error is in the server's log.\n"))
}
