package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// Sources of server definitions. A name belongs to one source: the API cannot take over a
// server of the config file, nor the other way round.
const (
	SourceConfig = "config"
	SourceAPI    = "api"
)

// Server is one MCP server to probe.
type Server struct {
	ID     int64
	Name   string
	Source string
	// Transport is "stdio" (Command, Args, Env, Dir) or an HTTP transport such as "http",
	// "sse" or "auto" (URL, Headers).
	Transport string
	URL       string
	Command   string
	Args      []string
	Env       []EnvVar
	Dir       string
	Headers   []HeaderRef
	// Schedule is a cron expression or descriptor as the monitor understands it.
	Schedule string
	Timeout  time.Duration
	Labels   map[string]string
	Enabled  bool
	// Calls are the opt-in tool calls the probe makes (a JSON array as internal/calls encodes
	// it, each argument read from the environment a reference to its variable, never its
	// value); nil for none. Only a server of the configuration file has calls: no one else may
	// make the monitor call a tool. The store keeps them as given, and leaves their meaning to
	// the monitor. (omitempty keeps the configuration's generation hash of a server without
	// calls what it was before servers had them.)
	Calls json.RawMessage `json:",omitempty"`
	// Set by the store.
	CreatedAt time.Time
	UpdatedAt time.Time
}

// HeaderRef is an HTTP header whose value is read from the prober's environment at probe
// time: Prefix + $FromEnv (for example "Bearer " and MCP_TOKEN). The value itself is never
// stored.
type HeaderRef struct {
	Name    string `json:"name"`
	FromEnv string `json:"fromEnv"`
	Prefix  string `json:"prefix,omitempty"`
}

// EnvVar is one environment variable of a stdio server: a literal Value, or the value of the
// prober's own variable FromEnv (for secrets, which are then not stored).
type EnvVar struct {
	Name    string `json:"name"`
	Value   string `json:"value,omitempty"`
	FromEnv string `json:"fromEnv,omitempty"`
}

// serverColumns lists a server's columns in the order scanServer reads them, for a query
// that names the servers table v.
const serverColumns = `v.id, v.name, v.source, v.transport, coalesce(v.url, ''), coalesce(v.command, ''),
	v.args, v.env, v.dir, v.headers, v.schedule, v.timeout_ms, v.labels, v.enabled, v.calls, v.created_at, v.updated_at`

func scanServer(row pgx.Row, v *Server, extra ...any) error {
	var timeoutMS int64
	// The JSON columns are decoded here, and only when they hold something: most servers have
	// no environment and no labels, and decoding "[]" and "{}" through encoding/json for each
	// of 10,000 servers took a tenth of reading every server's status.
	var env, headers, labels []byte
	dest := append([]any{&v.ID, &v.Name, &v.Source, &v.Transport, &v.URL, &v.Command,
		&v.Args, &env, &v.Dir, &headers, &v.Schedule, &timeoutMS, &labels, &v.Enabled, &v.Calls,
		&v.CreatedAt, &v.UpdatedAt}, extra...)
	if err := row.Scan(dest...); err != nil {
		return err
	}
	v.Timeout = time.Duration(timeoutMS) * time.Millisecond
	v.Env, v.Headers, v.Labels = nil, nil, nil
	for _, c := range []struct {
		name string
		text []byte
		into any
	}{{"env", env, &v.Env}, {"headers", headers, &v.Headers}, {"labels", labels, &v.Labels}} {
		if emptyJSON(c.text) {
			continue
		}
		if err := json.Unmarshal(c.text, c.into); err != nil {
			return fmt.Errorf("column %s: %w", c.name, err)
		}
	}
	// Empty reads back as nil, as an unset field was written.
	if len(v.Args) == 0 {
		v.Args = nil
	}
	if len(v.Env) == 0 {
		v.Env = nil
	}
	if len(v.Headers) == 0 {
		v.Headers = nil
	}
	if len(v.Labels) == 0 {
		v.Labels = nil
	}
	if string(v.Calls) == "[]" {
		v.Calls = nil
	}
	return nil
}

