package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/checks"
	"github.com/mcpwatch/mcpwatch/internal/testkit/dashseed"
	"github.com/mcpwatch/mcpwatch/internal/testkit/pgtest"
	"github.com/mcpwatch/mcpwatch/store"
)

// BenchmarkPages times the pages at the scale issue 6 sets: 1,000 servers with 90 days of
// hourly rollups and 24 hours of raw runs at one a minute (1.44 million runs). It reports
// the median and 95th percentile of each page. Targets: status page p95 under 100 ms, a
// server page under 50 ms. Seeding takes a minute or two.
func BenchmarkPages(b *testing.B) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	_, pool := pgtest.Migrated(b)
	if err := dashseed.Bulk(ctx, pool, dashseed.BulkConfig{Servers: 1000, RollupDays: 90, RawHours: 24}); err != nil {
		b.Fatal(err)
	}
	s := store.New(pool)
	reg, err := checks.Default()
	if err != nil {
		b.Fatal(err)
	}
	h, err := New(Deps{Store: s, Checks: reg})
	if err != nil {
		b.Fatal(err)
	}
	// Every request reading the statuses of all servers: what a reader pays at most once per
	// StatusTTL.
	uncached, err := New(Deps{Store: s, Checks: reg, StatusTTL: -1})
	if err != nil {
		b.Fatal(err)
	}
	var runID store.RunID
	if err := pool.QueryRow(ctx, `SELECT id FROM runs WHERE server_id = 500 ORDER BY started_at DESC LIMIT 1`).Scan(&runID); err != nil {
		b.Fatal(err)
	}
	for _, page := range []struct {
		name, path string
		h          http.Handler
	}{
		{"status", "/", h},
		{"status-page-5", "/?page=5", h},
		{"status-uncached", "/", uncached},
		{"server", "/servers/server-0500", h},
		{"server-90d", "/servers/server-0500?window=90d", h},
		{"run", runHref(runID), h},
	} {
		h := page.h
		b.Run(page.name, func(b *testing.B) {
			// The first request sums the status windows for the hour; every later one reads them.
			if rec := serve(h, httptest.NewRequest(http.MethodGet, page.path, nil)); rec.Code != http.StatusOK {
				b.Fatalf("GET %s = %d", page.path, rec.Code)
			}
			var took []time.Duration
			for b.Loop() {
				t0 := time.Now()
				rec := serve(h, httptest.NewRequest(http.MethodGet, page.path, nil))
				took = append(took, time.Since(t0))
				if rec.Code != http.StatusOK {
					b.Fatalf("GET %s = %d", page.path, rec.Code)
				}
			}
			slices.Sort(took)
			b.ReportMetric(ms(took[len(took)/2]), "p50-ms")
			b.ReportMetric(ms(took[min(len(took)-1, len(took)*95/100)]), "p95-ms")
		})
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
