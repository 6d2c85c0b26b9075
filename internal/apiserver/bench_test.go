package apiserver

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mcpwatch/mcpwatch/internal/pgtest"
	"github.com/mcpwatch/mcpwatch/store"
)

// Scale of the benchmark's database: the issue's "1,000 servers with 90 days of hourly
// rollups and 24 hours of raw runs at one a minute".
const (
	benchServers    = 1000
	benchRollupDays = 90
	benchRawHours   = 24
)

// seedScale fills a schema of its own (dropped when the benchmark ends) with COPY: servers,
// a region, raw runs every minute for benchRawHours with the findings of each server's
// latest runs, and hourly rollups for benchRollupDays (summed from the raw runs where there
// are some). It reports how long each part took.
func seedScale(b *testing.B) (*store.Store, time.Time) {
	b.Helper()
	_, pool := pgtest.Migrated(b)
	st := store.New(pool)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	now := time.Now().UTC()
	t0 := time.Now()
	copyRows := func(table string, cols []string, n int, row func(i int) []any) {
		b.Helper()
		i := 0
		_, err := pool.CopyFrom(ctx, pgx.Identifier{table}, cols, pgx.CopyFromFunc(func() ([]any, error) {
			if i >= n {
				return nil, nil
			}
			i++
			return row(i - 1), nil
		}))
		if err != nil {
			b.Fatalf("copy %s: %v", table, err)
		}
	}
	copyRows("servers", []string{"name", "source", "transport", "url", "schedule", "timeout_ms"}, benchServers, func(i int) []any {
		return []any{fmt.Sprintf("server-%04d", i), "config", "http", fmt.Sprintf("https://s%d.example.com/mcp", i), "@every 1m", int32(10000)}
	})
	if _, err := pool.Exec(ctx, `INSERT INTO regions (name) VALUES ('eu')`); err != nil {
		b.Fatal(err)
	}
	var first int64
	if err := pool.QueryRow(ctx, `SELECT min(id) FROM servers`).Scan(&first); err != nil {
		b.Fatal(err)
	}
	if err := st.EnsurePartitions(ctx, now.Add(-benchRawHours*time.Hour), now); err != nil {
		b.Fatal(err)
	}

	// One run a minute per server; a few servers are often down, most rarely.
	rawStart := now.Truncate(time.Minute).Add(-benchRawHours * time.Hour)
	minutes := benchRawHours * 60
	bounds := store.LatencyBucketBounds()
	type hourKey struct {
		server int64
		hour   int64
	}
	hours := map[hourKey]*store.Stats{}
	rng := rand.New(rand.NewPCG(3, 4))
	outcomes := func(server int) string {
		p := rng.IntN(1000)
		switch {
		case server%50 == 0 && p < 300:
			return store.OutcomeDown
		case p < 3:
			return store.OutcomeDown
		case p < 20:
			return store.OutcomeDegraded
		}
		return store.OutcomeUp
	}
	var findingRuns [][]any
	copyRows("runs", []string{"id", "started_at", "server_id", "region", "worker", "duration_us", "outcome",
		"protocol_version", "server_name", "server_version", "error_code", "http_status", "tool_count", "tool_fingerprint", "error"},
		benchServers*minutes, func(i int) []any {
			server, minute := i%benchServers, i/benchServers
			start := rawStart.Add(time.Duration(minute)*time.Minute + time.Duration(server)*time.Millisecond*37)
			if !start.Before(now) {
				start = now.Add(-time.Millisecond * time.Duration(1+server))
			}
			outcome := outcomes(server)
			d := time.Duration(20+rng.ExpFloat64()*150) * time.Millisecond
			var code *int64
			var status *int32
			if outcome == store.OutcomeDown {
				c, s := int64(-32603), int32(502)
				code, status = &c, &s
			}
			id := store.NewRunID(start)
			sid := first + int64(server)
			k := hourKey{sid, start.Truncate(time.Hour).Unix()}
			if hours[k] == nil {
				hours[k] = &store.Stats{}
			}
			addRun(hours[k], bounds, outcome, d.Truncate(time.Microsecond))
			if minute >= minutes-3 {
				findingRuns = append(findingRuns, []any{id, start})
			}
			return []any{id, start, sid, "eu", "bench", d.Microseconds(), outcome, "2025-06-18", "bench", "1.0",
				code, status, int32(12), "sha256:bench", ""}
		})
	checkIDs := []string{"jsonrpc.parse", "jsonrpc.version", "lifecycle.initialize", "lifecycle.ping", "tools.list", "tools.input-schema", "http.status"}
	copyRows("run_finding_sets", []string{"run_id", "started_at", "check_ids", "statuses", "severities", "messages"}, len(findingRuns), func(i int) []any {
		statuses := []string{"pass", "pass", "pass", "pass", "pass", "pass", "pass"}
		if i%7 == 0 {
			statuses[4] = "fail"
		}
		return []any{findingRuns[i][0], findingRuns[i][1], checkIDs, statuses, make([]string, 7), make([]string, 7)}
	})
	rawDone := time.Since(t0)

	// Hourly rollups: from the raw runs where they cover the hour, made up before.
	t1 := time.Now()
	firstHour := now.Truncate(time.Hour).Add(-(benchRollupDays*24 - 1) * time.Hour)
	nHours := benchRollupDays * 24
	copyRows("rollups", []string{"server_id", "region", "hour", "runs", "up", "degraded", "down", "latency_sum_us",
		"latency_min_us", "latency_max_us", "latency_hist"}, benchServers*nHours, func(i int) []any {
		server, h := i%benchServers, i/benchServers
		hour := firstHour.Add(time.Duration(h) * time.Hour)
		sid := first + int64(server)
		s := hours[hourKey{sid, hour.Unix()}]
		if s == nil {
			s = &store.Stats{}
			for range 60 {
				addRun(s, bounds, outcomes(server), time.Duration(20+rng.ExpFloat64()*150)*time.Millisecond)
			}
		}
		var lo, hi *int64
		hist := s.Latency
		if hist == nil {
			hist = make(store.Histogram, store.HistogramBuckets)
		} else {
			l, m := s.LatencyMin.Microseconds(), s.LatencyMax.Microseconds()
			lo, hi = &l, &m
		}
		return []any{sid, "eu", hour, int32(s.Runs), int32(s.Up), int32(s.Degraded), int32(s.Down), s.LatencySum.Microseconds(), lo, hi, []int64(hist)}
	})
	// As a database that has been running a while: statistics current, visibility maps set
	// (so that no autovacuum of the fresh rows runs during the measurements).
	if _, err := pool.Exec(ctx, `VACUUM (ANALYZE) servers, runs, run_finding_sets, rollups`); err != nil {
		b.Fatal(err)
	}
	rollupsDone := time.Since(t1)
	t2 := time.Now()
	if _, err := st.RefreshStatusWindows(ctx, now); err != nil {
		b.Fatal(err)
	}
	b.Logf("seeded %d servers: %d raw runs in %v, %d hourly rollups in %v; status sums refreshed in %v",
		benchServers, benchServers*minutes, rawDone.Round(time.Millisecond), benchServers*nHours,
		rollupsDone.Round(time.Millisecond), time.Since(t2).Round(time.Millisecond))
	return st, now
}

