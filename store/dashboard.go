package store

import (
	"context"
	"fmt"
	"time"
)

// The dashboard's queries beyond the status*.go ones (which it uses for every uptime and
// latency figure): hourly rollups for its sparklines and long latency charts, and the runs
// behind "last error". They read raw runs only through the (server_id, started_at) index,
// inside bounds of an hour or a day, so Postgres skips the partitions outside them.

// ServerHour is one hour of one server seen from one region.
type ServerHour struct {
	ServerID int64
	HourStats
}

// HourlyRollups returns the hourly rollups of the given servers over [from, to), one per
// (server, region, hour), ordered so. Callers sum regions with Stats.Merge as they need.
func (s *Store) HourlyRollups(ctx context.Context, serverIDs []int64, from, to time.Time) ([]ServerHour, error) {
	// One index walk of the primary key per server. Written as "server_id = ANY($1)", the
	// query got a generic plan after a few runs (pgx prepares its statements), which cannot
	// see how long the range is: it walked rollups_hour through every server's rows of the
	// range and kept one server's, 1.2 s for a 90-day chart. The lateral subquery, kept apart
	// by OFFSET 0, leaves the planner one server at a time, for which the key always wins.
	rows, err := s.pool.Query(ctx, `SELECT server_id, region, hour, `+statsColumnsPlain+`
		FROM unnest($1::bigint[]) AS u(id)
		CROSS JOIN LATERAL (SELECT * FROM rollups WHERE server_id = u.id AND hour >= $2 AND hour < $3 OFFSET 0) r
		ORDER BY server_id, region, hour`, serverIDs, from, to)
	if err != nil {
		return nil, fmt.Errorf("store: hourly rollups: %w", err)
	}
	defer rows.Close()
	var out []ServerHour
	for rows.Next() {
		var hs ServerHour
		if err := scanHourStats(rows, &hs.ServerID, &hs.Region, &hs.Hour, &hs.Stats); err != nil {
			return nil, fmt.Errorf("store: hourly rollups: %w", err)
		}
		hs.Hour = hs.Hour.UTC()
		out = append(out, hs)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: hourly rollups: %w", err)
	}
	return out, nil
}

// Merge adds the runs of o to st (counts, latency sum, extremes and histogram).
func (st *Stats) Merge(o Stats) { st.merge(o) }

// FailureRange asks for a server's last down or degraded run in [From, To). Keep the range
// short (an hour, a day): the rollups of its hours are read to find the hour of that run.
type FailureRange struct {
	ServerID int64
	From, To time.Time
}

// LatestFailures returns, for each range, the server's last down or degraded run in it
// (without steps or findings), by server. A range without one, or whose runs have aged out,
// yields nothing.
func (s *Store) LatestFailures(ctx context.Context, ranges []FailureRange) ([]RunRecord, error) {
	if len(ranges) == 0 {
		return nil, nil
	}
	ids := make([]int64, len(ranges))
	from := make([]time.Time, len(ranges))
	to := make([]time.Time, len(ranges))
	for i, r := range ranges {
		ids[i], from[i], to[i] = r.ServerID, r.From, r.To
	}
	rows, err := s.pool.Query(ctx, `SELECT `+runColumns+`
		FROM unnest($1::bigint[], $2::timestamptz[], $3::timestamptz[]) AS q(server_id, lo, hi)
		CROSS JOIN LATERAL (SELECT max(u.hour) AS hour FROM rollups u
			WHERE u.server_id = q.server_id AND u.hour >= date_trunc('hour', q.lo, 'UTC') AND u.hour < q.hi
				AND (u.down > 0 OR u.degraded > 0)) h
		CROSS JOIN LATERAL (SELECT * FROM runs r
			WHERE r.server_id = q.server_id AND r.started_at >= greatest(h.hour, q.lo)
				AND r.started_at < least(h.hour + interval '1 hour', q.hi) AND r.outcome <> 'up'
			ORDER BY r.started_at DESC LIMIT 1) r
		ORDER BY r.server_id`, ids, from, to)
	if err != nil {
		return nil, fmt.Errorf("store: latest failures: %w", err)
	}
	var out []RunRecord
	if err := forEachRun(rows, func(r RunRecord) { out = append(out, r) }); err != nil {
		return nil, fmt.Errorf("store: latest failures: %w", err)
	}
	return out, nil
}
