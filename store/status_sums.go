package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// Uptime windows are summed in two parts. Table status_windows (migration 0005) holds, per
// (server, region), the sums of the hours [window start, A-1h) for the hour A it was refreshed
// for; a reading at hour H adds the hours [A-1h, H] from the hourly rollups and takes away
// the hours that left the windows since A. The hour before A is read live because runs that
// started in it are still being written when A begins. Readings more than maxStatusLag after
// A are summed from the rollups directly.
//
// Everything here is additive except the 24h latency extremes: while the sums lag the hour
// (the refresher has not run yet this hour), a minimum or maximum of an hour that left the
// 24h window may still show. Counts, sums and histograms are exact at any lag.

// maxStatusLag is how many hours old the sums of status_windows may be and still be used.
const maxStatusLag = 3

// statusRefreshLockClass keys the advisory lock that serialises refreshes of status_windows.
const statusRefreshLockClass = 0x6d63_7079

// windowAcc accumulates the figures of one (server, region).
type windowAcc struct {
	windows []Stats
	// days are the StatusDays days ending with the day of the reading, oldest first.
	days [StatusDays]dayCount
	// spare holds a histogram per window for a scratch accumulator (see ensureHist), so
	// that summing one server after another allocates none.
	spare []Histogram
}

// dayCount is a day's runs and those that reached the server: what DayUptime holds but the
// day, which its position gives.
type dayCount struct{ runs, ok int64 }

func newWindowAcc(n int) *windowAcc {
	return &windowAcc{windows: make([]Stats, n)}
}

// addDay counts runs of day d (a dayOf number) read on day today; days outside the status's
// days are left out.
func (a *windowAcc) addDay(today, d, runs, ok int64) {
	i := d - (today - StatusDays + 1)
	if i < 0 || i >= StatusDays {
		return
	}
	a.days[i].runs += runs
	a.days[i].ok += ok
}

// reset empties a scratch accumulator, keeping its histograms for reuse.
func (a *windowAcc) reset(n int) {
	if a.spare == nil {
		a.windows = make([]Stats, n)
		a.spare = make([]Histogram, n)
	}
	for i := range a.windows {
		if h := a.windows[i].Latency; h != nil {
			a.spare[i] = h
		}
		a.windows[i] = Stats{}
	}
	a.days = [StatusDays]dayCount{}
}

// ensureHist gives window i of a scratch accumulator a zeroed histogram from its spares where
// merging o would allocate one (Stats.merge makes one when o has a histogram and st none).
func (a *windowAcc) ensureHist(i int, o Stats) {
	st := &a.windows[i]
	if st.Latency != nil || len(o.Latency) == 0 || a.spare == nil || len(a.spare[i]) != HistogramBuckets {
		return
	}
	h := a.spare[i]
	clear(h)
	st.Latency, a.spare[i] = h, nil
}

// copyFrom makes scratch accumulator a a copy of b, histograms included.
func (a *windowAcc) copyFrom(b *windowAcc) {
	a.reset(len(b.windows))
	for i, st := range b.windows {
		if st.Latency != nil {
			h := a.spare[i]
			if len(h) != len(st.Latency) {
				h = make(Histogram, len(st.Latency))
			}
			copy(h, st.Latency)
			st.Latency, a.spare[i] = h, nil
		}
		a.windows[i] = st
	}
	a.days = b.days
}

// regionAcc is the accumulated figures of a server in one region.
type regionAcc struct {
	region string
	acc    *windowAcc
}

// windowBase holds the sums of many (server, region) read on day today: the rows of
// status_windows refreshed for hour asOf, or sums of the rollups read directly (asOf zero).
// Once read it is not modified, so that readings of the same sums may share it (see
// windowMemo).
type windowBase struct {
	asOf     time.Time
	today    int64
	byServer map[int64][]regionAcc
	// keys counts the (server, region) of byServer.
	keys int
}

