package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mcpwatch/mcpwatch/internal/textclip"
)

// Alert states.
const (
	AlertOK     = "ok"
	AlertFiring = "firing"
)

// AlertState is one alert of one server: (server, kind, key), as package alert keeps it. The
// store neither reads Details nor judges transitions.
type AlertState struct {
	ServerID int64
	Kind     string
	Key      string
	Status   string // AlertOK or AlertFiring
	// Incident is the UUID of the open (or last) incident, "" before the first.
	Incident string
	// Times are zero where the column is NULL.
	Since, FiredAt, ResolvedAt, NotifiedAt time.Time
	Held, CondBad                          bool
	Cycles                                 []time.Time
	// Details is JSON.
	Details   []byte
	UpdatedAt time.Time
}

// AlertSnapshot is what the store holds about one server's alerts.
type AlertSnapshot struct {
	ServerID int64
	// Memory maps a part name to its JSON.
	Memory map[string][]byte
	States []AlertState
}

// AlertEvent is one transition for the history, with the notifications it causes.
type AlertEvent struct {
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
	// Muted says why nothing is sent ("" when Outbox is not empty).
	Muted  string
	Outbox []OutboxItem
}

// OutboxItem is a notification to deliver on one channel.
type OutboxItem struct {
	Channel string
	Target  string
	Payload []byte // JSON
}

// AlertChanges is what an alert update writes: memory parts that changed, states that changed
// and the events with their notifications.
type AlertChanges struct {
	Memory map[string][]byte
	States []AlertState
	Events []AlertEvent
}

// Notifications counts the outbox rows of the changes.
func (c AlertChanges) Notifications() int {
	n := 0
	for _, e := range c.Events {
		n += len(e.Outbox)
	}
	return n
}

// alertLockClass scopes the advisory lock keys of UpdateAlerts.
const alertLockClass = "mcpwatch-alerts"

