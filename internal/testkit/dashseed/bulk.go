// Package dashseed fills a database with servers and their history for the dashboard's tests,
// benchmarks and demo: Bulk writes a large synthetic fleet straight in SQL (for timing the
// pages at scale), Fleet probes real fixture servers and writes their runs through the store
// as the monitor would (for pages that must show real reports and transcripts).
package dashseed

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mcpwatch/mcpwatch/store"
)

// BulkConfig sizes a synthetic fleet.
type BulkConfig struct {
	Servers int
	// RollupDays of hourly rollups end with the current hour.
	RollupDays int
	// RawHours of raw runs at one a minute end now.
	RawHours int
	Region   string
}

// Bulk writes cfg.Servers HTTP servers named server-0001 and up, RollupDays of hourly
// rollups for each (60 runs an hour, a few down or degraded, latencies around 100-400ms) and
// RawHours of raw runs at one a minute, in one region. The rollups of the raw hours are not
// the sums of those runs: the data is shaped for timing queries, not for checking figures.
func Bulk(ctx context.Context, pool *pgxpool.Pool, cfg BulkConfig) error {
	if cfg.Region == "" {
		cfg.Region = "eu"
	}
	now := time.Now().UTC()
	s := store.New(pool)
	if err := s.EnsurePartitions(ctx, now.Add(-time.Duration(cfg.RawHours+24)*time.Hour), now.Add(24*time.Hour)); err != nil {
		return err
	}
	statements := []struct {
		what string
		sql  string
		args []any
	}{
		{"servers", `INSERT INTO servers (name, source, transport, url, schedule, timeout_ms)
			SELECT format('server-%s', lpad(i::text, 4, '0')), 'config', 'http',
				format('https://mcp-%s.example.com/mcp', i), '@every 1m', 10000
			FROM generate_series(1, $1::int) AS i`, []any{cfg.Servers}},
		{"region", `INSERT INTO regions (name) VALUES ($1) ON CONFLICT DO NOTHING`, []any{cfg.Region}},
		{"rollups", `INSERT INTO rollups (server_id, region, hour, runs, up, degraded, down,
				latency_sum_us, latency_min_us, latency_max_us, latency_hist)
			SELECT v.id, $1, h, 60, 60 - o.down - o.degraded, o.degraded, o.down,
				(60 - o.down) * 180000, 90000, 390000,
				array_fill(0::bigint, ARRAY[6]) || ARRAY[o.a, o.b, 60 - o.down - o.a - o.b]::bigint[] || array_fill(0::bigint, ARRAY[14])
			FROM servers v
			CROSS JOIN generate_series(date_bin('1 hour', now(), timestamptz '2000-01-01Z') - $2::int * interval '1 day' + interval '1 hour',
				date_bin('1 hour', now(), timestamptz '2000-01-01Z'), interval '1 hour') AS h
			CROSS JOIN LATERAL (
				SELECT d.down, CASE WHEN random() < 0.05 + 0 * v.id THEN 1 ELSE 0 END AS degraded,
					(random() * 20)::int AS a, (random() * 20)::int AS b
				FROM (SELECT CASE WHEN random() < 0.01 + 0 * v.id * extract(epoch FROM h) THEN (random() * 10)::int ELSE 0 END AS down) d
			) AS o`, []any{cfg.Region, cfg.RollupDays}},
		{"runs", `INSERT INTO runs (id, started_at, server_id, region, worker, duration_us, outcome,
				protocol_version, server_name, server_version, error_code, http_status, tool_count,
				tool_fingerprint, error)
			SELECT gen_random_uuid(), t, v.id, $1, 'bench', (90000 + random() * 300000)::bigint, o.outcome,
				'2025-06-18', 'bench-server', '1.0.0',
				CASE WHEN o.outcome = 'down' THEN -32603 END, CASE WHEN o.outcome = 'down' THEN 503 END,
				12, 'sha256:' || md5(v.id::text),
				CASE WHEN o.outcome = 'down' THEN 'initialize failed: HTTP 503' ELSE '' END
			FROM servers v
			CROSS JOIN generate_series(now() - $2::int * interval '1 hour', now(), interval '1 minute') AS t
			CROSS JOIN LATERAL (SELECT CASE WHEN x < 0.01 THEN 'down' WHEN x < 0.05 THEN 'degraded' ELSE 'up' END AS outcome
				FROM (SELECT random() + 0 * v.id * extract(epoch FROM t) AS x) r) AS o`, []any{cfg.Region, cfg.RawHours}},
	}
	for _, st := range statements {
		if _, err := pool.Exec(ctx, st.sql, st.args...); err != nil {
			return fmt.Errorf("dashseed: bulk %s: %w", st.what, err)
		}
	}
	if _, err := pool.Exec(ctx, `ANALYZE`); err != nil {
		return fmt.Errorf("dashseed: analyze: %w", err)
	}
	return nil
}