// liveHour is an hourly rollup read live, to be added to (or taken from) the sums of its
// server and region; its figures are those of windowSet.figures from off, n of them.
type liveHour struct {
	region string
	hour   time.Time
	off, n int32
	// next is the index of the server's next live hour in the order read, -1 after the last.
	next int32
}

// windowSet holds the accumulated figures of many servers read on day today: the sums of
// base and the hours read live after them, kept apart so that base can be shared. The
// figures of one (server, region) are the base's with its live hours applied in the order
// they were read (see regionSums), as they were when both were summed in one accumulator.
type windowSet struct {
	today int64
	// buf is reused to decode the figures of one row after the other.
	buf  []int64
	base *windowBase
	// live lists the hours read live; liveOf gives the first and last of each server's.
	live    []liveHour
	liveOf  map[int64][2]int32
	figures []int64
	// add tells the live hours to add from those that left a window; leaving[t] lists the
	// windows hour t left.
	add     map[time.Time]bool
	leaving map[time.Time][]int
	// sum and scratch are reused to sum one server after another.
	sum, scratch windowAcc
}

func newWindowSet(today int64, base *windowBase) *windowSet {
	if base == nil {
		base = &windowBase{today: today, byServer: map[int64][]regionAcc{}}
	}
	return &windowSet{today: today, base: base, liveOf: map[int64][2]int32{}}
}

// acc returns the base accumulator of (server, region), adding one to the base that is
// being read (never to a shared one).
func (b *windowBase) acc(server int64, region string) *windowAcc {
	for _, ra := range b.byServer[server] {
		if ra.region == region {
			return ra.acc
		}
	}
	a := newWindowAcc(len(StatusWindows()))
	b.byServer[server] = append(b.byServer[server], regionAcc{region, a})
	b.keys++
	return a
}

// regions lists the regions of a server with sums, those of the base first.
func (ws *windowSet) regions(id int64) []string {
	var out []string
	for _, ra := range ws.base.byServer[id] {
		out = append(out, ra.region)
	}
	if span, ok := ws.liveOf[id]; ok {
		for i := span[0]; i >= 0; i = ws.live[i].next {
			if r := ws.live[i].region; !slices.Contains(out, r) {
				out = append(out, r)
			}
		}
	}
	return out
}

// regionSums sums into a the figures of server id in region: its base, then its live hours in
// the order read. a is overwritten.
func (ws *windowSet) regionSums(id int64, region string, a *windowAcc) {
	a.reset(len(StatusWindows()))
	for _, ra := range ws.base.byServer[id] {
		if ra.region == region {
			a.copyFrom(ra.acc)
			break
		}
	}
	span, ok := ws.liveOf[id]
	if !ok {
		return
	}
	for i := span[0]; i >= 0; i = ws.live[i].next {
		if h := &ws.live[i]; h.region == region {
			ws.applyLive(a, h)
		}
	}
}

// server returns a server's windows and daily counts with its regions summed, laid out in ar
// (nil: allocated).
func (ws *windowSet) server(id int64, ar *statusArena) ([]WindowStats, []dayCount) {
	sum := &ws.sum
	sum.reset(len(StatusWindows()))
	for _, region := range ws.regions(id) {
		ws.regionSums(id, region, &ws.scratch)
		for i := range sum.windows {
			sum.ensureHist(i, ws.scratch.windows[i])
			sum.windows[i].merge(ws.scratch.windows[i])
		}
		for i, du := range ws.scratch.days {
			sum.days[i].runs += du.runs
			sum.days[i].ok += du.ok
		}
	}
	return sum.result(ar)
}

// statusArena holds the windows, daily counts and histograms of many statuses in three
// allocations rather than three per server: a reading of 10,000 servers made 40,000
// allocations there.
type statusArena struct {
	windows []WindowStats
	days    []dayCount
	hist    []int64
}

func newStatusArena(servers int) *statusArena {
	return &statusArena{windows: make([]WindowStats, 0, servers*len(StatusWindows())),
		days: make([]dayCount, 0, servers*StatusDays), hist: make([]int64, 0, servers*HistogramBuckets)}
}

