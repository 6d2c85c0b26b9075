package store

// The status*.go files answer "how is every server doing": the queries behind the JSON API and
// badges (internal/apiserver) and the dashboard (web/), which should use ServerStatuses for the
// status page, ServerStatus for one server's summary and ServerDetail for a server's page, so
// that every figure is computed one way. Server values returned here are whole rows: a stdio
// server's command, args and literal env values may hold secrets, so show a reader only what
// PublicURL and the header names say.

import (
	"cmp"
	"context"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// Server states shown to readers.
const (
	StateUp       = "up"       // every region's latest run is up
	StateDegraded = "degraded" // the server answers but fails checks, or some region sees it down
	StateDown     = "down"     // every region's latest run is down
	StateUnknown  = "unknown"  // no run yet
	StatePaused   = "paused"   // disabled: not probed
)

// Window is an uptime window: the current UTC hour and the Hours-1 whole hours before it.
// Aligning windows on hours lets them be summed from hourly rollups exactly.
type Window struct {
	Name  string
	Hours int
}

// Start is the first hour of the window for a reading at now.
func (w Window) Start(now time.Time) time.Time {
	return now.UTC().Truncate(time.Hour).Add(-time.Duration(w.Hours-1) * time.Hour)
}

// StatusWindows lists the windows every status carries, shortest first. The first one (24h)
// is also the window of the latency percentiles.
func StatusWindows() []Window {
	return []Window{{"24h", 24}, {"7d", 7 * 24}, {"30d", 30 * 24}, {"90d", 90 * 24}}
}

// LookupWindow finds a window by name ("30d").
func LookupWindow(name string) (Window, bool) {
	for _, w := range StatusWindows() {
		if w.Name == name {
			return w, true
		}
	}
	return Window{}, false
}

// StatusDays is how many daily uptime figures a status carries (today included).
const StatusDays = 90

// statusLookback bounds the search for a server's latest runs: a region with no run for this
// long is not counted in the server's state (a worker region that went away).
const statusLookback = 2 * day

// WindowStats are the runs of one window. The 24h window carries the latency histogram and
// extremes; longer ones carry counts and the latency sum (for the mean) only.
type WindowStats struct {
	Window
	Stats
}

// DayUptime is one UTC day: its runs and those that reached the server (up or degraded).
type DayUptime struct {
	Day  time.Time
	Runs int64
	OK   int64
}

// Uptime is OK/Runs, 0 when there were no runs.
func (d DayUptime) Uptime() float64 {
	if d.Runs == 0 {
		return 0
	}
	return float64(d.OK) / float64(d.Runs)
}

// RegionStatus is a server seen from one region: its latest run there.
type RegionStatus struct {
	Region string
	State  string
	Latest RunRecord
}

// Conformance is the verdict of the checks in one run.
type Conformance struct {
	RunID                        RunID
	At                           time.Time
	Pass, Fail, Warn, Skip, Info int
	// Untested counts the checks that applied but that the run could not judge; Advice the
	// warn checks of severity advice (they are in Warn too).
	Untested, Advice int
	// Failing and Warning list the check ids that failed and warned, in report order.
	Failing, Warning []string
}

// Score is the percentage of applicable checks that passed: a warning counts half, advice
// (no normative keyword) counts as a pass, an untested check as nothing (it applied, so it
// stays in the count: never a pass); skip and info do not count (a tools-only server can
// reach 100). It is 100 when no check applied.
func (c Conformance) Score() float64 {
	applied := c.Pass + c.Fail + c.Warn + c.Untested
	if applied == 0 {
		return 100
	}
	warnings := c.Warn - c.Advice
	return 100 * (float64(c.Pass) + float64(c.Advice) + float64(warnings)/2) / float64(applied)
}

// ServerStatus is one server now: its state, latest runs, uptime windows, daily uptime and the
// conformance of its latest run.
type ServerStatus struct {
	Server Server
	State  string
	// Latest is the newest run over all regions (nil before the first).
	Latest *RunRecord
	// Regions holds the latest run of each region that ran the server within two days, by
	// region name.
	Regions []RegionStatus
	// Windows follow StatusWindows, with every region counted.
	Windows []WindowStats
	// days are the counts of Days, oldest first, and today the number (dayOf) of the last.
	// Kept as counts: a reading of every server laid out 90 DayUptime values per server (36
	// MB for 10,000 servers, with a pointer in each for the collector to follow), where only
	// the servers on one page of the status page have theirs shown.
	days  []dayCount
	today int64
	// Conformance is that of Latest (nil when it has no findings).
	Conformance *Conformance
	// AsOf is the instant the status describes.
	AsOf time.Time
}

// Days returns the StatusDays UTC days ending on the day of the status, oldest first, every
// region counted; nil for a status not read from the store.
func (st *ServerStatus) Days() []DayUptime {
	return dayUptimes(st.days, st.today)
}

// Window returns the stats of the named window.
func (st *ServerStatus) Window(name string) (WindowStats, bool) {
	for _, w := range st.Windows {
		if w.Name == name {
			return w, true
		}
	}
	return WindowStats{}, false
}

// stateOf folds the latest outcome of each region into one state.
func stateOf(enabled bool, regions []RegionStatus) string {
	if !enabled {
		return StatePaused
	}
	if len(regions) == 0 {
		return StateUnknown
	}
	up, down := 0, 0
	for _, r := range regions {
		switch r.Latest.Outcome {
		case OutcomeUp:
			up++
		case OutcomeDown:
			down++
		}
	}
	switch {
	case up == len(regions):
		return StateUp
	case down == len(regions):
		return StateDown
	}
	return StateDegraded
}

// ServerStatuses returns the status of every server, by name.
func (s *Store) ServerStatuses(ctx context.Context, now time.Time) ([]ServerStatus, error) {
	out, _, err := s.statuses(ctx, s.Servers, 0, now)
	return out, err
}

// ServerStatus returns the status of one server.
func (s *Store) ServerStatus(ctx context.Context, id int64, now time.Time) (ServerStatus, error) {
	out, _, err := s.statuses(ctx, s.oneServer(id), id, now)
	if err != nil {
		return ServerStatus{}, err
	}
	return out[0], nil
}

// oneServer lists the server id, for statuses.
func (s *Store) oneServer(id int64) func(context.Context) ([]Server, error) {
	return func(ctx context.Context) ([]Server, error) {
		v, err := s.Server(ctx, id)
		return []Server{v}, err
	}
}

// statuses assembles the statuses of the servers list returns, and the window figures they
// were summed from, by region; only is their id when there is one, 0 for all. The reads are
// independent but for the conformance, which needs the latest runs, so they run at once, each
// on a connection of its own: a reading then takes as long as its longest chain of queries
// rather than all of them together. The windows of each server are laid out while the latest
// runs are still being read (the longest chain), not after.
func (s *Store) statuses(ctx context.Context, list func(context.Context) ([]Server, error), only int64, now time.Time) ([]ServerStatus, *windowSet, error) {
	now = now.UTC()
	var (
		servers                        []Server
		latest                         map[int64][]RunRecord
		conf                           map[RunID]Conformance
		windows                        *windowSet
		serversErr, windowsErr, runErr error
		figures, runs                  sync.WaitGroup
	)
	figures.Go(func() { servers, serversErr = list(ctx) })
	figures.Go(func() { windows, windowsErr = s.windowSums(ctx, only, now) })
	runs.Go(func() {
		if latest, runErr = s.latestRuns(ctx, only, now); runErr != nil {
			return
		}
		newest := make([]RunRecord, 0, len(latest))
		for _, runs := range latest {
			newest = append(newest, newestOf(runs))
		}
		if only == 0 {
			conf, runErr = s.conformanceOfLatest(ctx, newest)
		} else {
			conf, runErr = s.conformanceOf(ctx, newest)
		}
	})
	figures.Wait()
	if err := cmp.Or(serversErr, windowsErr); err != nil {
		runs.Wait()
		return nil, nil, err
	}
	out := make([]ServerStatus, len(servers))
	arena := newStatusArena(len(servers))
	today := dayOf(now)
	for i, v := range servers {
		st := &out[i]
		st.Server, st.AsOf, st.today = v, now, today
		st.Windows, st.days = windows.server(v.ID, arena)
	}
	runs.Wait()
	if runErr != nil {
		return nil, nil, runErr
	}
	for i := range out {
		st := &out[i]
		for _, r := range latest[st.Server.ID] {
			st.Regions = append(st.Regions, RegionStatus{Region: r.Region, State: r.Outcome, Latest: r})
		}
		if len(st.Regions) > 0 {
			n := newestOf(latest[st.Server.ID])
			st.Latest = &n
			if c, ok := conf[n.ID]; ok {
				st.Conformance = &c
			}
		}
		st.State = stateOf(st.Server.Enabled, st.Regions)
	}
	return out, windows, nil
}

func newestOf(runs []RunRecord) RunRecord {
	n := runs[0]
	for _, r := range runs[1:] {
		if r.Start.After(n.Start) {
			n = r
		}
	}
	return n
}

// latestRuns returns the latest run of each (server, region) within statusLookback, by
// server; a server with none there gets its latest run of any age (within retention).
func (s *Store) latestRuns(ctx context.Context, only int64, now time.Time) (map[int64][]RunRecord, error) {
	var filter *int64
	if only != 0 {
		filter = &only
	}
	out := map[int64][]RunRecord{}
	// Both reads run in one read-only transaction with JIT compilation off. The planner sizes
	// the cross join by table regions, which nothing analyzes (a table of a few rows never
	// reaches autovacuum's threshold), so it assumes a thousand regions and a cost far above
	// jit_above_cost: compiling the plan then took some 300 ms for 1,000 servers, twenty times
	// what running it takes.
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SET LOCAL jit = off`); err != nil {
			return err
		}
		// The lateral subquery walks runs_server_started of the partitions the time bound
		// leaves, newest first, and stops at the first row of the region.
		rows, err := tx.Query(ctx, `SELECT `+runColumns+` FROM servers v CROSS JOIN regions g
			CROSS JOIN LATERAL (SELECT * FROM runs r WHERE r.server_id = v.id AND r.region = g.name
				AND r.started_at >= $1 ORDER BY r.started_at DESC LIMIT 1) r
			WHERE ($2::bigint IS NULL OR v.id = $2)
			ORDER BY r.server_id, r.region`, now.Add(-statusLookback), filter)
		if err != nil {
			return err
		}
		if err := forEachRun(rows, func(r RunRecord) { out[r.ServerID] = append(out[r.ServerID], r) }); err != nil {
			return err
		}
		// Servers quiet for longer (paused, or probed rarely): their one latest run. The
		// servers found above are left out by an anti-join: "v.id <> ALL($2)" compared every
		// server with every id found, 19 ms for 1,000 servers and a hundred times that for
		// 10,000.
		rows, err = tx.Query(ctx, `SELECT `+runColumns+` FROM servers v
			LEFT JOIN unnest($2::bigint[]) AS seen(id) ON seen.id = v.id
			CROSS JOIN LATERAL (SELECT * FROM runs r WHERE r.server_id = v.id
				ORDER BY r.started_at DESC LIMIT 1) r
			WHERE ($1::bigint IS NULL OR v.id = $1) AND seen.id IS NULL`, filter, keysOf(out))
		if err != nil {
			return err
		}
		return forEachRun(rows, func(r RunRecord) { out[r.ServerID] = append(out[r.ServerID], r) })
	})
	if err != nil {
		return nil, fmt.Errorf("store: latest runs: %w", err)
	}
	return out, nil
}

func keysOf[V any](m map[int64]V) []int64 {
	out := make([]int64, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// forEachRun scans rows of runColumns.
func forEachRun(rows pgx.Rows, fn func(RunRecord)) error {
	defer rows.Close()
	for rows.Next() {
		var r RunRecord
		if err := scanRun(rows, &r); err != nil {
			return err
		}
		fn(r)
	}
	return rows.Err()
}

// conformanceMemo holds the conformance of the newest runs of the latest reading of every
// server's status, by run id (nil: the run has no findings). A run's findings never change
// once written (a run id is stored once), so a reading needs to count only those of the runs
// that arrived since the one before: with a run a minute per server and a reading every few
// seconds, a small part of them. Counting every server's afresh took a third of a reading
// of 10,000 servers.
type conformanceMemo struct {
	mu    sync.Mutex
	byRun map[RunID]*Conformance
}

// conformanceOfLatest is conformanceOf for a reading of every server: it counts the findings
// of the runs the previous such reading did not have, then remembers those of this one only
// (so the memo holds one entry per server and region at most).
func (s *Store) conformanceOfLatest(ctx context.Context, runs []RunRecord) (map[RunID]Conformance, error) {
	m := &s.conformance
	out := make(map[RunID]Conformance, len(runs))
	known := make(map[RunID]*Conformance, len(runs))
	var missing []RunRecord
	m.mu.Lock()
	for _, r := range runs {
		c, ok := m.byRun[r.ID]
		if !ok {
			missing = append(missing, r)
			continue
		}
		known[r.ID] = c
		if c != nil {
			out[r.ID] = *c
		}
	}
	m.mu.Unlock()
	read, err := s.conformanceOf(ctx, missing)
	if err != nil {
		return nil, err
	}
	for _, r := range missing {
		if c, ok := read[r.ID]; ok {
			out[r.ID] = c
			known[r.ID] = &c
		} else {
			known[r.ID] = nil
		}
	}
	m.mu.Lock()
	m.byRun = known
	m.mu.Unlock()
	return out, nil
}

// conformanceOf reads the findings of runs and counts them per run.
func (s *Store) conformanceOf(ctx context.Context, runs []RunRecord) (map[RunID]Conformance, error) {
	out := make(map[RunID]Conformance, len(runs))
	if len(runs) == 0 {
		return out, nil
	}
	ids := make([]RunID, len(runs))
	starts := make([]time.Time, len(runs))
	oldest := runs[0].Start
	for i, r := range runs {
		ids[i], starts[i] = r.ID, r.Start
		if r.Start.Before(oldest) {
			oldest = r.Start
		}
	}
	// The bound on started_at lets Postgres skip the partitions no run is in. Only the ids of
	// failing and warning checks travel: a run has some 50 findings, most of them passes.
	// The findings of a run are walked once, counting as they go (failing and warning ids in
	// the arrays' order, which is the report's): a pass per status counted over the arrays again (six
	// array_positions and three subqueries a run) took 55 ms for 1,000 servers.
	rows, err := s.pool.Query(ctx, `SELECT f.run_id, f.started_at, c.*
		FROM run_finding_sets f
		JOIN unnest($1::uuid[], $2::timestamptz[]) AS u(id, at) ON f.run_id = u.id AND f.started_at = u.at
		CROSS JOIN LATERAL (SELECT count(*) FILTER (WHERE st = 'pass')::int, count(*) FILTER (WHERE st = 'fail')::int,
				count(*) FILTER (WHERE st = 'warn')::int, count(*) FILTER (WHERE st = 'skip')::int,
				count(*) FILTER (WHERE st = 'info')::int, count(*) FILTER (WHERE st = 'untested')::int,
				count(*) FILTER (WHERE st = 'warn' AND sev = 'advice')::int,
				array_agg(id ORDER BY i) FILTER (WHERE st = 'fail'), array_agg(id ORDER BY i) FILTER (WHERE st = 'warn')
			FROM unnest(f.check_ids, f.statuses, f.severities) WITH ORDINALITY AS x(id, st, sev, i)) c
		WHERE f.started_at >= $3`, ids, starts, oldest)
	if err != nil {
		return nil, fmt.Errorf("store: conformance: %w", err)
	}
	var c Conformance
	if _, err := pgx.ForEachRow(rows, []any{&c.RunID, &c.At, &c.Pass, &c.Fail, &c.Warn, &c.Skip, &c.Info, &c.Untested, &c.Advice, &c.Failing, &c.Warning}, func() error {
		c.At = c.At.UTC()
		if len(c.Failing) == 0 {
			c.Failing = nil
		}
		if len(c.Warning) == 0 {
			c.Warning = nil
		}
		out[c.RunID] = c
		c = Conformance{}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("store: conformance: %w", err)
	}
	return out, nil
}

// PublicURL is a server URL fit to show anyone: a password in it and the values of query
// parameters that look like credentials are replaced by "REDACTED". A stdio server has none.
func (v Server) PublicURL() string {
	if v.URL == "" {
		return ""
	}
	u, err := url.Parse(v.URL)
	if err != nil {
		return ""
	}
	if u.User != nil {
		u.User = url.User(u.User.Username())
		if _, has := v.urlPassword(); has {
			u.User = url.UserPassword(u.User.Username(), "REDACTED")
		}
	}
	if u.RawQuery != "" {
		q := u.Query()
		for k := range q {
			if secretParam(k) {
				q[k] = []string{"REDACTED"}
			}
		}
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// URLSecrets returns the credentials in the server's URL (a password, the values of query
// parameters that look like credentials), for redaction wherever the URL might appear.
func (v Server) URLSecrets() []string {
	u, err := url.Parse(v.URL)
	if err != nil || v.URL == "" {
		return nil
	}
	var out []string
	if p, ok := v.urlPassword(); ok {
		out = append(out, p)
	}
	for k, vals := range u.Query() {
		if secretParam(k) {
			out = append(out, vals...)
		}
	}
	return out
}

func (v Server) urlPassword() (string, bool) {
	u, err := url.Parse(v.URL)
	if err != nil || u.User == nil {
		return "", false
	}
	return u.User.Password()
}

// secretParam says whether a query parameter name looks like it carries a credential.
func secretParam(name string) bool {
	n := strings.ToLower(name)
	for _, w := range []string{"token", "key", "secret", "password", "passwd", "auth", "signature", "sig", "credential", "session"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}
