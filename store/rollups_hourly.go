package store

import (
	"context"
	"fmt"
	"time"
)

// Rollups read back hour by hour, for sparklines and latency charts over long periods; the
// figures of whole windows (uptime, percentiles) come from the status*.go queries.

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
