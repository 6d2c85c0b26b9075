package apiserver

import (
	"bytes"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
	"github.com/mcpwatch/mcpwatch/store"
)

// rawWindow computes a window's uptime and latency figures from the seeded runs themselves:
// the latency of a run is its answer time, or its duration when it has none.
func rawWindow(runs []store.RunRecord, from, to time.Time) (total, ok int64, lat []time.Duration) {
	for _, r := range runs {
		if r.Start.Before(from) || !r.Start.Before(to) {
			continue
		}
		total++
		if r.Outcome != store.OutcomeDown {
			ok++
			lat = append(lat, r.Latency())
		}
	}
	slices.Sort(lat)
	return total, ok, lat
}

// bucketRange is the latency histogram bucket holding d, narrowed by the observed extremes:
// where a percentile estimated from the histogram must fall.
func bucketRange(d, lo, hi time.Duration) (float64, float64) {
	bounds := store.LatencyBucketBounds()
	i, _ := slices.BinarySearch(bounds, d)
	lower, upper := lo, hi
	if i > 0 {
		lower = max(lower, bounds[i-1])
	}
	if i < len(bounds) {
		upper = min(upper, bounds[i])
	}
	return float64(lower) / 1e6, float64(upper) / 1e6
}

func readListServersFiguresEqualThoseOfTheRawRuns(t *testing.T, w *world) {
	var out struct {
		Servers []statusView `json:"servers"`
	}
	resp := w.get(t, "/api/v1/servers")
	if resp.status != 200 {
		t.Fatalf("status %d: %s", resp.status, resp.body)
	}
	resp.json(t, &out)
	if len(out.Servers) != 3 || out.Servers[0].Name != "alpha" || out.Servers[1].Name != "beta" || out.Servers[2].Name != "gamma" {
		t.Fatalf("servers %+v, want alpha, beta, gamma", out.Servers)
	}
	a := out.Servers[0]
	if a.State != store.StateDegraded || len(a.Regions) != 2 {
		t.Errorf("alpha: state %s with %d regions, want degraded (eu up, us down)", a.State, len(a.Regions))
	}
	if a.LastError == nil || a.LastError.ErrorCode == nil || *a.LastError.ErrorCode != -32603 || a.LastError.Region != "us" {
		t.Errorf("alpha: last error %+v, want -32603 from us", a.LastError)
	}
	if a.LastRun == nil || a.Conformance == nil || a.Conformance.RunID != a.LastRun.ID || a.LastRun.Region != "us" {
		t.Errorf("alpha: conformance %+v, want that of the newest run %+v (us)", a.Conformance, a.LastRun)
	}
	end := w.now.Truncate(time.Hour).Add(time.Hour)
	for _, win := range store.StatusWindows() {
		total, ok, _ := rawWindow(w.runs, win.Start(w.now), end)
		got := windowNamed(a.Uptime, win.Name)
		if got.Runs != total || got.Up+got.Degraded != ok || got.Uptime == nil || math.Abs(*got.Uptime-float64(ok)/float64(total)) > 1e-12 {
			t.Errorf("uptime %s: %+v, raw runs say %d of %d", win.Name, got, ok, total)
		}
	}
	_, _, lat := rawWindow(w.runs, store.StatusWindows()[0].Start(w.now), end)
	for _, p := range []struct {
		q   float64
		got *float64
	}{{.5, a.Latency.P50Ms}, {.95, a.Latency.P95Ms}, {.99, a.Latency.P99Ms}} {
		exact := lat[int(math.Ceil(p.q*float64(len(lat))))-1]
		lo, hi := bucketRange(exact, lat[0], lat[len(lat)-1])
		if p.got == nil || *p.got < lo-0.001 || *p.got > hi+0.001 {
			t.Errorf("p%g = %v ms, want within [%v, %v] ms, the bucket of the true %v", p.q*100, p.got, lo, hi, exact)
		}
	}
	if a.Latency.MinMs == nil || *a.Latency.MinMs != ms(lat[0]) || *a.Latency.MaxMs != ms(lat[len(lat)-1]) {
		t.Errorf("latency extremes %v/%v, raw runs say %v/%v", a.Latency.MinMs, a.Latency.MaxMs, lat[0], lat[len(lat)-1])
	}
	if b := out.Servers[1]; b.State != store.StatePaused || b.LastRun != nil || b.Uptime.H24.Uptime != nil {
		t.Errorf("beta: %+v, want paused without runs and null uptime", b)
	}
	// Secrets: the URL's key, the header's variable, a stdio server's command, args and env.
	for _, secret := range []string{"s3cret-key", "ALPHA_TOKEN_VAR", "secret-cmd", "stdio-secret-arg", "stdio-secret-env"} {
		if strings.Contains(string(resp.body), secret) {
			t.Errorf("the server list shows %q", secret)
		}
	}
	if a.URL != "https://alpha.example.com/mcp?api_key=REDACTED" || !slices.Equal(a.Headers, []string{"Authorization"}) {
		t.Errorf("alpha url %q headers %v", a.URL, a.Headers)
	}
}