// take returns n fresh elements of *s, from the arena while it has room. The slice returned
// is capped at n, so that appending to it never writes into the next one.
func take[T any](s *[]T, n int) []T {
	if len(*s)+n > cap(*s) {
		return make([]T, n)
	}
	i := len(*s)
	*s = (*s)[:i+n]
	return (*s)[i : i+n : i+n]
}

// result lays the accumulated figures out as a status carries them, in ar (nil: allocated):
// the windows and the daily counts (see dayUptimes). Nothing of a is kept, so a scratch
// accumulator may be reused after.
func (a *windowAcc) result(ar *statusArena) ([]WindowStats, []dayCount) {
	if ar == nil {
		ar = &statusArena{}
	}
	ws := StatusWindows()
	out := take(&ar.windows, len(ws))
	for i, w := range ws {
		out[i] = WindowStats{Window: w, Stats: a.windows[i]}
		if i > 0 || out[i].Up+out[i].Degraded == 0 {
			out[i].Latency, out[i].LatencyMin, out[i].LatencyMax = nil, 0, 0
		} else if h := out[i].Latency; h != nil {
			out[i].Latency = take(&ar.hist, len(h))
			copy(out[i].Latency, h)
		}
	}
	days := take(&ar.days, StatusDays)
	copy(days, a.days[:])
	return out, days
}

// dayUptimes lays out the daily counts of the StatusDays days ending with day today, oldest
// first; nil for none.
func dayUptimes(counts []dayCount, today int64) []DayUptime {
	if counts == nil {
		return nil
	}
	out := make([]DayUptime, len(counts))
	for i, c := range counts {
		out[i] = DayUptime{Day: dayStart(today - int64(len(counts)-1-i)), Runs: c.runs, OK: c.ok}
	}
	return out
}

// merge adds the runs of o to st.
func (st *Stats) merge(o Stats) {
	if o.Up+o.Degraded > 0 {
		if st.Up+st.Degraded == 0 || o.LatencyMin < st.LatencyMin {
			st.LatencyMin = o.LatencyMin
		}
		st.LatencyMax = max(st.LatencyMax, o.LatencyMax)
	}
	st.Runs += o.Runs
	st.Up += o.Up
	st.Degraded += o.Degraded
	st.Down += o.Down
	st.LatencySum += o.LatencySum
	if len(o.Latency) > 0 {
		if st.Latency == nil {
			st.Latency = make(Histogram, HistogramBuckets)
		}
		for i := range min(len(o.Latency), len(st.Latency)) {
			st.Latency[i] += o.Latency[i]
		}
	}
}

// subtract takes the runs of o (an hour that left the window) away from st; extremes stay.
func (st *Stats) subtract(o Stats) {
	st.Runs -= o.Runs
	st.Up -= o.Up
	st.Degraded -= o.Degraded
	st.Down -= o.Down
	st.LatencySum -= o.LatencySum
	if st.Latency != nil {
		for i := range min(len(o.Latency), len(st.Latency)) {
			st.Latency[i] -= o.Latency[i]
		}
	}
}