// addRun counts one run into st as the store's rollups do.
func addRun(st *store.Stats, bounds []time.Duration, outcome string, d time.Duration) {
	st.Runs++
	switch outcome {
	case store.OutcomeUp:
		st.Up++
	case store.OutcomeDegraded:
		st.Degraded++
	default:
		st.Down++
		return
	}
	if st.Up+st.Degraded == 1 || d < st.LatencyMin {
		st.LatencyMin = d
	}
	st.LatencyMax = max(st.LatencyMax, d)
	st.LatencySum += d
	if st.Latency == nil {
		st.Latency = make(store.Histogram, store.HistogramBuckets)
	}
	i, _ := slices.BinarySearch(bounds, d)
	st.Latency[i]++
}

// BenchmarkAPIAtScale serves the status endpoints over a database of the size and
// reports latency percentiles per request (targets: servers p95 < 100 ms, one server's API
// p95 < 50 ms, a badge p95 < 10 ms). Run with: go test -run '^$' -bench APIAtScale
// -benchtime 200x ./internal/apiserver/
func BenchmarkAPIAtScale(b *testing.B) {
	st, now := seedScale(b)
	srv, err := New(Config{Store: st, Guard: testGuard(), Now: func() time.Time { return now }})
	if err != nil {
		b.Fatal(err)
	}
	// The store's part of the server list alone: what is left of a request's time is making
	// and encoding the JSON.
	b.Run("store-statuses", func(b *testing.B) {
		var took []time.Duration
		for b.Loop() {
			t0 := time.Now()
			if _, err := st.ServerStatuses(b.Context(), now); err != nil {
				b.Fatal(err)
			}
			took = append(took, time.Since(t0))
		}
		reportQuantiles(b, took)
	})
	for _, tc := range []struct{ name, path string }{
		{"servers", "/api/v1/servers"},
		{"server", "/api/v1/servers/server-0123"},
		{"server-runs", "/api/v1/servers/server-0123/runs?limit=50"},
		{"badge-status", "/badge/server-0123/status.svg"},
		{"badge-uptime", "/badge/server-0123/uptime.svg?window=90d"},
		{"badge-latency", "/badge/server-0123/latency.svg"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var took []time.Duration
			for b.Loop() {
				rec := httptest.NewRecorder()
				t0 := time.Now()
				srv.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, tc.path, nil))
				took = append(took, time.Since(t0))
				if rec.Code != http.StatusOK {
					b.Fatalf("%s: %d %s", tc.path, rec.Code, rec.Body.String())
				}
			}
			reportQuantiles(b, took)
		})
	}
}

// reportQuantiles reports the median, p95 and p99 of the measured times.
func reportQuantiles(b *testing.B, took []time.Duration) {
	slices.Sort(took)
	q := func(p float64) float64 {
		return float64(took[min(len(took)-1, int(p*float64(len(took))))].Microseconds()) / 1000
	}
	b.ReportMetric(q(.50), "p50-ms")
	b.ReportMetric(q(.95), "p95-ms")
	b.ReportMetric(q(.99), "p99-ms")
}