func readGetServerGivesRegionsDaysAndHours(t *testing.T, w *world) {
	resp := w.get(t, "/api/v1/servers/alpha")
	if resp.status != 200 {
		t.Fatalf("status %d: %s", resp.status, resp.body)
	}
	var d detailView
	resp.json(t, &d)
	if len(d.Days) != store.StatusDays || len(d.ByRegion) != 2 || len(d.Hours) == 0 {
		t.Fatalf("%d days, %d regions, %d hours", len(d.Days), len(d.ByRegion), len(d.Hours))
	}
	end := w.now.Truncate(time.Hour).Add(time.Hour)
	for _, rv := range d.ByRegion {
		var mine []store.RunRecord
		for _, r := range w.runs {
			if r.Region == rv.Region {
				mine = append(mine, r)
			}
		}
		total, ok, _ := rawWindow(mine, store.StatusWindows()[1].Start(w.now), end)
		if got := rv.Uptime.D7; got.Runs != total || got.Up+got.Degraded != ok {
			t.Errorf("%s 7d: %+v, raw runs say %d of %d", rv.Region, got, ok, total)
		}
	}
	today := d.Days[len(d.Days)-1]
	total, ok, _ := rawWindow(w.runs, w.now.Truncate(24*time.Hour), end)
	if today.Day != w.now.Format(time.DateOnly) || today.Runs != total || today.OK != ok {
		t.Errorf("today %+v, raw runs say %d of %d", today, ok, total)
	}
	for _, name := range []string{"nope", "alpha%2Fx", strings.Repeat("x", 300)} {
		r := w.get(t, "/api/v1/servers/"+name)
		if r.status != 404 || r.errorCode(t) != codeNotFound {
			t.Errorf("GET server %.20s: %d %s", name, r.status, r.body)
		}
	}
}

func readRunsPageThroughEveryRunWithCursors(t *testing.T, w *world) {
	seeded := map[string]store.RunRecord{}
	for _, r := range w.runs {
		seeded[r.ID.String()] = r
	}
	want := func(outcome, region string) []string {
		var rs []store.RunRecord
		for _, r := range w.runs {
			if (outcome == "" || r.Outcome == outcome) && (region == "" || r.Region == region) {
				rs = append(rs, r)
			}
		}
		slices.SortFunc(rs, func(a, b store.RunRecord) int {
			if c := b.Start.Compare(a.Start); c != 0 {
				return c
			}
			return strings.Compare(b.ID.String(), a.ID.String())
		})
		ids := make([]string, len(rs))
		for i, r := range rs {
			ids[i] = r.ID.String()
		}
		return ids
	}
	for _, f := range []struct{ outcome, region string }{{"", ""}, {"down", ""}, {"", "us"}, {"degraded", "eu"}} {
		var got []string
		q := url.Values{"limit": {"37"}}
		if f.outcome != "" {
			q.Set("outcome", f.outcome)
		}
		if f.region != "" {
			q.Set("region", f.region)
		}
		for pages := 0; ; pages++ {
			if pages > 100 {
				t.Fatal("paging does not end")
			}
			resp := w.get(t, "/api/v1/servers/alpha/runs?"+q.Encode())
			if resp.status != 200 {
				t.Fatalf("status %d: %s", resp.status, resp.body)
			}
			var page struct {
				Runs       []runView `json:"runs"`
				NextCursor *string   `json:"nextCursor"`
			}
			resp.json(t, &page)
			for _, r := range page.Runs {
				got = append(got, r.ID)
				// The whole probe and the answer time, null when the run has none.
				s := seeded[r.ID]
				answer := "null"
				if r.AnswerMs != nil {
					answer = strconv.FormatFloat(*r.AnswerMs, 'f', -1, 64)
				}
				if r.DurationMs != ms(s.Duration) || (r.AnswerMs == nil) != (s.AnswerTime == 0) || (r.AnswerMs != nil && *r.AnswerMs != ms(s.AnswerTime)) {
					t.Errorf("run %s: durationMs %v, answerMs %s; want %v and %v", r.ID, r.DurationMs, answer, s.Duration, s.AnswerTime)
				}
				if (f.outcome != "" && r.Outcome != f.outcome) || (f.region != "" && r.Region != f.region) {
					t.Errorf("filter %+v let %+v through", f, r)
				}
			}
			if page.NextCursor == nil {
				break
			}
			q.Set("cursor", *page.NextCursor)
		}
		if w := want(f.outcome, f.region); !slices.Equal(got, w) {
			t.Errorf("filter %+v: %d runs paged, want %d in order", f, len(got), len(w))
		}
	}
}