// emptyJSON reports whether a JSON column's text is an empty array or object, or null.
func emptyJSON(text []byte) bool {
	switch string(text) {
	case "", "[]", "{}", "null":
		return true
	}
	return false
}

// Server returns the server with the given id.
func (s *Store) Server(ctx context.Context, id int64) (Server, error) {
	var v Server
	err := scanServer(s.pool.QueryRow(ctx, `SELECT `+serverColumns+` FROM servers v WHERE v.id = $1`, id), &v)
	if errors.Is(err, pgx.ErrNoRows) {
		return Server{}, fmt.Errorf("server %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return Server{}, fmt.Errorf("store: server %d: %w", id, err)
	}
	return v, nil
}

// ServerByName returns the server with the given name.
func (s *Store) ServerByName(ctx context.Context, name string) (Server, error) {
	var v Server
	err := scanServer(s.pool.QueryRow(ctx, `SELECT `+serverColumns+` FROM servers v WHERE v.name = $1`, name), &v)
	if errors.Is(err, pgx.ErrNoRows) {
		return Server{}, fmt.Errorf("server %q: %w", name, ErrNotFound)
	}
	if err != nil {
		return Server{}, fmt.Errorf("store: server %q: %w", name, err)
	}
	return v, nil
}

// Servers returns every server, disabled ones included, by name.
func (s *Store) Servers(ctx context.Context) ([]Server, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+serverColumns+` FROM servers v ORDER BY v.name`)
	if err != nil {
		return nil, fmt.Errorf("store: list servers: %w", err)
	}
	defer rows.Close()
	// Sized by the list before: appending 10,000 servers of some 300 bytes copied them over
	// and over.
	out := make([]Server, 0, s.serversListed.Load())
	for rows.Next() {
		var v Server
		if err := scanServer(rows, &v); err != nil {
			return nil, fmt.Errorf("store: list servers: %w", err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list servers: %w", err)
	}
	s.serversListed.Store(int64(len(out)))
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// UpsertServer creates the server or updates the one of the same name and source, and
// returns it as stored.
func (s *Store) UpsertServer(ctx context.Context, v Server) (Server, error) {
	var out Server
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		ids, err := upsertServers(ctx, tx, []Server{v})
		if err != nil {
			return err
		}
		return scanServer(tx.QueryRow(ctx, `SELECT `+serverColumns+` FROM servers v WHERE v.id = $1`, ids[0]), &out)
	})
	if err != nil {
		return Server{}, fmt.Errorf("store: upsert server %q: %w", v.Name, err)
	}
	return out, nil
}

// SyncReport says what SyncServers changed.
type SyncReport struct {
	Upserted int
	// Disabled names the servers of the source that the new list no longer has.
	Disabled []string
}

// SyncServers makes the servers of one source (the config file, say) exactly the given list:
// each is created or updated by name, and servers of that source missing from the list are
// disabled (kept, with their history). It runs in one transaction. SyncGeneration does the
// same after checking that the list is not older than the one synced last.
func (s *Store) SyncServers(ctx context.Context, source string, servers []Server) (SyncReport, error) {
	servers, err := syncList(source, servers)
	if err != nil {
		return SyncReport{}, err
	}
	var report SyncReport
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		report, err = syncServersTx(ctx, tx, source, servers)
		return err
	})
	if err != nil {
		return SyncReport{}, fmt.Errorf("store: sync %s servers: %w", source, err)
	}
	return report, nil
}

// syncList checks a sync's list and returns a copy with each server's source filled in.
func syncList(source string, servers []Server) ([]Server, error) {
	if source == "" {
		return nil, fmt.Errorf("%w: sync of an empty source", ErrInvalidServer)
	}
	servers = slices.Clone(servers) // sources are filled in on the copy
	for i := range servers {
		if servers[i].Source == "" {
			servers[i].Source = source
		}
		if servers[i].Source != source {
			return nil, fmt.Errorf("%w %q: source %q in a sync of %q", ErrInvalidServer, servers[i].Name, servers[i].Source, source)
		}
	}
	return servers, nil
}

