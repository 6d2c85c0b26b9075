package web

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/testkit/pgtest"
	"github.com/mcpwatch/mcpwatch/store"
)

func TestStatusPageIsRenderedOncePerReading(t *testing.T) {
	t.Parallel()
	_, pool := pgtest.Migrated(t)
	now := time.Now().UTC()
	hist := make(store.Histogram, store.HistogramBuckets)
	hist[6] = 60
	// A server that answered in its 24 hours: the page draws its latency sparkline.
	var windows []store.WindowStats
	for _, w := range store.StatusWindows() {
		windows = append(windows, store.WindowStats{Window: w, Stats: store.Stats{Runs: 60, Up: 60,
			LatencySum: 2 * time.Hour, LatencyMin: 110 * time.Millisecond, LatencyMax: 140 * time.Millisecond, Latency: hist}})
	}
	var reads atomic.Int32
	snap := store.NewStatusSnapshot(func(_ context.Context, at time.Time) ([]store.ServerStatus, error) {
		reads.Add(1)
		return []store.ServerStatus{{Server: store.Server{ID: 7, Name: "alpha", Transport: "http",
			URL: "https://alpha.example.com/mcp", Enabled: true}, State: store.StateUp, Windows: windows, AsOf: at}}, nil
	}, time.Hour, 0)
	h, err := New(Deps{Store: store.New(pool), Now: func() time.Time { return now }, Statuses: snap, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	page := func(accept string) (string, http.Header) {
		t.Helper()
		req := httptestRequest("/", "")
		if accept != "" {
			req.Header.Set("Accept-Encoding", accept)
		}
		rec := serve(h, req)
		if rec.Code != http.StatusOK {
			t.Fatalf("GET / = %d", rec.Code)
		}
		body := rec.Body.Bytes()
		if rec.Header().Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			if body, err = io.ReadAll(zr); err != nil {
				t.Fatal(err)
			}
		}
		return string(body), rec.Header()
	}
	const noRuns = "no runs reached the server"
	first, _ := page("")
	if !strings.Contains(first, noRuns) {
		t.Fatalf("alpha's sparkline is not empty before its first rollup: %s", clipForLog(first))
	}

	// An hour of runs lands: the sparkline would show it, but the reading is the same.
	if _, err := pool.Exec(t.Context(), `INSERT INTO rollups (server_id, region, hour, runs, up, degraded, down,
			latency_sum_us, latency_min_us, latency_max_us, latency_hist)
		VALUES (7, 'eu', $1, 60, 60, 0, 0, 7200000, 110000, 140000, $2)`, now.Truncate(time.Hour), []int64(hist)); err != nil {
		t.Fatal(err)
	}
	for _, accept := range []string{"", "gzip"} {
		again, header := page(accept)
		if again != first {
			t.Errorf("Accept-Encoding %q: the page was made again within one reading", accept)
		}
		if !strings.Contains(header.Get("Vary"), "Accept-Encoding") || header.Get("Cache-Control") != "no-cache" {
			t.Errorf("Accept-Encoding %q: headers %v", accept, header)
		}
	}

	// A new reading makes a new page, with what the database holds then.
	snap.Invalidate()
	if fresh, _ := page(""); strings.Contains(fresh, noRuns) || !strings.Contains(fresh, "latest hour") {
		t.Errorf("after a new reading the sparkline still shows no runs: %s", clipForLog(fresh))
	}
	if n := reads.Load(); n != 2 {
		t.Errorf("%d readings of the statuses, want 2", n)
	}
}
