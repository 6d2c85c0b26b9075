package store

import (
	"context"
	"fmt"
	"time"
)

// The last failed run of a period, behind a "last error": raw runs are read only through the
// (server_id, started_at) index, inside bounds of an hour or a day, so Postgres skips the
// partitions outside them.

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