func TestRunsRefuseBadCursorsAndParameters(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	var page struct {
		NextCursor *string `json:"nextCursor"`
	}
	w.get(t, "/api/v1/servers/alpha/runs?limit=2&outcome=down").json(t, &page)
	if page.NextCursor == nil {
		t.Fatal("no next cursor")
	}
	good := *page.NextCursor
	flipped := []byte(good)
	flipped[10] ^= 1
	if flipped[10] == '-'^1 || flipped[10] == '_'^1 {
		flipped[10] = 'A'
	}
	for _, tc := range []struct{ query, code string }{
		{"cursor=" + url.QueryEscape(good), ""},
		{"cursor=not-a-cursor", codeBadCursor},
		{"cursor=" + good[:len(good)-3], codeBadCursor},
		{"cursor=" + string(flipped), codeBadCursor},
		{"cursor=" + strings.Repeat("A", 500), codeBadCursor},
		{"cursor=" + good + "&outcome=up", codeBadCursor}, // another query's cursor
		{"cursor=" + good + "&region=eu", codeBadCursor},  // ditto
		{"cursor=" + good + "&outcome=down&limit=2", ""},  // the same query, limits may change
		{"outcome=sideways", codeBadRequest},
		{"limit=0", codeBadRequest},
		{"limit=100000", codeBadRequest},
		{"limit=ten", codeBadRequest},
	} {
		q := tc.query
		if !strings.Contains(q, "outcome=") {
			q += "&outcome=down"
		}
		resp := w.get(t, "/api/v1/servers/alpha/runs?"+q)
		if tc.code == "" {
			if resp.status != 200 {
				t.Errorf("%s: %d %s", tc.query, resp.status, resp.body)
			}
			continue
		}
		if resp.status != 400 || resp.errorCode(t) != tc.code {
			t.Errorf("%s: %d %s, want 400 %s", tc.query, resp.status, resp.body, tc.code)
		}
	}
	// A cursor of one server's runs does not page another's.
	w.do(t, req{method: "POST", path: "/api/v1/servers", token: testToken, body: `{"name":"delta","url":"https://public.test/x"}`})
	if resp := w.get(t, "/api/v1/servers/delta/runs?outcome=down&cursor="+good); resp.status != 400 {
		t.Errorf("another server's cursor: %d %s", resp.status, resp.body)
	}
}