// windowSumsSQL sums the hourly rollups of [$1, $6) per (server, region): per window (starts
// $2..$5, 24h first) the counts and latency sum, the 24h latency extremes and histogram, and
// the daily counts. With one, $7 is the one server to sum (a condition of its own, so that
// Postgres reads that server's rows by the primary key rather than every server's). One pass:
// grouped by day first, then the days are summed, so the daily figures come from the same scan.
// With dayLatency, a last column holds each day's figures for the latency charts (see
// dayLatencyWidth).
func windowSumsSQL(one, dayLatency bool) string {
	n := len(StatusWindows())
	var inner, outer strings.Builder
	for i := range n {
		cond := fmt.Sprintf("FILTER (WHERE hour >= $%d)", i+2)
		fmt.Fprintf(&inner, "sum(runs) %[1]s AS r%[2]d, sum(up) %[1]s AS u%[2]d, sum(degraded) %[1]s AS g%[2]d, sum(down) %[1]s AS d%[2]d, sum(latency_sum_us) %[1]s AS l%[2]d,\n", cond, i)
	}
	fmt.Fprintf(&inner, "min(latency_min_us) FILTER (WHERE hour >= $2) AS lo, max(latency_max_us) FILTER (WHERE hour >= $2) AS hi")
	for b := 1; b <= HistogramBuckets; b++ {
		fmt.Fprintf(&inner, ",\nsum(latency_hist[%d]) FILTER (WHERE hour >= $2) AS h%d", b, b)
	}
	array := func(prefix string, count int, from int) string {
		parts := make([]string, count)
		for i := range count {
			parts[i] = fmt.Sprintf("coalesce(sum(%s%d), 0)", prefix, i+from)
		}
		return "ARRAY[" + strings.Join(parts, ", ") + "]::bigint[]"
	}
	for _, p := range []string{"r", "u", "g", "d", "l"} {
		outer.WriteString(array(p, n, 0) + ",\n")
	}
	outer.WriteString("min(lo), max(hi), " + array("h", HistogramBuckets, 1) + ",\n")
	outer.WriteString("array_agg((extract(epoch FROM day) / 86400)::integer ORDER BY day), array_agg(day_runs ORDER BY day)::bigint[], array_agg(day_ok ORDER BY day)::bigint[]")
	if dayLatency {
		fmt.Fprintf(&inner, ",\nsum(up) AS day_up, sum(degraded) AS day_degraded, sum(down) AS day_down, sum(latency_sum_us) AS day_sum,\n"+
			"min(latency_min_us) AS day_lo, max(latency_max_us) AS day_hi")
		day := []string{"(extract(epoch FROM day) / 86400)::bigint", "day_runs", "day_up", "day_degraded", "day_down", "day_sum",
			"coalesce(day_lo, -1)", "coalesce(day_hi, -1)"}
		for b := 1; b <= HistogramBuckets; b++ {
			fmt.Fprintf(&inner, ",\nsum(latency_hist[%d]) AS dh%d", b, b)
			day = append(day, fmt.Sprintf("dh%d", b))
		}
		outer.WriteString(",\narray_agg(ARRAY[" + strings.Join(day, ", ") + "]::bigint[] ORDER BY day)")
	}
	cond := ""
	if one {
		cond = "AND server_id = $7"
	}
	return `WITH per_day AS (
		SELECT server_id, region, date_trunc('day', hour, 'UTC') AS day,
			sum(runs) AS day_runs, sum(up + degraded) AS day_ok,
			` + inner.String() + `
		FROM rollups
		WHERE hour >= $1 AND hour < $6 ` + cond + `
		GROUP BY server_id, region, day
	)
	SELECT server_id, region,
		` + outer.String() + `
	FROM per_day GROUP BY server_id, region`
}

// windowSumsArgs are the parameters of windowSumsSQL for windows read at hour h, summing the
// hours before upper, of server only (0: all).
func windowSumsArgs(h, upper time.Time, only int64) []any {
	ws := StatusWindows()
	args := []any{ws[len(ws)-1].Start(h)}
	for _, w := range ws {
		args = append(args, w.Start(h))
	}
	args = append(args, upper)
	if only != 0 {
		args = append(args, only)
	}
	return args
}

// windowFigures turns the columns of windowSumsSQL into one array, as column figures of table
// status_windows holds them, so that a row costs one array to decode rather than ten: the
// per-window runs, up, degraded, down and latency sums, then the 24h latency minimum and
// maximum (-1: none), its histogram, and the days, their runs and their ok runs.
const windowFigures = `server_id, region, ` + windowFiguresSent

// windowFiguresSent is the figures of a row of windowColumns as array_send gives them: what
// column figures_sent of table status_windows holds (migration 0010).
const windowFiguresSent = `array_send(runs || up || degraded || down || latency_sum_us
	|| ARRAY[coalesce(latency_min_us, -1), coalesce(latency_max_us, -1)] || latency_hist
	|| days::bigint[] || day_runs || day_ok)`