// syncServersTx is SyncServers inside tx, on a list syncList checked.
func syncServersTx(ctx context.Context, tx pgx.Tx, source string, servers []Server) (SyncReport, error) {
	var report SyncReport
	names := make([]string, len(servers))
	for i := range servers {
		names[i] = servers[i].Name
	}
	if len(servers) > 0 {
		if _, err := upsertServers(ctx, tx, servers); err != nil {
			return report, err
		}
	}
	rows, err := tx.Query(ctx, `UPDATE servers SET enabled = false, updated_at = now()
		WHERE source = $1 AND enabled AND name <> ALL($2::text[]) RETURNING id, name`, source, names)
	if err != nil {
		return report, fmt.Errorf("disable removed servers: %w", err)
	}
	var ids []int64
	var id int64
	var name string
	if _, err := pgx.ForEachRow(rows, []any{&id, &name}, func() error {
		ids = append(ids, id)
		report.Disabled = append(report.Disabled, name)
		return nil
	}); err != nil {
		return report, fmt.Errorf("disable removed servers: %w", err)
	}
	if _, err := tx.Exec(ctx, `DELETE FROM schedule WHERE server_id = ANY($1)`, ids); err != nil {
		return report, fmt.Errorf("unschedule removed servers: %w", err)
	}
	report.Upserted = len(servers)
	return report, nil
}

