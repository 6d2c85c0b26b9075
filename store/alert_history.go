package store

import (
	"context"
	"fmt"
	"time"
)

// AlertHistoryQuery selects alert transitions, newest first.
type AlertHistoryQuery struct {
	// ServerID selects one server; 0 all.
	ServerID int64
	// Kind selects one kind; "" all.
	Kind string
	// BeforeID pages back: entries with a smaller id (0: from the newest).
	BeforeID int64
	// Limit caps the entries (at most MaxRunsPerQuery; 0 means 100).
	Limit int
}

// AlertHistoryEntry is one transition with how its notifications fared.
type AlertHistoryEntry struct {
	ID       int64
	ServerID int64
	Server   string
	Kind     string
	Key      string
	Incident string
	Event    string
	At       time.Time
	Regions  []string
	Summary  string
	Details  []byte // JSON
	Muted    string
	// Notifications by fate: delivered, still being tried, given up.
	Sent, Pending, Failed int
}

// AlertHistory returns alert transitions for the dashboard.
func (s *Store) AlertHistory(ctx context.Context, q AlertHistoryQuery) ([]AlertHistoryEntry, error) {
	limit := q.Limit
	if limit <= 0 {
		limit = 100
	}
	limit = min(limit, MaxRunsPerQuery)
	rows, err := s.pool.Query(ctx, `SELECT h.id, h.server_id, h.server, h.kind, h.key, h.incident::text, h.event,
			h.at, h.regions, h.summary, h.details, h.muted,
			count(o.id) FILTER (WHERE o.sent_at IS NOT NULL),
			count(o.id) FILTER (WHERE o.sent_at IS NULL AND o.failed_at IS NULL),
			count(o.id) FILTER (WHERE o.failed_at IS NOT NULL)
		FROM alert_history h LEFT JOIN alert_outbox o ON o.history_id = h.id
		WHERE ($1::bigint = 0 OR h.server_id = $1) AND ($2::text = '' OR h.kind = $2) AND ($3::bigint = 0 OR h.id < $3)
		GROUP BY h.id
		ORDER BY h.id DESC
		LIMIT $4`, q.ServerID, q.Kind, q.BeforeID, limit)
	if err != nil {
		return nil, fmt.Errorf("store: alert history: %w", err)
	}
	defer rows.Close()
	var out []AlertHistoryEntry
	for rows.Next() {
		var e AlertHistoryEntry
		if err := rows.Scan(&e.ID, &e.ServerID, &e.Server, &e.Kind, &e.Key, &e.Incident, &e.Event, &e.At,
			&e.Regions, &e.Summary, &e.Details, &e.Muted, &e.Sent, &e.Pending, &e.Failed); err != nil {
			return nil, fmt.Errorf("store: alert history: %w", err)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: alert history: %w", err)
	}
	return out, nil
}

// OpenAlerts returns the firing alerts of one server (0: of all servers), by server, kind
// and key.
func (s *Store) OpenAlerts(ctx context.Context, serverID int64) ([]AlertState, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+alertStateColumns+` FROM alert_state
		WHERE status = 'firing' AND ($1::bigint = 0 OR server_id = $1) ORDER BY server_id, kind, key`, serverID)
	if err != nil {
		return nil, fmt.Errorf("store: open alerts: %w", err)
	}
	defer rows.Close()
	var out []AlertState
	for rows.Next() {
		var st AlertState
		if err := scanAlertState(rows, &st); err != nil {
			return nil, fmt.Errorf("store: open alerts: %w", err)
		}
		out = append(out, st)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: open alerts: %w", err)
	}
	return out, nil
}

// DeleteAlertHistoryBefore removes alert transitions older than cutoff with their
// notifications, keeping those with a notification still to deliver and the transitions of
// open incidents. It returns how many transitions it removed.
func (s *Store) DeleteAlertHistoryBefore(ctx context.Context, cutoff time.Time) (int64, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM alert_history h
		WHERE h.at < $1
			AND NOT EXISTS (SELECT 1 FROM alert_outbox o
				WHERE o.history_id = h.id AND o.sent_at IS NULL AND o.failed_at IS NULL)
			AND NOT EXISTS (SELECT 1 FROM alert_state st
				WHERE st.incident = h.incident AND st.status = 'firing')`, cutoff)
	if err != nil {
		return 0, fmt.Errorf("store: delete alert history: %w", err)
	}
	return tag.RowsAffected(), nil
}

// OpenAlert is an open alert with the latest transition of its incident: what a status page
// shows of it (for one not yet announced, the transition says why: a maintenance window).
type OpenAlert struct {
	AlertState
	// LastEvent, LastAt and LastMuted are the incident's latest transition ("" and zero when
	// its history is gone).
	LastEvent string
	LastAt    time.Time
	LastMuted string
}

// OpenAlertsWithLast returns the firing alerts of a server (0: of every server), ordered by
// server, kind and key, each with its incident's latest transition.
func (s *Store) OpenAlertsWithLast(ctx context.Context, serverID int64) ([]OpenAlert, error) {
	// The lateral subquery names only event, at and muted: the state's columns need no prefix.
	rows, err := s.pool.Query(ctx, `SELECT `+alertStateColumns+`,
			coalesce(h.event, ''), h.at, coalesce(h.muted, '')
		FROM alert_state st
		LEFT JOIN LATERAL (SELECT event, at, muted FROM alert_history h
			WHERE h.incident = st.incident AND h.server_id = st.server_id
			ORDER BY h.id DESC LIMIT 1) h ON true
		WHERE st.status = 'firing' AND ($1::bigint = 0 OR st.server_id = $1)
		ORDER BY st.server_id, st.kind, st.key`, serverID)
	if err != nil {
		return nil, fmt.Errorf("store: open alerts: %w", err)
	}
	defer rows.Close()
	var out []OpenAlert
	for rows.Next() {
		var a OpenAlert
		var at *time.Time
		if err := scanAlertState(rows, &a.AlertState, &a.LastEvent, &at, &a.LastMuted); err != nil {
			return nil, fmt.Errorf("store: open alerts: %w", err)
		}
		a.LastAt = timeOrZero(at)
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: open alerts: %w", err)
	}
	return out, nil
}