// UpdateAlerts reads a server's alert memory and states, lets decide compute the changes, and
// writes them, all in one transaction that holds a lock on the server's alerts: the runs of
// one server from several regions and workers are judged one after the other, each against
// the state the previous one left. decide must be a pure function of the snapshot (it runs
// again if the transaction is retried by the caller). It returns the changes written.
func (s *Store) UpdateAlerts(ctx context.Context, serverID int64, decide func(AlertSnapshot) (AlertChanges, error)) (AlertChanges, error) {
	var out AlertChanges
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		// A 64-bit key per (schema, server): the single-key space does not overlap the
		// two-key locks of migrations and partitions.
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1 || ':' || current_schema() || ':' || $2::bigint::text, 0))`,
			alertLockClass, serverID); err != nil {
			return fmt.Errorf("lock: %w", err)
		}
		snap, err := loadAlertSnapshot(ctx, tx, serverID)
		if err != nil {
			return err
		}
		changes, err := decide(snap)
		if err != nil {
			return err
		}
		if err := writeAlertChanges(ctx, tx, serverID, changes); err != nil {
			return err
		}
		out = changes
		return nil
	})
	if err != nil {
		return AlertChanges{}, fmt.Errorf("store: update alerts of server %d: %w", serverID, err)
	}
	return out, nil
}

const alertStateColumns = `server_id, kind, key, status, coalesce(incident::text, ''), since, fired_at,
	resolved_at, notified_at, held, cond_bad, cycles, details, updated_at`

// scanAlertState reads the columns of alertStateColumns into st, and any columns selected
// after them into extra.
func scanAlertState(row pgx.Row, st *AlertState, extra ...any) error {
	var since, fired, resolved, notified *time.Time
	if err := row.Scan(append([]any{&st.ServerID, &st.Kind, &st.Key, &st.Status, &st.Incident, &since, &fired,
		&resolved, &notified, &st.Held, &st.CondBad, &st.Cycles, &st.Details, &st.UpdatedAt}, extra...)...); err != nil {
		return err
	}
	st.Since, st.FiredAt, st.ResolvedAt, st.NotifiedAt = timeOrZero(since), timeOrZero(fired), timeOrZero(resolved), timeOrZero(notified)
	if len(st.Cycles) == 0 {
		st.Cycles = nil
	}
	return nil
}

func loadAlertSnapshot(ctx context.Context, tx pgx.Tx, serverID int64) (AlertSnapshot, error) {
	snap := AlertSnapshot{ServerID: serverID, Memory: map[string][]byte{}}
	rows, err := tx.Query(ctx, `SELECT part, data FROM alert_memory WHERE server_id = $1`, serverID)
	if err != nil {
		return snap, fmt.Errorf("read memory: %w", err)
	}
	var part string
	var data []byte
	if _, err := pgx.ForEachRow(rows, []any{&part, &data}, func() error {
		snap.Memory[part] = append([]byte(nil), data...)
		return nil
	}); err != nil {
		return snap, fmt.Errorf("read memory: %w", err)
	}
	rows, err = tx.Query(ctx, `SELECT `+alertStateColumns+` FROM alert_state WHERE server_id = $1 ORDER BY kind, key`, serverID)
	if err != nil {
		return snap, fmt.Errorf("read states: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var st AlertState
		if err := scanAlertState(rows, &st); err != nil {
			return snap, fmt.Errorf("read states: %w", err)
		}
		snap.States = append(snap.States, st)
	}
	if err := rows.Err(); err != nil {
		return snap, fmt.Errorf("read states: %w", err)
	}
	return snap, nil
}

func writeAlertChanges(ctx context.Context, tx pgx.Tx, serverID int64, c AlertChanges) error {
	b := &pgx.Batch{}
	for part, data := range c.Memory {
		b.Queue(`INSERT INTO alert_memory (server_id, part, data) VALUES ($1, $2, $3)
			ON CONFLICT (server_id, part) DO UPDATE SET data = excluded.data, updated_at = now()`,
			serverID, part, string(data))
	}
	for _, st := range c.States {
		if st.ServerID != serverID {
			return fmt.Errorf("state of server %d in an update of server %d", st.ServerID, serverID)
		}
		details := st.Details
		if len(details) == 0 {
			details = []byte("{}")
		}
		cycles := st.Cycles
		if cycles == nil {
			cycles = []time.Time{}
		}
		b.Queue(`INSERT INTO alert_state (server_id, kind, key, status, incident, since, fired_at,
				resolved_at, notified_at, held, cond_bad, cycles, details, updated_at)
			VALUES ($1, $2, $3, $4, nullif($5, '')::uuid, $6, $7, $8, $9, $10, $11, $12, $13, now())
			ON CONFLICT (server_id, kind, key) DO UPDATE SET status = excluded.status,
				incident = excluded.incident, since = excluded.since, fired_at = excluded.fired_at,
				resolved_at = excluded.resolved_at, notified_at = excluded.notified_at,
				held = excluded.held, cond_bad = excluded.cond_bad, cycles = excluded.cycles,
				details = excluded.details, updated_at = now()`,
			st.ServerID, st.Kind, st.Key, st.Status, st.Incident, nullTime(st.Since), nullTime(st.FiredAt),
			nullTime(st.ResolvedAt), nullTime(st.NotifiedAt), st.Held, st.CondBad, cycles, string(details))
	}
	for _, e := range c.Events {
		details := e.Details
		if len(details) == 0 {
			details = []byte("{}")
		}
		regions := e.Regions
		if regions == nil {
			regions = []string{}
		}
		channels := make([]string, len(e.Outbox))
		targets := make([]string, len(e.Outbox))
		payloads := make([]string, len(e.Outbox))
		for i, o := range e.Outbox {
			channels[i], targets[i], payloads[i] = o.Channel, o.Target, string(o.Payload)
		}
		// The history row and its notifications in one statement: the outbox rows need
		// the history id.
		b.Queue(`WITH h AS (
				INSERT INTO alert_history (server_id, server, kind, key, incident, event, at, regions, summary, details, muted)
				VALUES ($1, $2, $3, $4, $5::uuid, $6, $7, $8, $9, $10, $11)
				RETURNING id, incident
			)
			INSERT INTO alert_outbox (history_id, incident, channel, target, payload)
			SELECT h.id, h.incident, o.channel, o.target, o.payload::jsonb
			FROM h, unnest($12::text[], $13::text[], $14::text[]) WITH ORDINALITY AS o(channel, target, payload, n)
			ORDER BY o.n`,
			e.ServerID, textclip.Storable(e.Server, maxShortText), e.Kind, e.Key, e.Incident, e.Event, e.At, regions,
			textclip.Storable(e.Summary, maxLongText), string(details), e.Muted, channels, targets, payloads)
	}
	if b.Len() == 0 {
		return nil
	}
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("write alert changes: %w", err)
	}
	return nil
}

func nullTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

func timeOrZero(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return *t
}