// windowColumns names the columns of windowSumsSQL, for reading it through windowFigures.
const windowColumns = `(server_id, region, runs, up, degraded, down, latency_sum_us, latency_min_us, latency_max_us,
	latency_hist, days, day_runs, day_ok)`

// scanWindowRow reads one row of windowFigures into the base of ws.
func scanWindowRow(row pgx.Row, ws *windowSet) error {
	var server int64
	var region string
	var raw []byte
	if err := row.Scan(&server, &region, &raw); err != nil {
		return err
	}
	f, err := decodeInt8Array(raw, ws.buf[:0])
	if err != nil {
		return fmt.Errorf("status sums of server %d in %q: %w", server, region, err)
	}
	ws.buf = f
	n := len(StatusWindows())
	head := 5*n + 2 + HistogramBuckets
	if len(f) < head || (len(f)-head)%3 != 0 {
		return fmt.Errorf("status sums of server %d in %q: %d figures", server, region, len(f))
	}
	a := ws.base.acc(server, region)
	lo, hi := f[5*n], f[5*n+1]
	for i := range a.windows {
		st := Stats{Runs: f[i], Up: f[n+i], Degraded: f[2*n+i], Down: f[3*n+i], LatencySum: time.Duration(f[4*n+i]) * time.Microsecond}
		if i == 0 && lo >= 0 && hi >= 0 {
			st.LatencyMin, st.LatencyMax = time.Duration(lo)*time.Microsecond, time.Duration(hi)*time.Microsecond
			st.Latency = Histogram(f[5*n+2 : head : head])
		}
		a.windows[i].merge(st)
	}
	k := (len(f) - head) / 3
	days, runs, ok := f[head:head+k], f[head+k:head+2*k], f[head+2*k:]
	for i, d := range days {
		a.addDay(ws.today, d, runs[i], ok[i])
	}
	return nil
}