func readRunReportHoldsStepsFindingsAndTranscript(t *testing.T, w *world) {
	resp := w.get(t, "/api/v1/runs/"+w.withTranscript.ID.String())
	if resp.status != 200 {
		t.Fatalf("status %d: %s", resp.status, resp.body)
	}
	var rep struct {
		Run        runView `json:"run"`
		Server     string  `json:"server"`
		Transcript bool    `json:"transcript"`
		Report     struct {
			Checks []struct {
				ID, Status, Area string
				Evidence         []any
			} `json:"checks"`
			Steps      []struct{ Name, Outcome string } `json:"steps"`
			Transcript []struct {
				Seq  int
				Dir  string
				Kind string
				Raw  string
			} `json:"transcript"`
			Summary struct{ Total int } `json:"summary"`
		} `json:"report"`
	}
	resp.json(t, &rep)
	if rep.Server != "alpha" || !rep.Transcript || rep.Run.ID != w.withTranscript.ID.String() {
		t.Fatalf("run %+v server %q transcript %v", rep.Run, rep.Server, rep.Transcript)
	}
	if len(rep.Report.Checks) != len(w.withTranscript.Findings) || rep.Report.Summary.Total != len(rep.Report.Checks) {
		t.Errorf("%d checks, stored %d", len(rep.Report.Checks), len(w.withTranscript.Findings))
	}
	for i, c := range rep.Report.Checks {
		if c.ID != w.withTranscript.Findings[i].CheckID || c.Status != w.withTranscript.Findings[i].Status || c.Area == "" {
			t.Errorf("check %d: %+v, stored %+v", i, c, w.withTranscript.Findings[i])
		}
	}
	if !slices.ContainsFunc(rep.Report.Steps, func(s struct{ Name, Outcome string }) bool { return s.Name == "initialize" && s.Outcome == "ok" }) {
		t.Errorf("steps %+v", rep.Report.Steps)
	}
	sentInitialize := false
	for i, f := range rep.Report.Transcript {
		if f.Seq != i {
			t.Fatalf("frame %d has seq %d", i, f.Seq)
		}
		sentInitialize = sentInitialize || (f.Dir == "out" && strings.Contains(f.Raw, `"method":"initialize"`))
	}
	if len(rep.Report.Transcript) < 4 || !sentInitialize {
		t.Errorf("transcript of %d frames without the initialize request", len(rep.Report.Transcript))
	}

	// A run without a transcript: the stored steps and findings.
	plain := w.runs[0]
	resp = w.get(t, "/api/v1/runs/"+plain.ID.String())
	var rep2 struct {
		Transcript bool `json:"transcript"`
		Report     struct {
			Checks []struct{ ID string }   `json:"checks"`
			Steps  []struct{ Name string } `json:"steps"`
		} `json:"report"`
	}
	resp.json(t, &rep2)
	if resp.status != 200 || rep2.Transcript || len(rep2.Report.Checks) != 2 || len(rep2.Report.Steps) != 1 {
		t.Errorf("plain run: %d %s", resp.status, resp.body)
	}
	for path, want := range map[string]int{
		"/api/v1/runs/not-a-uuid":                            400,
		"/api/v1/runs/" + store.NewRunID(w.now).String():     404,
		"/api/v1/runs/" + strings.ToUpper(plain.ID.String()): 200,
	} {
		if r := w.get(t, path); r.status != want {
			t.Errorf("GET %s: %d, want %d", path, r.status, want)
		}
	}
}

func readToolsShowTheSurfaceAndItsChanges(t *testing.T, w *world) {
	resp := w.get(t, "/api/v1/servers/alpha/tools")
	if resp.status != 200 {
		t.Fatalf("status %d: %s", resp.status, resp.body)
	}
	var out struct {
		Current *struct {
			Fingerprint string
			Known       bool
			Tools       []struct{ Name string }
		}
		Changes []struct {
			Fingerprint string
			Previous    *struct{ Fingerprint string }
			Diff        *struct{ Added, Removed []string }
		}
	}
	resp.json(t, &out)
	if out.Current == nil || out.Current.Fingerprint != "sha256:new" || !out.Current.Known || len(out.Current.Tools) != 13 {
		t.Fatalf("current %+v", out.Current)
	}
	if len(out.Changes) < 2 || out.Changes[0].Fingerprint != "sha256:new" || out.Changes[0].Previous == nil ||
		out.Changes[0].Previous.Fingerprint != "sha256:old" || out.Changes[0].Diff == nil {
		t.Fatalf("changes %+v", out.Changes)
	}
	if d := out.Changes[0].Diff; len(d.Added) != 10 || len(d.Removed) != 0 {
		t.Errorf("diff %+v, want 10 tools added", d)
	}
	if r := w.get(t, "/api/v1/servers/nope/tools"); r.status != 404 {
		t.Errorf("tools of a missing server: %d", r.status)
	}
}

