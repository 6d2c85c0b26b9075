package store

import (
	"context"
	"fmt"
)

// MaxRecentRuns bounds the runs RecentRuns returns per server.
const MaxRecentRuns = 100

// RecentRuns returns the last n runs (at most MaxRecentRuns) of each server, every region,
// newest first within a server, servers in ascending id: what a status page's bar of recent
// probes draws.
func (s *Store) RecentRuns(ctx context.Context, serverIDs []int64, n int) ([]RunRecord, error) {
	if len(serverIDs) == 0 || n <= 0 {
		return nil, nil
	}
	n = min(n, MaxRecentRuns)
	rows, err := s.pool.Query(ctx, `SELECT `+runColumns+`
		FROM unnest($1::bigint[]) AS q(server_id)
		CROSS JOIN LATERAL (SELECT * FROM runs r WHERE r.server_id = q.server_id
			ORDER BY r.started_at DESC LIMIT $2) r
		ORDER BY r.server_id, r.started_at DESC`, serverIDs, n)
	if err != nil {
		return nil, fmt.Errorf("store: recent runs: %w", err)
	}
	var out []RunRecord
	if err := forEachRun(rows, func(r RunRecord) { out = append(out, r) }); err != nil {
		return nil, fmt.Errorf("store: recent runs: %w", err)
	}
	return out, nil
}