// RefreshStatusWindows recomputes table status_windows for the hour of now, unless it holds
// that hour (or a later one) already, and reports whether it did. The API calls it when an
// hour begins; any number of processes may, one computes while the others wait and then find
// the work done.
func (s *Store) RefreshStatusWindows(ctx context.Context, now time.Time) (bool, error) {
	a := now.UTC().Truncate(time.Hour)
	refreshed := false
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		refreshed = false
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, hashtext(current_schema()))`, statusRefreshLockClass); err != nil {
			return fmt.Errorf("lock: %w", err)
		}
		var asOf *time.Time
		if err := tx.QueryRow(ctx, `SELECT as_of FROM status_windows_state`).Scan(&asOf); err != nil {
			return fmt.Errorf("read state: %w", err)
		}
		if asOf != nil && !asOf.Before(a) {
			return nil
		}
		if _, err := tx.Exec(ctx, `DELETE FROM status_windows`); err != nil {
			return fmt.Errorf("clear: %w", err)
		}
		// The figures are stored encoded as well (figures_sent), so that requests send bytes
		// rather than have Postgres encode hundreds of numbers per row each time. So is each
		// day's latency, for the server page's charts by day (see DayRollups), and each hour's
		// of the 24h window, for the status page's sparklines (see RecentHours).
		if _, err := tx.Exec(ctx, `INSERT INTO status_windows (server_id, region, runs, up, degraded, down,
				latency_sum_us, latency_min_us, latency_max_us, latency_hist, days, day_runs, day_ok, day_latency,
				hour_latency, figures_sent)
			SELECT t.*, coalesce(hl.hour_latency, '{}'), `+windowFiguresSent+`
			FROM (`+windowSumsSQL(false, true)+`) AS t `+strings.TrimSuffix(windowColumns, ")")+`, day_latency)
			LEFT JOIN (SELECT server_id, region, array_agg(ARRAY[(extract(epoch FROM hour) / 3600)::bigint, runs, up, degraded, down,
					latency_sum_us, coalesce(latency_min_us, -1), coalesce(latency_max_us, -1)]::bigint[] || latency_hist ORDER BY hour) AS hour_latency
				FROM rollups WHERE hour >= $2 AND hour < $6 GROUP BY server_id, region) AS hl USING (server_id, region)`,
			windowSumsArgs(a, a.Add(-time.Hour), 0)...); err != nil {
			return fmt.Errorf("sum: %w", err)
		}
		if _, err := tx.Exec(ctx, `UPDATE status_windows_state SET as_of = $1`, a); err != nil {
			return fmt.Errorf("write state: %w", err)
		}
		refreshed = true
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("store: refresh status windows: %w", err)
	}
	return refreshed, nil
}

// windowSums returns the window figures of one server (only) or all (0) read at now: from
// status_windows plus the latest hours when its sums are recent, else from the rollups.
func (s *Store) windowSums(ctx context.Context, only int64, now time.Time) (*windowSet, error) {
	h := now.UTC().Truncate(time.Hour)
	var ws *windowSet
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		var asOf *time.Time
		err := tx.QueryRow(ctx, `SELECT as_of FROM status_windows_state`).Scan(&asOf)
		if err != nil {
			return fmt.Errorf("read state: %w", err)
		}
		if asOf == nil || asOf.After(h) || h.Sub(*asOf) > maxStatusLag*time.Hour {
			return errStatusStale
		}
		a := asOf.UTC()
		today := dayOf(now)
		var base *windowBase
		if only == 0 {
			base = s.windowMemo.get(a, today)
		}
		ws = newWindowSet(today, base)
		if base == nil {
			ws.base.asOf = a
			if err := readStatusWindows(ctx, tx, ws, only); err != nil {
				return err
			}
			if only == 0 {
				s.windowMemo.put(ws.base)
			}
		}
		return addLiveHours(ctx, tx, ws, a, h, only)
	})
	if errors.Is(err, errStatusStale) {
		if only == 0 {
			// Everyone's figures: make the sums current once rather than sum 90 days per request.
			if _, err := s.RefreshStatusWindows(ctx, now); err != nil {
				return nil, err
			}
			if ws, err := s.windowSumsIfCurrent(ctx, now); err == nil {
				return ws, nil
			} else if !errors.Is(err, errStatusStale) {
				return nil, err
			}
		}
		return s.windowSumsDirect(ctx, only, now)
	}
	if err != nil {
		return nil, fmt.Errorf("store: status windows: %w", err)
	}
	return ws, nil
}

// readStatusWindows reads the rows of status_windows, of server only (0: all), into the base
// of ws.
func readStatusWindows(ctx context.Context, tx pgx.Tx, ws *windowSet, only int64) error {
	// A row written by the refresh of an older release has no figures_sent.
	query := `SELECT server_id, region, coalesce(figures_sent, array_send(figures)) FROM status_windows`
	var args []any
	if only != 0 {
		query += ` WHERE server_id = $1`
		args = append(args, only)
	}
	rows, err := tx.Query(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := scanWindowRow(rows, ws); err != nil {
			return err
		}
	}
	return rows.Err()
}

// windowMemo holds status_windows as the latest reading of every server's figures decoded
// it. The table changes only when a refresh rewrites it for a later hour (as_of, read in the
// same transaction as the rows), so a reading of the same hour on the same day may use the
// sums decoded before: reading and decoding them again (some 3.8 KB per server and region)
// was a third of a reading of 10,000 servers, and the largest part of what it sent.
type windowMemo struct {
	mu   sync.Mutex
	base *windowBase
}

// get returns the sums decoded for hour asOf on day today, nil if they are not held.
func (m *windowMemo) get(asOf time.Time, today int64) *windowBase {
	m.mu.Lock()
	defer m.mu.Unlock()
	if b := m.base; b != nil && b.asOf.Equal(asOf) && b.today == today {
		return b
	}
	return nil
}

// put keeps b, the sums of every server; it is not modified after.
func (m *windowMemo) put(b *windowBase) {
	m.mu.Lock()
	m.base = b
	m.mu.Unlock()
}

// windowSumsIfCurrent reads all servers' figures after a refresh; errStatusStale means that
// the refresh could not make them current (now lies before the hour they were summed for).
func (s *Store) windowSumsIfCurrent(ctx context.Context, now time.Time) (*windowSet, error) {
	var asOf *time.Time
	if err := s.pool.QueryRow(ctx, `SELECT as_of FROM status_windows_state`).Scan(&asOf); err != nil {
		return nil, fmt.Errorf("store: status windows: %w", err)
	}
	h := now.UTC().Truncate(time.Hour)
	if asOf == nil || asOf.After(h) || h.Sub(*asOf) > maxStatusLag*time.Hour {
		return nil, errStatusStale
	}
	return s.windowSums(ctx, 0, now)
}

var errStatusStale = errors.New("status sums are not recent")

// windowSumsDirect sums the rollups of every hour of the windows read at now.
func (s *Store) windowSumsDirect(ctx context.Context, only int64, now time.Time) (*windowSet, error) {
	h := now.UTC().Truncate(time.Hour)
	ws := newWindowSet(dayOf(now), nil)
	rows, err := s.pool.Query(ctx, `SELECT `+windowFigures+` FROM (`+windowSumsSQL(only != 0, false)+`) AS t `+windowColumns,
		windowSumsArgs(h, h.Add(time.Hour), only)...)
	if err != nil {
		return nil, fmt.Errorf("store: status windows: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := scanWindowRow(rows, ws); err != nil {
			return nil, fmt.Errorf("store: status windows: %w", err)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: status windows: %w", err)
	}
	return ws, nil
}

// addLiveHours adds the hours [a-1h, h] to the sums of hour a and takes away, per window, the
// hours that left it between a and h: it reads them into ws, which applies them to the sums of
// each server as it lays them out (regionSums).
func addLiveHours(ctx context.Context, tx pgx.Tx, ws *windowSet, a, h time.Time, only int64) error {
	windows := StatusWindows()
	ws.add = map[time.Time]bool{}
	var hours []time.Time
	for t := a.Add(-time.Hour); !t.After(h); t = t.Add(time.Hour) {
		ws.add[t] = true
		hours = append(hours, t)
	}
	ws.leaving = map[time.Time][]int{}
	for i, w := range windows {
		for t := w.Start(a); t.Before(w.Start(h)); t = t.Add(time.Hour) {
			if len(ws.leaving[t]) == 0 {
				hours = append(hours, t)
			}
			ws.leaving[t] = append(ws.leaving[t], i)
		}
	}
	// One array per row: runs, up, degraded, down, latency sum, minimum and maximum (-1:
	// none), then the histogram.
	query := `SELECT server_id, region, hour, array_send(ARRAY[runs, up, degraded, down, latency_sum_us,
		coalesce(latency_min_us, -1), coalesce(latency_max_us, -1)]::bigint[] || latency_hist)
		FROM rollups WHERE hour = ANY($1)`
	args := []any{hours}
	if only != 0 {
		query += ` AND server_id = $2`
		args = append(args, only)
	}
	rows, err := tx.Query(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("live hours: %w", err)
	}
	defer rows.Close()
	// The figures of every row go to one slab, sized for a row per hour and (server, region)
	// of the sums: grown by appending, it was copied over and over (a quarter of what a
	// reading of 10,000 servers allocated).
	width := 7 + HistogramBuckets
	if ws.figures == nil {
		rows := len(hours) * max(ws.base.keys, 16)
		ws.figures = make([]int64, 0, rows*width)
		ws.live = make([]liveHour, 0, rows)
	}
	var (
		server int64
		hour   time.Time
	)
	// Regions are few: one string per name rather than one per row.
	names := map[string]string{}
	for rows.Next() {
		// The region and the figures are read as the bytes received, not copied first.
		if err := rows.Scan(&server, nil, &hour, nil); err != nil {
			return fmt.Errorf("live hours: %w", err)
		}
		raw := rows.RawValues()
		if raw[1] == nil || raw[3] == nil {
			return errors.New("live hours: a NULL region or figures")
		}
		off := len(ws.figures)
		f, err := decodeInt8Array(raw[3], ws.figures)
		if err != nil {
			return fmt.Errorf("live hours: %w", err)
		}
		ws.figures = f
		if len(f)-off < 7 {
			return fmt.Errorf("live hours: %d figures", len(f)-off)
		}
		name, ok := names[string(raw[1])]
		if !ok {
			name = string(raw[1])
			names[name] = name
		}
		i := int32(len(ws.live))
		ws.live = append(ws.live, liveHour{region: name, hour: hour.UTC(), off: int32(off), n: int32(len(f) - off), next: -1})
		if span, ok := ws.liveOf[server]; ok {
			ws.live[span[1]].next = i
			ws.liveOf[server] = [2]int32{span[0], i}
		} else {
			ws.liveOf[server] = [2]int32{i, i}
		}
	}
	return rows.Err()
}

// applyLive adds live hour lh to a or takes it away from the windows it left.
func (ws *windowSet) applyLive(a *windowAcc, lh *liveHour) {
	f := ws.figures[lh.off : lh.off+lh.n]
	st := Stats{Runs: f[0], Up: f[1], Degraded: f[2], Down: f[3], LatencySum: time.Duration(f[4]) * time.Microsecond}
	if st.Up+st.Degraded > 0 && f[5] >= 0 && f[6] >= 0 {
		st.LatencyMin, st.LatencyMax = time.Duration(f[5])*time.Microsecond, time.Duration(f[6])*time.Microsecond
		st.Latency = Histogram(f[7:len(f):len(f)])
	}
	if ws.add[lh.hour] {
		for i := range a.windows {
			if i == 0 {
				a.ensureHist(i, st)
			}
			a.windows[i].mergeCounts(st, i == 0)
		}
		a.addDay(ws.today, dayOf(lh.hour), st.Runs, st.Up+st.Degraded)
	}
	for _, i := range ws.leaving[lh.hour] {
		s := st
		if i > 0 {
			s.Latency = nil
		}
		a.windows[i].subtract(s)
	}
}

// mergeCounts merges o into st; latency extremes and histogram only when withLatency.
func (st *Stats) mergeCounts(o Stats, withLatency bool) {
	if !withLatency {
		o.Latency = nil
		o.LatencyMin, o.LatencyMax = 0, 0
		// Extremes are kept for the 24h window only; merge would otherwise set them.
		lo, hi := st.LatencyMin, st.LatencyMax
		st.merge(o)
		st.LatencyMin, st.LatencyMax = lo, hi
		return
	}
	st.merge(o)
}

// statsColumnsPlain are the columns of one hourly rollup row, read by scanHourStats.
const statsColumnsPlain = `runs, up, degraded, down, latency_sum_us, latency_min_us, latency_max_us, latency_hist`

func scanHourStats(row pgx.Row, server *int64, region *string, hour *time.Time, st *Stats) error {
	var runs, up, degraded, down int32
	var sum int64
	var lo, hi *int64
	var hist []int64
	if err := row.Scan(server, region, hour, &runs, &up, &degraded, &down, &sum, &lo, &hi, &hist); err != nil {
		return err
	}
	*st = Stats{Runs: int64(runs), Up: int64(up), Degraded: int64(degraded), Down: int64(down),
		LatencySum: time.Duration(sum) * time.Microsecond}
	if lo != nil && hi != nil {
		st.LatencyMin, st.LatencyMax = time.Duration(*lo)*time.Microsecond, time.Duration(*hi)*time.Microsecond
	}
	if st.Up+st.Degraded > 0 {
		st.Latency = hist
	}
	return nil
}
