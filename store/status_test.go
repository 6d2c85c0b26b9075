package store

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"
)

// statusFixture is a store seeded with raw runs of server "a" in two regions over 95 days,
// a paused server "b" with one old run, and a server "c" that never ran.
type statusFixture struct {
	s       *Store
	a, b, c Server
	runs    []RunRecord // of a
	now     time.Time
}

func seedStatus(t *testing.T) *statusFixture {
	t.Helper()
	s, ctx := newTestStore(t)
	f := &statusFixture{s: s, now: time.Now().UTC()}
	f.a = mustUpsert(t, ctx, s, httpServer("a"))
	paused := httpServer("b")
	paused.Enabled = false
	f.b = mustUpsert(t, ctx, s, paused)
	f.c = mustUpsert(t, ctx, s, httpServer("c"))
	for _, region := range []string{"eu", "us"} {
		if err := s.RegisterRegion(ctx, region); err != nil {
			t.Fatal(err)
		}
	}
	rng := rand.New(rand.NewPCG(7, 9))
	outcomes := []string{OutcomeUp, OutcomeUp, OutcomeUp, OutcomeUp, OutcomeDegraded, OutcomeDown}
	// Every 5 hours over 95 days, then every 10 minutes over the last 30 hours, so that
	// every window has runs and the edges of the short ones are crowded.
	var starts []time.Time
	for t := f.now.Add(-95 * day); t.Before(f.now.Add(-30 * time.Hour)); t = t.Add(5*time.Hour + 17*time.Minute) {
		starts = append(starts, t)
	}
	for t := f.now.Add(-30 * time.Hour); t.Before(f.now.Add(-time.Second)); t = t.Add(10 * time.Minute) {
		starts = append(starts, t)
	}
	for i, start := range starts {
		for _, region := range []string{"eu", "us"} {
			if region == "us" && i%3 == 0 {
				continue
			}
			st := start.Add(time.Duration(rng.IntN(60)) * time.Second)
			if !st.Before(f.now) {
				continue
			}
			r := sampleRun(f.a.ID, region, st, outcomes[rng.IntN(len(outcomes))],
				time.Duration(1+rng.IntN(3000))*time.Millisecond+time.Duration(rng.IntN(1000))*time.Microsecond)
			f.runs = append(f.runs, r)
		}
	}
	// The newest run of each region is the state: eu up, us down.
	last := map[string]int{}
	for i, r := range f.runs {
		if j, ok := last[r.Region]; !ok || r.Start.After(f.runs[j].Start) {
			last[r.Region] = i
		}
	}
	f.runs[last["eu"]].Outcome = OutcomeUp
	f.runs[last["us"]].Outcome = OutcomeDown
	f.runs[last["us"]].ErrorCode = ptr[int64](-32603)
	old := sampleRun(f.b.ID, "eu", f.now.Add(-10*day), OutcomeUp, 80*time.Millisecond)
	for i := 0; i < len(f.runs); i += 500 {
		if _, err := s.WriteRuns(ctx, f.runs[i:min(i+500, len(f.runs))]); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.WriteRuns(ctx, []RunRecord{old}); err != nil {
		t.Fatal(err)
	}
	return f
}

// expected computes a window's figures from the raw runs themselves.
type expected struct {
	runs, up, degraded, down int64
	lo, hi                   time.Duration
	latencies                []time.Duration
}

func expectWindow(runs []RunRecord, region string, from, to time.Time) expected {
	var e expected
	for _, r := range runs {
		if (region != "" && r.Region != region) || r.Start.Before(from) || !r.Start.Before(to) {
			continue
		}
		e.runs++
		switch r.Outcome {
		case OutcomeUp:
			e.up++
		case OutcomeDegraded:
			e.degraded++
		default:
			e.down++
			continue
		}
		d := r.Duration.Truncate(time.Microsecond)
		e.latencies = append(e.latencies, d)
	}
	slices.Sort(e.latencies)
	if len(e.latencies) > 0 {
		e.lo, e.hi = e.latencies[0], e.latencies[len(e.latencies)-1]
	}
	return e
}

// nearestRank is the q-quantile of sorted latencies by the nearest-rank definition.
func nearestRank(sorted []time.Duration, q float64) time.Duration {
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[max(i, 0)]
}

// checkWindow compares a window with the raw runs: counts exactly; with latency, the
// extremes exactly and each percentile inside the histogram bucket that holds the true one
// (the resolution of a histogram), within the extremes.
func checkWindow(t *testing.T, what string, got WindowStats, want expected, latency, extremes bool) {
	t.Helper()
	if got.Runs != want.runs || got.Up != want.up || got.Degraded != want.degraded || got.Down != want.down {
		t.Errorf("%s %s: runs/up/degraded/down = %d/%d/%d/%d, raw runs say %d/%d/%d/%d", what, got.Name,
			got.Runs, got.Up, got.Degraded, got.Down, want.runs, want.up, want.degraded, want.down)
	}
	var sum time.Duration
	for _, d := range want.latencies {
		sum += d
	}
	if got.LatencySum != sum {
		t.Errorf("%s %s: latency sum %v, raw runs say %v", what, got.Name, got.LatencySum, sum)
	}
	if !latency || len(want.latencies) == 0 {
		return
	}
	if extremes && (got.LatencyMin != want.lo || got.LatencyMax != want.hi) {
		t.Errorf("%s %s: latency min/max %v/%v, raw runs say %v/%v", what, got.Name, got.LatencyMin, got.LatencyMax, want.lo, want.hi)
	}
	bounds := latencyBounds()
	for _, q := range []float64{0.5, 0.95, 0.99} {
		exact := nearestRank(want.latencies, q)
		b := bucketOf(bounds, exact)
		lower, upper := want.lo, want.hi
		if b > 0 {
			lower = max(lower, bounds[b-1])
		}
		if b < len(bounds) {
			upper = min(upper, bounds[b])
		}
		est := got.LatencyQuantile(q)
		if est < lower || est > upper {
			t.Errorf("%s %s: p%g = %v, outside [%v, %v], the bucket of the true value %v", what, got.Name, q*100, est, lower, upper, exact)
		}
	}
}

func checkStatus(t *testing.T, what string, st ServerStatus, runs []RunRecord, now time.Time, extremes bool) {
	t.Helper()
	end := now.Truncate(time.Hour).Add(time.Hour)
	if len(st.Windows) != len(StatusWindows()) {
		t.Fatalf("%s: %d windows", what, len(st.Windows))
	}
	for i, w := range st.Windows {
		checkWindow(t, what, w, expectWindow(runs, "", w.Start(now), end), i == 0, extremes)
	}
	if len(st.Days()) != StatusDays {
		t.Fatalf("%s: %d days, want %d", what, len(st.Days()), StatusDays)
	}
	for _, d := range st.Days() {
		e := expectWindow(runs, "", d.Day, d.Day.Add(day))
		if d.Runs != e.runs || d.OK != e.up+e.degraded {
			t.Errorf("%s day %s: runs/ok %d/%d, raw runs say %d/%d", what, d.Day.Format(time.DateOnly), d.Runs, d.OK, e.runs, e.up+e.degraded)
		}
	}
}

func TestServerStatusFiguresEqualThoseOfTheRawRuns(t *testing.T) {
	t.Parallel()
	f := seedStatus(t)
	s, now := f.s, f.now
	ctx := t.Context()

	// Before any refresh: one server is summed from the rollups directly.
	st, err := s.ServerStatus(ctx, f.a.ID, now)
	if err != nil {
		t.Fatal(err)
	}
	checkStatus(t, "direct", st, f.runs, now, true)
	t.Run("detail per region, direct", func(t *testing.T) { checkDetail(t, f, true) })
	t.Run("rollups by day, direct", func(t *testing.T) { checkDayRollups(t, f) })
	t.Run("recent hours, direct", func(t *testing.T) { checkRecentHours(t, f) })

	// Sums of two hours ago, brought forward with the live hours and the hours that left.
	if _, err := s.RefreshStatusWindows(ctx, now.Add(-2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	st, err = s.ServerStatus(ctx, f.a.ID, now)
	if err != nil {
		t.Fatal(err)
	}
	checkStatus(t, "lagging sums", st, f.runs, now, false)
	t.Run("detail per region, lagging sums", func(t *testing.T) { checkDetail(t, f, false) })
	t.Run("rollups by day, lagging sums", func(t *testing.T) { checkDayRollups(t, f) })
	t.Run("recent hours, lagging sums", func(t *testing.T) { checkRecentHours(t, f) })

	// Current sums: everything exact, the 24h extremes included.
	if done, err := s.RefreshStatusWindows(ctx, now); err != nil || !done {
		t.Fatalf("RefreshStatusWindows = %v, %v; want a refresh", done, err)
	}
	if done, err := s.RefreshStatusWindows(ctx, now); err != nil || done {
		t.Fatalf("second RefreshStatusWindows = %v, %v; want nothing to do", done, err)
	}
	all, err := s.ServerStatuses(ctx, now)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 3 || all[0].Server.Name != "a" || all[1].Server.Name != "b" || all[2].Server.Name != "c" {
		t.Fatalf("ServerStatuses = %d servers, want a, b, c", len(all))
	}
	checkStatus(t, "current sums", all[0], f.runs, now, true)
	t.Run("detail per region, current sums", func(t *testing.T) { checkDetail(t, f, true) })
	t.Run("rollups by day, current sums", func(t *testing.T) { checkDayRollups(t, f) })
	t.Run("recent hours, current sums", func(t *testing.T) { checkRecentHours(t, f) })
	t.Run("figures sent as stored, or encoded and rollups by day summed when a refresh left none", func(t *testing.T) {
		var rows, differ int
		if err := s.pool.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE figures_sent IS DISTINCT FROM array_send(figures))
			FROM status_windows`).Scan(&rows, &differ); err != nil {
			t.Fatal(err)
		}
		if rows == 0 || differ != 0 {
			t.Fatalf("%d rows of status_windows, %d whose figures_sent is not array_send(figures)", rows, differ)
		}
		// As a refresh by a release before migration 0010 leaves the rows.
		if _, err := s.pool.Exec(ctx, `UPDATE status_windows SET figures_sent = NULL, day_latency = NULL`); err != nil {
			t.Fatal(err)
		}
		// A store of its own: s keeps the sums it decoded for this hour.
		again, err := New(s.pool).ServerStatuses(ctx, now)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(again, all) {
			t.Error("statuses read without figures_sent differ from those read with it")
		}
		checkDayRollups(t, f)
		checkRecentHours(t, f)
	})

	a, b, c := all[0], all[1], all[2]
	if a.State != StateDegraded || len(a.Regions) != 2 || a.Regions[0].State != OutcomeUp || a.Regions[1].State != OutcomeDown {
		t.Errorf("a: state %s, regions %+v; want degraded with eu up and us down", a.State, a.Regions)
	}
	if a.Latest == nil || a.Conformance == nil || a.Conformance.RunID != a.Latest.ID {
		t.Fatalf("a: latest %v, conformance %v", a.Latest, a.Conformance)
	}
	if got := a.Conformance; got.Pass != 1 || got.Fail != 1 || !slices.Equal(got.Failing, []string{"tools.list"}) || got.Score() != 50 {
		t.Errorf("a: conformance %+v (score %v), want 1 pass, 1 fail (tools.list), score 50", got, got.Score())
	}
	if b.State != StatePaused || b.Latest == nil || c.State != StateUnknown || c.Latest != nil {
		t.Errorf("b: %s (latest %v), c: %s (latest %v); want paused with its old run, unknown without", b.State, b.Latest, c.State, c.Latest)
	}
	for _, w := range c.Windows {
		if w.Runs != 0 {
			t.Errorf("c: window %s has %d runs", w.Name, w.Runs)
		}
	}
}

// checkDayRollups compares DayRollups with the hourly rollups, both summed per region and day,
// over the 90-day chart's span and over a shorter one that begins inside the status sums.
func checkDayRollups(t *testing.T, f *statusFixture) {
	end := f.now.Truncate(time.Hour).Add(time.Hour)
	for _, from := range []time.Time{end.Add(-90 * day).Truncate(day), end.Add(-3 * day).Truncate(day)} {
		hourly, err := f.s.HourlyRollups(t.Context(), []int64{f.a.ID}, from, end)
		if err != nil {
			t.Fatal(err)
		}
		byDay, err := f.s.DayRollups(t.Context(), f.a.ID, from, end, f.now)
		if err != nil {
			t.Fatal(err)
		}
		type key struct {
			region string
			day    time.Time
		}
		want, got := map[key]*Stats{}, map[key]*Stats{}
		add := func(m map[key]*Stats, h HourStats) {
			if h.Hour.Before(from) || !h.Hour.Before(end) {
				t.Errorf("piece %s %s outside [%s, %s)", h.Region, h.Hour, from, end)
			}
			k := key{h.Region, h.Hour.Truncate(day)}
			if m[k] == nil {
				m[k] = &Stats{}
			}
			m[k].Merge(h.Stats)
		}
		for _, h := range hourly {
			add(want, h.HourStats)
		}
		for _, h := range byDay {
			add(got, h)
		}
		// Both regions ran every day of the span, but for today when the test runs in the
		// first minutes after midnight: the fixture's runs come every 10 minutes, a third
		// of them in eu only, so the new day may have none of one region yet.
		if days := int(end.Sub(from).Hours()+23) / 24; len(want) < 2*days-1 || len(got) != len(want) {
			t.Fatalf("from %s: %d days by DayRollups, %d from the hourly rollups, want %d (or one fewer just after midnight)", from, len(got), len(want), 2*days)
		}
		for k, w := range want {
			if g := got[k]; g == nil || !reflect.DeepEqual(*g, *w) {
				t.Errorf("from %s: %s on %s: by day %+v, hourly %+v", from, k.region, k.day, g, *w)
			}
		}
	}
}

// checkRecentHours compares RecentHours with HourlyRollups over the sparkline's day and over
// a span that begins before the status sums' 24 hours.
func checkRecentHours(t *testing.T, f *statusFixture) {
	end := f.now.Truncate(time.Hour).Add(time.Hour)
	ids := []int64{f.a.ID, f.b.ID, f.c.ID}
	for _, from := range []time.Time{end.Add(-24 * time.Hour), end.Add(-30 * time.Hour)} {
		want, err := f.s.HourlyRollups(t.Context(), ids, from, end)
		if err != nil {
			t.Fatal(err)
		}
		got, err := f.s.RecentHours(t.Context(), ids, from, end, f.now)
		if err != nil {
			t.Fatal(err)
		}
		if len(want) < 40 || !reflect.DeepEqual(got, want) {
			t.Errorf("from %s: RecentHours gave %d hours, HourlyRollups %d; first differing: %s", from, len(got), len(want), firstDiff(got, want))
		}
	}
}

func firstDiff(got, want []ServerHour) string {
	for i := range min(len(got), len(want)) {
		if !reflect.DeepEqual(got[i], want[i]) {
			return fmt.Sprintf("#%d %+v, want %+v", i, got[i], want[i])
		}
	}
	return "none in the common part"
}

// checkDetail compares a server's detail (per region, from the same sums as its status) with
// the raw runs; the 24h latency extremes only when the sums are exact (see status_sums.go).
func checkDetail(t *testing.T, f *statusFixture, extremes bool) {
	d, err := f.s.ServerDetail(t.Context(), f.a.ID, f.now)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.ByRegion) != 2 || d.ByRegion[0].Region != "eu" || d.ByRegion[1].Region != "us" {
		t.Fatalf("regions %+v, want eu and us", d.ByRegion)
	}
	end := f.now.Truncate(time.Hour).Add(time.Hour)
	for _, rw := range d.ByRegion {
		for i, w := range rw.Windows {
			checkWindow(t, rw.Region, w, expectWindow(f.runs, rw.Region, w.Start(f.now), end), i == 0, extremes)
		}
	}
	for _, h := range d.Hours {
		e := expectWindow(f.runs, h.Region, h.Hour, h.Hour.Add(time.Hour))
		if h.Runs != e.runs || h.Down != e.down {
			t.Errorf("hour %s %s: %d runs %d down, raw runs say %d, %d", h.Hour, h.Region, h.Runs, h.Down, e.runs, e.down)
		}
		if !h.Hour.After(end.Add(-(DetailHours+1)*time.Hour)) || h.Hour.After(end) {
			t.Errorf("hour %s outside the detail's %d hours", h.Hour, DetailHours)
		}
	}
	if len(d.Hours) == 0 {
		t.Error("no hourly latency")
	}
}

func TestServerStatusOfAMissingServerIsNotFound(t *testing.T) {
	t.Parallel()
	s, ctx := newTestStore(t)
	if _, err := s.ServerStatus(ctx, 42, time.Now()); !errors.Is(err, ErrNotFound) {
		t.Fatalf("ServerStatus(42) = %v, want ErrNotFound", err)
	}
}

func TestPublicURLRedactsCredentials(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"https://example.com/mcp", "https://example.com/mcp"},
		{"https://user:hunter2@example.com/mcp", "https://user:REDACTED@example.com/mcp"},
		{"https://example.com/mcp?api_key=s3cret&x=1", "https://example.com/mcp?api_key=REDACTED&x=1"},
		{"https://example.com/mcp?access_token=t", "https://example.com/mcp?access_token=REDACTED"},
	} {
		if got := (Server{URL: tc.in}).PublicURL(); got != tc.want {
			t.Errorf("PublicURL(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// An untested check applied but was not judged: counted apart from skips, and in the score
// never a pass. Advice has no normative keyword behind it: it does not lower the score.
func TestConformanceCountsUntestedAndAdviceApart(t *testing.T) {
	t.Parallel()
	s, ctx := newTestStore(t)
	v := mustUpsert(t, ctx, s, httpServer("untested"))
	now := time.Now().UTC()
	r := sampleRun(v.ID, "eu", now.Add(-time.Minute), OutcomeUp, 20*time.Millisecond)
	r.Findings = []FindingRecord{
		{CheckID: "lifecycle.initialize", Status: "pass", Message: "ok"},
		{CheckID: "lifecycle.ping", Status: "fail", Severity: "error", Message: "ping answered []"},
		{CheckID: "tools.name-format", Status: "warn", Severity: "warning", Message: "a space"},
		{CheckID: "tools.description", Status: "warn", Severity: "advice", Message: "no description"},
		{CheckID: "lifecycle.capabilities", Status: "untested", Message: "no list method was sent: the probe stopped early"},
		{CheckID: "http.status", Status: "skip", Message: "applies to the http transport only"},
		{CheckID: "tools.fingerprint", Status: "info", Message: "3 tools"},
	}
	if _, err := s.WriteRuns(ctx, []RunRecord{r}); err != nil {
		t.Fatal(err)
	}
	st, err := s.ServerStatus(ctx, v.ID, now)
	if err != nil {
		t.Fatal(err)
	}
	c := st.Conformance
	if c == nil {
		t.Fatal("no conformance")
	}
	if c.Pass != 1 || c.Fail != 1 || c.Warn != 2 || c.Advice != 1 || c.Untested != 1 || c.Skip != 1 || c.Info != 1 {
		t.Errorf("conformance %+v: want 1 pass, 1 fail, 2 warn (1 advice), 1 untested, 1 skip, 1 info", *c)
	}
	if !slices.Equal(c.Warning, []string{"tools.name-format", "tools.description"}) {
		t.Errorf("warning ids %v", c.Warning)
	}
	// (pass 1 + advice 1 + warning 1/2) of 5 applicable checks.
	if got := c.Score(); got != 50 {
		t.Errorf("score %v, want 50", got)
	}
}

func TestConformanceScore(t *testing.T) {
	tests := []struct {
		name string
		c    Conformance
		want float64
	}{
		{"nothing applied", Conformance{Skip: 3, Info: 1}, 100},
		{"all passed", Conformance{Pass: 4, Skip: 2}, 100},
		{"a warning counts half", Conformance{Pass: 1, Warn: 1}, 75},
		{"advice counts as a pass", Conformance{Pass: 1, Warn: 1, Advice: 1}, 100},
		{"untested is never a pass", Conformance{Pass: 3, Untested: 1}, 75},
		{"only untested", Conformance{Untested: 2, Skip: 5}, 0},
	}
	for _, tt := range tests {
		if got := tt.c.Score(); got != tt.want {
			t.Errorf("%s: score %v, want %v", tt.name, got, tt.want)
		}
	}
}

// A run's findings never change once written, so a reading of every server counts those of
// the runs that arrived since the reading before, and remembers the others: a run read
// before keeps its counts even when its findings are gone (as if a later write could change
// them, which none can), while a new run's are counted.
func TestServerStatusesCountTheFindingsOfEachRunOnce(t *testing.T) {
	t.Parallel()
	s, ctx := newTestStore(t)
	v := mustUpsert(t, ctx, s, httpServer("once"))
	now := time.Now().UTC()
	first := sampleRun(v.ID, "eu", now.Add(-2*time.Minute), OutcomeDegraded, 20*time.Millisecond)
	if _, err := s.WriteRuns(ctx, []RunRecord{first}); err != nil {
		t.Fatal(err)
	}
	read := func() *Conformance {
		t.Helper()
		all, err := s.ServerStatuses(ctx, now)
		if err != nil {
			t.Fatal(err)
		}
		if len(all) != 1 || all[0].Latest == nil {
			t.Fatalf("statuses %+v, want the one server with a run", all)
		}
		c := all[0].Conformance
		if c != nil && c.RunID != all[0].Latest.ID {
			t.Fatalf("conformance of run %s, latest run %s", c.RunID, all[0].Latest.ID)
		}
		return c
	}
	if c := read(); c == nil || c.Fail != 1 || !slices.Equal(c.Failing, []string{"tools.list"}) {
		t.Fatalf("first reading: conformance %+v, want tools.list failing", c)
	}
	if _, err := s.pool.Exec(ctx, `DELETE FROM run_finding_refs WHERE run_id = $1`, first.ID); err != nil {
		t.Fatal(err)
	}
	if c := read(); c == nil || c.Fail != 1 {
		t.Fatalf("second reading, same latest run: conformance %+v, want the counts of the first", c)
	}
	second := sampleRun(v.ID, "eu", now.Add(-time.Minute), OutcomeUp, 20*time.Millisecond)
	second.Findings = []FindingRecord{{CheckID: "lifecycle.initialize", Status: "pass"}, {CheckID: "tools.list", Status: "pass"}}
	if _, err := s.WriteRuns(ctx, []RunRecord{second}); err != nil {
		t.Fatal(err)
	}
	if c := read(); c == nil || c.RunID != second.ID || c.Pass != 2 || c.Fail != 0 || c.Failing != nil {
		t.Fatalf("after a new run: conformance %+v, want 2 passes of run %s", c, second.ID)
	}
	// A run without findings has no conformance, read again as none.
	third := sampleRun(v.ID, "eu", now.Add(-30*time.Second), OutcomeUp, 20*time.Millisecond)
	third.Findings = nil
	if _, err := s.WriteRuns(ctx, []RunRecord{third}); err != nil {
		t.Fatal(err)
	}
	if c := read(); c != nil {
		t.Fatalf("a run without findings: conformance %+v, want none", c)
	}
	if c := read(); c != nil {
		t.Fatalf("a run without findings, read again: conformance %+v, want none", c)
	}
}

// A store keeps the status sums it decoded for the next reading of the same hour: a reading
// after a refresh, or on the next day, must show what a store reading them afresh shows.
func TestServerStatusesShowTheSumsOfEachRefreshAndDay(t *testing.T) {
	t.Parallel()
	s, ctx := newTestStore(t)
	v := mustUpsert(t, ctx, s, httpServer("sums"))
	w := mustUpsert(t, ctx, s, httpServer("sums-2"))
	midnight := time.Now().UTC().Truncate(24 * time.Hour).Add(-day)
	outcomes := []string{OutcomeUp, OutcomeUp, OutcomeDegraded, OutcomeDown}
	var runs []RunRecord
	for at, i := midnight.Add(-3*day), 0; at.Before(midnight.Add(150 * time.Minute)); at, i = at.Add(20*time.Minute), i+1 {
		runs = append(runs, sampleRun(v.ID, "eu", at, outcomes[i%len(outcomes)], time.Duration(10+i%40)*time.Millisecond))
		if i%3 == 0 {
			runs = append(runs, sampleRun(w.ID, "us", at.Add(time.Minute), outcomes[i%3], 50*time.Millisecond))
		}
	}
	if _, err := s.WriteRuns(ctx, runs); err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct {
		name          string
		refresh, read time.Time
	}{
		{"sums of 23:00 read at 23:30", midnight.Add(-time.Hour), midnight.Add(-30 * time.Minute)},
		{"the same sums read the next day", time.Time{}, midnight.Add(30 * time.Minute)},
		{"the sums of a later hour", midnight.Add(time.Hour), midnight.Add(70 * time.Minute)},
		{"the same sums read again", time.Time{}, midnight.Add(80 * time.Minute)},
	} {
		if !step.refresh.IsZero() {
			if done, err := s.RefreshStatusWindows(ctx, step.refresh); err != nil || !done {
				t.Fatalf("%s: RefreshStatusWindows = %v, %v; want a refresh", step.name, done, err)
			}
		}
		got, err := s.ServerStatuses(ctx, step.read)
		if err != nil {
			t.Fatal(err)
		}
		want, err := New(s.pool).ServerStatuses(ctx, step.read)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[0].Days()[StatusDays-1].Runs == 0 || got[0].Windows[0].Runs == 0 {
			t.Fatalf("%s: %d statuses, want two with runs today", step.name, len(got))
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the statuses read by the store that read before differ from those of a new store", step.name)
		}
	}
}
