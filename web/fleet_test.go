package web

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mcpwatch/mcpwatch/checks"
	"github.com/mcpwatch/mcpwatch/internal/testkit/dashseed"
	"github.com/mcpwatch/mcpwatch/internal/testkit/pgtest"
	"github.com/mcpwatch/mcpwatch/store"
)

// fleet is a database seeded with the demo fleet (real fixture probes, written through
// store.WriteRuns) and the dashboard over it, its clock pinned to the seeding instant.
type fleet struct {
	ctx     context.Context
	pool    *pgxpool.Pool
	store   *store.Store
	checks  *checks.Registry
	now     time.Time
	plans   []dashseed.Plan
	servers map[string]store.Server
	handler http.Handler
}

func newFleet(t *testing.T) *fleet {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	_, pool := pgtest.Migrated(t)
	reg, err := checks.Default()
	if err != nil {
		t.Fatal(err)
	}
	samples, err := dashseed.ProbeSamples(ctx, reg)
	if err != nil {
		t.Fatal(err)
	}
	f := &fleet{ctx: ctx, pool: pool, store: store.New(pool), checks: reg, now: time.Now().UTC().Truncate(time.Microsecond)}
	f.plans = dashseed.DemoPlans(samples, f.now)
	if f.servers, err = dashseed.Seed(ctx, f.store, f.now, f.plans); err != nil {
		t.Fatal(err)
	}
	if err := dashseed.SeedAlerts(ctx, f.store, f.now, f.servers); err != nil {
		t.Fatal(err)
	}
	f.handler = f.dashboard(t, func() time.Time { return f.now })
	return f
}

// dashboard builds a handler over the fleet's store with the given clock.
func (f *fleet) dashboard(t *testing.T, now func() time.Time) http.Handler {
	t.Helper()
	// Every request reads: the tests change the data between requests.
	h, err := New(Deps{Store: f.store, Checks: f.checks, Now: now, Version: "test", StatusTTL: -1})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// get serves one request and returns the status and body.
func (f *fleet) get(t *testing.T, path string) (int, string, http.Header) {
	t.Helper()
	return get(t, f.handler, path)
}

func get(t *testing.T, h http.Handler, path string) (int, string, http.Header) {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	body, _ := io.ReadAll(rec.Result().Body)
	return rec.Code, string(body), rec.Result().Header
}

// mustGet fails the test unless the page answers 200.
func (f *fleet) mustGet(t *testing.T, path string) string {
	t.Helper()
	code, body, _ := f.get(t, path)
	if code != http.StatusOK {
		t.Fatalf("GET %s = %d\n%s", path, code, clipForLog(body))
	}
	return body
}

func clipForLog(s string) string {
	if len(s) > 2000 {
		return s[:2000] + "…"
	}
	return s
}

// rowOf cuts a server's row out of the status page.
func rowOf(t *testing.T, page, name string) string {
	t.Helper()
	for _, part := range strings.Split(page, `<li class="server `)[1:] {
		if strings.Contains(part, `class="server-name" href="`+serverHref(name)+`">`) {
			return part
		}
	}
	t.Fatalf("no row for %s on the status page", name)
	return ""
}

func httptestRequest(path, etag string) *http.Request {
	req := httptest.NewRequest(http.MethodGet, path, nil)
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	return req
}

func serve(h http.Handler, req *http.Request) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}