func TestAlertsHistoryPagesNewestFirst(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	for i := range 5 {
		kind := []string{"down", "conformance"}[i%2]
		if _, err := w.st.Pool().Exec(t.Context(), `INSERT INTO alert_history (server_id, server, kind, incident, event, at, regions, summary)
			VALUES ($1, 'alpha', $2, gen_random_uuid(), 'fired', now() - $3 * interval '1 minute', '{eu}', $4)`,
			w.alpha.ID, kind, 10-i, fmt.Sprintf("alert %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	var page struct {
		Alerts []struct {
			ID      int64
			Kind    string
			Summary string
			Regions []string
		}
		NextCursor *string
	}
	w.get(t, "/api/v1/alerts?limit=3").json(t, &page)
	if len(page.Alerts) != 3 || page.Alerts[0].Summary != "alert 4" || page.NextCursor == nil || page.Alerts[0].Regions[0] != "eu" {
		t.Fatalf("first page %+v", page)
	}
	cursor := *page.NextCursor
	page.Alerts, page.NextCursor = nil, nil
	w.get(t, "/api/v1/alerts?limit=3&cursor="+cursor).json(t, &page)
	if len(page.Alerts) != 2 || page.Alerts[1].Summary != "alert 0" {
		t.Errorf("second page %+v", page)
	}
	page.Alerts = nil
	w.get(t, "/api/v1/servers/alpha/alerts?kind=conformance").json(t, &page)
	if len(page.Alerts) != 2 {
		t.Errorf("conformance alerts %+v", page.Alerts)
	}
	page.Alerts = nil
	w.get(t, "/api/v1/servers/beta/alerts").json(t, &page)
	if len(page.Alerts) != 0 {
		t.Errorf("beta has alerts %+v", page.Alerts)
	}
	for _, q := range []string{"kind=weird", "cursor=abc", "cursor=-4", "limit=0"} {
		if r := w.get(t, "/api/v1/alerts?"+q); r.status != 400 {
			t.Errorf("alerts?%s: %d", q, r.status)
		}
	}
}

// Reports never show credentials: a URL's key, a stdio server's arguments.
func TestRunReportsHideSecrets(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	var rep struct {
		Report struct{ Target string } `json:"report"`
	}
	resp := w.get(t, "/api/v1/runs/"+w.withTranscript.ID.String())
	resp.json(t, &rep)
	if rep.Report.Target != "https://alpha.example.com/mcp?api_key=REDACTED" || strings.Contains(string(resp.body), "s3cret-key") {
		t.Errorf("alpha's report shows target %q", rep.Report.Target)
	}

	var buf bytes.Buffer
	res := &probe.Result{Target: "secret-cmd --token=stdio-secret-arg", Transport: protocol.TransportStdio, Start: w.now,
		Err: "spawn failed: secret-cmd --token=stdio-secret-arg exited 1"}
	if err := probe.WriteRecording(&buf, res); err != nil {
		t.Fatal(err)
	}
	run := store.RunRecord{ID: store.NewRunID(w.now), ServerID: w.gamma.ID, Region: "eu", Worker: "w", Start: w.now.Add(-time.Second),
		Outcome: store.OutcomeDown, Transcript: buf.Bytes()}
	if _, err := w.st.WriteRuns(t.Context(), []store.RunRecord{run}); err != nil {
		t.Fatal(err)
	}
	resp = w.get(t, "/api/v1/runs/"+run.ID.String())
	resp.json(t, &rep)
	if resp.status != 200 || rep.Report.Target != "stdio: secret-cmd" {
		t.Errorf("gamma's report: %d target %q", resp.status, rep.Report.Target)
	}
	if strings.Contains(string(resp.body), "stdio-secret-arg") {
		t.Errorf("gamma's report shows its argument: %s", resp.body)
	}
}

// TestReadEndpoints runs the tests that only read on one seeded database.
func TestReadEndpoints(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	for _, tc := range []struct {
		name string
		fn   func(*testing.T, *world)
	}{
		{"ListServersFiguresEqualThoseOfTheRawRuns", readListServersFiguresEqualThoseOfTheRawRuns},
		{"GetServerGivesRegionsDaysAndHours", readGetServerGivesRegionsDaysAndHours},
		{"RunsPageThroughEveryRunWithCursors", readRunsPageThroughEveryRunWithCursors},
		{"RunReportHoldsStepsFindingsAndTranscript", readRunReportHoldsStepsFindingsAndTranscript},
		{"ToolsShowTheSurfaceAndItsChanges", readToolsShowTheSurfaceAndItsChanges},
		{"BadgesShowTheStatusWithCachingHeaders", readBadgesShowTheStatusWithCachingHeaders},
		{"UnknownPathsAndMethodsAnswerJSON", readUnknownPathsAndMethodsAnswerJSON},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, w)
		})
	}
}

// windowNamed returns the view of a window by name.
func windowNamed(w windowsView, name string) windowView {
	switch name {
	case "24h":
		return w.H24
	case "7d":
		return w.D7
	case "30d":
		return w.D30
	}
	return w.D90
}