// DeleteServer removes a server and its schedule. Its runs and rollups stay until retention
// removes them.
func (s *Store) DeleteServer(ctx context.Context, id int64) error {
	tag, err := s.pool.Exec(ctx, `DELETE FROM servers WHERE id = $1`, id)
	if err != nil {
		return fmt.Errorf("store: delete server %d: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("server %d: %w", id, ErrNotFound)
	}
	return nil
}

// upsertServers writes servers by name inside tx and keeps their schedule rows in step:
// enabled servers get a row per known region, disabled ones none, and a changed schedule makes
// the server due now rather than at a time computed from the old schedule. It returns the ids
// in the order given.
//
// Against a concurrent RegisterRegion, which holds a SHARE lock on servers while it fills the
// schedule: the lock below waits for it, and the schedule statements after it, each with a
// snapshot of its own, then see the new region.
func upsertServers(ctx context.Context, tx pgx.Tx, servers []Server) ([]int64, error) {
	n := len(servers)
	var (
		names, sources, transports, dirs, schedules = make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		urls, commands                              = make([]*string, n), make([]*string, n)
		args, envs, headers, labels, calls          = make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		timeouts                                    = make([]int64, n)
		enabled                                     = make([]bool, n)
	)
	seen := make(map[string]bool, n)
	for i, v := range servers {
		if err := v.Validate(); err != nil {
			return nil, err
		}
		if seen[v.Name] {
			return nil, fmt.Errorf("%w %q: listed twice", ErrInvalidServer, v.Name)
		}
		seen[v.Name] = true
		names[i], sources[i], transports[i], dirs[i], schedules[i] = v.Name, v.Source, v.Transport, v.Dir, v.Schedule
		if v.Transport == protocol.TransportStdio {
			commands[i] = &v.Command
		} else {
			urls[i] = &v.URL
		}
		var err error
		if args[i], err = jsonText(v.Args, "[]"); err != nil {
			return nil, err
		}
		if envs[i], err = jsonText(v.Env, "[]"); err != nil {
			return nil, err
		}
		if headers[i], err = jsonText(v.Headers, "[]"); err != nil {
			return nil, err
		}
		if labels[i], err = jsonText(v.Labels, "{}"); err != nil {
			return nil, err
		}
		calls[i] = "[]"
		if len(v.Calls) > 0 {
			calls[i] = string(v.Calls)
		}
		timeouts[i] = v.Timeout.Milliseconds()
		enabled[i] = v.Enabled
	}

	// Lock order: servers before schedule, as RegisterRegion and DeleteServer take them.
	// Taking the table lock the insert would take anyway, before the schedule update below,
	// keeps a concurrent RegisterRegion from deadlocking with this transaction.
	if _, err := tx.Exec(ctx, `LOCK TABLE servers IN ROW EXCLUSIVE MODE`); err != nil {
		return nil, fmt.Errorf("lock servers: %w", err)
	}
	var taken []string
	rows, err := tx.Query(ctx, `SELECT name FROM servers
		JOIN unnest($1::text[], $2::text[]) AS u(name, source) USING (name)
		WHERE servers.source <> u.source ORDER BY name`, names, sources)
	if err != nil {
		return nil, fmt.Errorf("check sources: %w", err)
	}
	if taken, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
		return nil, fmt.Errorf("check sources: %w", err)
	}
	if len(taken) > 0 {
		return nil, fmt.Errorf("%w: %q", ErrNameTaken, taken)
	}

	if _, err := tx.Exec(ctx, `UPDATE schedule SET next_due = least(schedule.next_due, now())
		FROM servers v JOIN unnest($1::text[], $2::text[]) AS u(name, schedule) USING (name)
		WHERE schedule.server_id = v.id AND v.schedule <> u.schedule`, names, schedules); err != nil {
		return nil, fmt.Errorf("reschedule: %w", err)
	}

	rows, err = tx.Query(ctx, `INSERT INTO servers AS v (name, source, transport, url, command, args, env, dir,
			headers, schedule, timeout_ms, labels, enabled, calls)
		SELECT u.name, u.source, u.transport, u.url, u.command,
			ARRAY(SELECT a FROM jsonb_array_elements_text(u.args::jsonb) WITH ORDINALITY AS t(a, i) ORDER BY i), u.env::jsonb, u.dir,
			u.headers::jsonb, u.schedule, u.timeout_ms, u.labels::jsonb, u.enabled, u.calls::json
		FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
			$8::text[], $9::text[], $10::text[], $11::bigint[], $12::text[], $13::bool[], $14::text[])
			AS u(name, source, transport, url, command, args, env, dir, headers, schedule,
			timeout_ms, labels, enabled, calls)
		ORDER BY u.name -- one row-lock order for concurrent writers
		ON CONFLICT (name) DO UPDATE SET
			transport = excluded.transport, url = excluded.url, command = excluded.command,
			args = excluded.args, env = excluded.env, dir = excluded.dir, headers = excluded.headers,
			schedule = excluded.schedule, timeout_ms = excluded.timeout_ms, labels = excluded.labels,
			enabled = excluded.enabled, calls = excluded.calls, updated_at = now()
			WHERE v.source = excluded.source
		RETURNING v.id, v.name, v.enabled`,
		names, sources, transports, urls, commands, args, envs, dirs, headers, schedules, timeouts, labels, enabled, calls)
	if err != nil {
		return nil, fmt.Errorf("write servers: %w", err)
	}
	idByName := make(map[string]int64, n)
	var on, off []int64
	var id int64
	var name string
	var isEnabled bool
	if _, err := pgx.ForEachRow(rows, []any{&id, &name, &isEnabled}, func() error {
		idByName[name] = id
		if isEnabled {
			on = append(on, id)
		} else {
			off = append(off, id)
		}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("write servers: %w", err)
	}

	if _, err := tx.Exec(ctx, `DELETE FROM schedule WHERE server_id = ANY($1)`, off); err != nil {
		return nil, fmt.Errorf("unschedule disabled servers: %w", err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO schedule (server_id, region, next_due)
		SELECT s.id, r.name, now() FROM unnest($1::bigint[]) AS s(id) CROSS JOIN regions r
		ON CONFLICT DO NOTHING`, on); err != nil {
		return nil, fmt.Errorf("schedule servers: %w", err)
	}

	ids := make([]int64, n)
	for i, name := range names {
		id, ok := idByName[name]
		if !ok { // another source took the name since the check above
			return nil, fmt.Errorf("%w: %q", ErrNameTaken, name)
		}
		ids[i] = id
	}
	return ids, nil
}

// jsonText encodes v as JSON text, with empty for nil slices and maps.
func jsonText(v any, empty string) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("encode %T: %w", v, err)
	}
	if string(b) == "null" {
		return empty, nil
	}
	return string(b), nil
}
