package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// ToolChange is a run whose tool fingerprint differs from the run before it (in any region):
// the server's tool surface changed, or was first seen, then.
type ToolChange struct {
	RunID       RunID
	Start       time.Time
	Region      string
	Fingerprint string
	ToolCount   *int
	// Previous is the run before it, nil when this is the first run with a fingerprint in
	// the period looked at.
	Previous *ToolSurfaceRun
}

// ToolSurfaceRun is a run as far as its tool surface goes.
type ToolSurfaceRun struct {
	RunID       RunID
	Start       time.Time
	Fingerprint string
	ToolCount   *int
}

// ToolChanges returns the changes of a server's tool fingerprint among its runs since since,
// newest first, at most limit of them. Runs without a fingerprint (tools/list failed) do not
// count as changes.
func (s *Store) ToolChanges(ctx context.Context, serverID int64, since time.Time, limit int) ([]ToolChange, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, started_at, region, tool_fingerprint, tool_count,
			prev_id, prev_started_at, prev_fingerprint, prev_tool_count
		FROM (
			SELECT r.id, r.started_at, r.region, r.tool_fingerprint, r.tool_count,
				lag(r.id) OVER w AS prev_id, lag(r.started_at) OVER w AS prev_started_at,
				lag(r.tool_fingerprint) OVER w AS prev_fingerprint, lag(r.tool_count) OVER w AS prev_tool_count
			FROM runs r
			WHERE r.server_id = $1 AND r.started_at >= $2 AND r.tool_fingerprint <> ''
			WINDOW w AS (ORDER BY r.started_at, r.id)) c
		WHERE prev_fingerprint IS DISTINCT FROM tool_fingerprint
		ORDER BY started_at DESC, id DESC LIMIT $3`, serverID, since, limit)
	if err != nil {
		return nil, fmt.Errorf("store: tool changes of server %d: %w", serverID, err)
	}
	var out []ToolChange
	var c ToolChange
	var prevID *RunID
	var prevStart *time.Time
	var prevFP *string
	var prevCount *int
	if _, err := pgx.ForEachRow(rows, []any{&c.RunID, &c.Start, &c.Region, &c.Fingerprint, &c.ToolCount,
		&prevID, &prevStart, &prevFP, &prevCount}, func() error {
		c.Start = c.Start.UTC()
		c.Previous = nil
		if prevID != nil && prevStart != nil && prevFP != nil {
			c.Previous = &ToolSurfaceRun{RunID: *prevID, Start: prevStart.UTC(), Fingerprint: *prevFP, ToolCount: prevCount}
		}
		out = append(out, c)
		c.ToolCount = nil
		prevCount = nil
		return nil
	}); err != nil {
		return nil, fmt.Errorf("store: tool changes of server %d: %w", serverID, err)
	}
	return out, nil
}
