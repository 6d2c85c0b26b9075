package web

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/store"
)

// TestDashboard seeds the demo fleet once and checks every page against it: handlers here,
// figures in figures_test.go, the browser in browser_test.go.
func TestDashboard(t *testing.T) {
	t.Parallel()
	f := newFleet(t)
	t.Run("status page lists every server with its state", func(t *testing.T) { testStatusStates(t, f) })
	t.Run("status page filters by state and name", func(t *testing.T) { testStatusFilters(t, f) })
	t.Run("status page shows the last error with its exact codes", func(t *testing.T) { testStatusLastError(t, f) })
	t.Run("status page shows the last runs as ticks", func(t *testing.T) { testStatusRecentProbes(t, f) })
	t.Run("status page shows open alerts and why they are open", func(t *testing.T) { testStatusAlerts(t, f) })
	t.Run("pages name the maintenance window in force", func(t *testing.T) { testMaintenanceInForce(t, f) })
	t.Run("server page shows chart findings tools drift and runs", func(t *testing.T) { testServerPage(t, f) })
	t.Run("server page lists untested checks apart", func(t *testing.T) { testUntestedFindings(t, f) })
	t.Run("server page pages through runs without overlap", func(t *testing.T) { testRunPaging(t, f) })
	t.Run("server page shows alert history", func(t *testing.T) { testAlerts(t, f) })
	t.Run("run page shows the report and every frame", func(t *testing.T) { testRunPage(t, f) })
	t.Run("run page without a recording shows stored steps", func(t *testing.T) { testRunWithoutRecording(t, f) })
	t.Run("bad requests get a page saying what is wrong", func(t *testing.T) { testBadRequests(t, f) })
	t.Run("live fragment and assets", func(t *testing.T) { testFragmentAndAssets(t, f) })
	t.Run("figures equal those computed from raw runs", func(t *testing.T) { testFigures(t, f) })
	t.Run("browser", func(t *testing.T) { testBrowser(t, f) })
}

func testStatusStates(t *testing.T, f *fleet) {
	page := f.mustGet(t, "/")
	if !strings.Contains(page, "1 of 5 servers down") {
		t.Errorf("headline missing: %s", clipForLog(page))
	}
	var order []string
	for _, m := range regexp.MustCompile(`<li class="server s-(\w+)">`).FindAllStringSubmatch(page, -1) {
		order = append(order, m[1])
	}
	// Worst first: down, degraded, no data, up, paused.
	if got := strings.Join(order, ","); got != "down,degraded,degraded,unknown,up,paused" {
		t.Errorf("rows in state order %s", got)
	}
	for _, p := range f.plans {
		row := rowOf(t, page, p.Name)
		if !strings.HasPrefix(row, "s-"+p.State+`"`) {
			t.Errorf("%s: row starts %q, want state %s", p.Name, row[:20], p.State)
		}
		if !strings.Contains(row, `<span class="pill `+p.State+`"`) {
			t.Errorf("%s: no %s pill", p.Name, p.State)
		}
		bars := strings.Count(svgOf(t, row, "uptime"), `role="listitem"`)
		if bars != store.StatusDays {
			t.Errorf("%s: %d day bars, want %d", p.Name, bars, store.StatusDays)
		}
	}
	// Region states: search-index is down in eu and up in us.
	row := rowOf(t, page, "search-index")
	if !regexp.MustCompile(`dot down[^>]*></span>eu <span class="muted">down`).MatchString(row) ||
		!regexp.MustCompile(`dot up[^>]*></span>us <span class="muted">up`).MatchString(row) {
		t.Errorf("search-index regions wrong:\n%s", row)
	}
	if !strings.Contains(rowOf(t, page, "notes-beta"), "No run yet") {
		t.Error("a server without runs should say so")
	}
	// Days: weather-tools had failed runs three days ago, so its strip has a failing day.
	// Only its share is red: the rest of that day was up.
	if !strings.Contains(rowOf(t, page, "weather-tools"), `class="share day-major"`) {
		t.Error("weather-tools' outage is not among its bars")
	}
	// notes-beta has no run: its strip says no data rather than showing grey days.
	if row := rowOf(t, page, "notes-beta"); !strings.Contains(row, `<span class="nodata">no data yet</span>`) || strings.Contains(row, `class="day-none"`) {
		t.Error("notes-beta's strip does not say it has no data yet")
	}
}

// svgOf cuts the chart of a class out of a row.
func svgOf(t *testing.T, row, class string) string {
	t.Helper()
	_, rest, ok := strings.Cut(row, `class="`+class+`"`)
	if !ok {
		t.Fatalf("no %s chart in the row", class)
	}
	chart, _, _ := strings.Cut(rest, "</svg>")
	return chart
}

func testStatusRecentProbes(t *testing.T, f *fleet) {
	page := f.mustGet(t, "/")
	tickClasses := func(name string) []string {
		var out []string
		for _, m := range regexp.MustCompile(`<rect role="listitem"[^>]*class="(tick-\w+)"`).FindAllStringSubmatch(svgOf(t, rowOf(t, page, name), "recent"), -1) {
			out = append(out, m[1])
		}
		return out
	}
	for _, tc := range []struct {
		name      string
		last, all string // the newest tick's class, and the class every tick has ("" when they differ)
	}{
		{"billing-api", "tick-down", ""}, // down for fifty minutes, up before
		{"github-bridge", "tick-degraded", "tick-degraded"},
		{"weather-tools", "tick-up", "tick-up"},
		{"notes-beta", "tick-none", "tick-none"}, // no run yet: every slot is no data
	} {
		ticks := tickClasses(tc.name)
		if len(ticks) != recentShown {
			t.Fatalf("%s: %d ticks, want %d", tc.name, len(ticks), recentShown)
		}
		if ticks[len(ticks)-1] != tc.last {
			t.Errorf("%s: newest tick %s, want %s", tc.name, ticks[len(ticks)-1], tc.last)
		}
		for _, c := range ticks {
			if tc.all != "" && c != tc.all {
				t.Errorf("%s: ticks %v, want every one %s", tc.name, ticks, tc.all)
				break
			}
		}
	}
	// A tick says when, where, what and how long.
	if !regexp.MustCompile(`<title>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC in eu: down after [^<]+ \(JSON-RPC -32603`).MatchString(svgOf(t, rowOf(t, page, "billing-api"), "recent")) {
		t.Errorf("billing-api's newest tick does not say when, where, what and its codes:\n%s", svgOf(t, rowOf(t, page, "billing-api"), "recent"))
	}
	// A run that reached the server gives its answer time first, the whole probe after it.
	if !regexp.MustCompile(`<title>[^<]+ UTC in (eu|us): up, answered in \d[^<]* ms \(whole probe \d[^<)]*\)</title>`).MatchString(svgOf(t, rowOf(t, page, "weather-tools"), "recent")) {
		t.Errorf("weather-tools's ticks do not give the answer time and the whole probe:\n%s", svgOf(t, rowOf(t, page, "weather-tools"), "recent"))
	}
	if !strings.Contains(rowOf(t, page, "notes-beta"), "<span>no run yet</span>") {
		t.Error("notes-beta's recent probes do not say there are none")
	}
}

func testStatusAlerts(t *testing.T, f *fleet) {
	page := f.mustGet(t, "/")
	if !strings.Contains(page, `<b class="alerts-open">3 alerts open on 3 servers</b>`) {
		t.Errorf("the headline does not count the open alerts")
	}
	for _, tc := range []struct {
		name string
		want []string
	}{
		// Up, with its down alert held open while flapping: the row says both and why.
		{"weather-tools", []string{`<span class="pill up"`, `1 alert open</span>`, `class="open-alert flapping" data-kind="down"`,
			"Held open while flapping: the server is up again since ", "(20 min ago)"}},
		{"search-index", []string{`data-kind="certificate"`, "has a TLS certificate about to expire", "the TLS certificate expires in 6 days"}},
		{"github-bridge", []string{`class="open-alert maintenance" data-kind="conformance"`, "<code>lifecycle.unknown-method</code>",
			"Maintenance window weekly deploy in force"}},
	} {
		row := rowOf(t, page, tc.name)
		for _, want := range tc.want {
			if !strings.Contains(row, want) {
				t.Errorf("%s: row lacks %q", tc.name, want)
			}
		}
	}
	for _, name := range []string{"notes-beta", "archive-reader"} {
		if row := rowOf(t, page, name); strings.Contains(row, "open-alert") || strings.Contains(row, "alert open") {
			t.Errorf("%s has no open alert but its row shows one", name)
		}
	}
}

func testStatusFilters(t *testing.T, f *fleet) {
	for _, tc := range []struct {
		path string
		want []string
	}{
		{"/?state=down", []string{"billing-api"}},
		{"/?state=degraded", []string{"github-bridge", "search-index"}},
		{"/?q=BRIDGE", []string{"github-bridge"}},
		{"/?state=up&q=bridge", nil},
	} {
		page := f.mustGet(t, tc.path)
		var names []string
		for _, m := range regexp.MustCompile(`class="server-name" href="/servers/[^"]+">([^<]+)<`).FindAllStringSubmatch(page, -1) {
			names = append(names, m[1])
		}
		if strings.Join(names, ",") != strings.Join(tc.want, ",") {
			t.Errorf("%s lists %v, want %v", tc.path, names, tc.want)
		}
		if tc.want == nil && !strings.Contains(page, "No server matches.") {
			t.Errorf("%s: no empty-state text", tc.path)
		}
	}
}

func testStatusLastError(t *testing.T, f *fleet) {
	page := f.mustGet(t, "/")
	for _, tc := range []struct {
		name  string
		codes string
	}{
		{"billing-api", "JSON-RPC -32603 · HTTP 200"},   // down now: initialize answered with an error
		{"github-bridge", "JSON-RPC -32603 · HTTP 200"}, // degraded: the unknown method's wrong code
		{"weather-tools", "JSON-RPC -32603 · HTTP 200"}, // up now; the outage of three days ago
	} {
		row := rowOf(t, page, tc.name)
		m := regexp.MustCompile(`(?s)<p class="last-error">.*?<a href="(/runs/[^"]+)">.*?<code class="codes">([^<]*)</code>`).FindStringSubmatch(row)
		if m == nil {
			t.Errorf("%s: no last error", tc.name)
			continue
		}
		if m[2] != tc.codes {
			t.Errorf("%s: last error codes %q, want %q", tc.name, m[2], tc.codes)
		}
		id, err := store.ParseRunID(strings.TrimPrefix(m[1], "/runs/"))
		if err != nil {
			t.Fatal(err)
		}
		run, err := f.store.Run(f.ctx, id)
		if err != nil || run.Outcome == store.OutcomeUp || run.ServerID != f.servers[tc.name].ID {
			t.Errorf("%s: last error links to %+v, %v", tc.name, run, err)
		}
	}
	// weather-tools' last failure is the latest down run there is.
	var latestDown time.Time
	if err := f.pool.QueryRow(f.ctx, `SELECT max(started_at) FROM runs WHERE server_id = $1 AND outcome <> 'up'`,
		f.servers["weather-tools"].ID).Scan(&latestDown); err != nil {
		t.Fatal(err)
	}
	if row := rowOf(t, page, "weather-tools"); !strings.Contains(row, `title="`+formatTime(latestDown)+`"`) {
		t.Errorf("weather-tools' last error is not its latest failed run (%v)", latestDown)
	}
	if strings.Contains(rowOf(t, page, "archive-reader"), "last-error") {
		t.Error("archive-reader never failed but shows a last error")
	}
}

func testServerPage(t *testing.T, f *fleet) {
	page := f.mustGet(t, "/servers/github-bridge")
	for _, want := range []string{
		`<h1>github-bridge</h1>`,
		`<span class="pill degraded"`,
		`class="chart wide"><svg`, `<path class="line" d="M`, // the latency chart draws lines
		`eu p50`, `us p95`,
		`<code>lifecycle.unknown-method</code>`, // the failing check, with its evidence and rule
		`expected error -32601, got JSON-RPC error -32603`, `rule B`,
		`href="https://www.jsonrpc.org/specification#error_object"`, // -32601 is JSON-RPC 2.0's (§5.1)
		`<code>echo</code>`, `<code>word_count</code>`, // the tools of the latest run
		`removed summarize`, `changed echo (description)`, // the drift of three hours ago, diffed
		`13 tools → 14 tools`, // the drift of two days ago, its previous recording gone
		`Maintenance window weekly deploy in force: nothing is sent yet`,             // its open alert, held back
		`<span class="out degraded">Degraded</span>`, `<code>JSON-RPC -32603</code>`, // the run history
	} {
		if !strings.Contains(page, want) {
			t.Errorf("server page lacks %q", want)
		}
	}
	// The summary tiles name every window.
	for _, w := range []string{"24 h", "7 d", "30 d", "90 d"} {
		if !strings.Contains(page, `<span class="label">Uptime `+w+`</span>`) {
			t.Errorf("no uptime tile for %s", w)
		}
	}
	for _, window := range []string{"7d", "30d", "90d"} {
		p := f.mustGet(t, "/servers/github-bridge?window="+window)
		if !strings.Contains(p, `aria-current="page">`+windowLabel(window)+`<`) || !strings.Contains(p, `<path class="line" d="M`) {
			t.Errorf("window %s: chart not drawn or tab not current", window)
		}
	}
	// A name that needs escaping in a URL and in HTML. No source registers one any more
	// (store.CheckServerName), but a row stored before names had rules is still shown.
	const oddName = `team/<b>odd</b> server`
	if _, err := f.pool.Exec(f.ctx, `INSERT INTO servers (name, source, transport, url, schedule, timeout_ms)
		VALUES ($1, 'config', 'http', 'https://odd.example.com/mcp?api_key=s3cret', '@every 1m', 1000)`, oddName); err != nil {
		t.Fatal(err)
	}
	p := f.mustGet(t, serverHref(oddName))
	if strings.Contains(p, "<b>odd</b>") || !strings.Contains(p, "&lt;b&gt;odd&lt;/b&gt;") {
		t.Error("server name not escaped")
	}
	if strings.Contains(p, "s3cret") {
		t.Error("a credential in the URL is shown")
	}
	if status := f.mustGet(t, "/"); strings.Contains(status, "<b>odd</b>") || strings.Contains(status, "s3cret") {
		t.Error("status page shows the raw name or the credential")
	}
}

func testRunPaging(t *testing.T, f *fleet) {
	runLink := regexp.MustCompile(`<td data-label="Started" class="nowrap"><div><a href="(/runs/[^"]+)"`)
	next := regexp.MustCompile(`<a href="([^"]+)">Older runs →</a>`)
	path := "/servers/search-index?region=us"
	seen := map[string]bool{}
	var last string
	for page := 0; page < 3; page++ {
		body := f.mustGet(t, path)
		links := runLink.FindAllStringSubmatch(body, -1)
		if len(links) != runsPerPage {
			t.Fatalf("page %d has %d runs, want %d", page, len(links), runsPerPage)
		}
		for _, l := range links {
			if seen[l[1]] {
				t.Fatalf("run %s listed twice", l[1])
			}
			seen[l[1]] = true
			last = l[1]
		}
		if strings.Contains(body, `<td data-label="Region"><div>eu</div></td>`) {
			t.Error("region filter let an eu run through")
		}
		m := next.FindStringSubmatch(body)
		if m == nil {
			t.Fatalf("page %d has no link to older runs", page)
		}
		// A browser does not send the fragment (#runs).
		path, _, _ = strings.Cut(strings.ReplaceAll(m[1], "&amp;", "&"), "#")
	}
	// Newest first: the last run listed is older than the newest.
	id, _ := store.ParseRunID(strings.TrimPrefix(last, "/runs/"))
	run, err := f.store.Run(f.ctx, id)
	if err != nil || f.now.Sub(run.Start) < 3*runsPerPage*10*time.Minute-time.Hour {
		t.Errorf("third page ends at %v (%v): not older runs", run.Start, err)
	}
	body := f.mustGet(t, "/servers/billing-api?outcome=down")
	if strings.Contains(body, `class="out up"`) || !strings.Contains(body, `class="out down"`) {
		t.Error("outcome filter does not filter")
	}
}

func testAlerts(t *testing.T, f *fleet) {
	id := f.servers["billing-api"].ID
	at := f.now.Add(-40 * time.Minute)
	if _, err := f.pool.Exec(f.ctx, `INSERT INTO alert_history (server_id, server, kind, key, incident, event, at, regions, summary)
		VALUES ($1, 'billing-api', 'down', '', gen_random_uuid(), 'fired', $2, '{eu}', 'billing-api is down in eu: initialize failed with JSON-RPC -32603')`,
		id, at); err != nil {
		t.Fatal(err)
	}
	if _, err := f.pool.Exec(f.ctx, `INSERT INTO alert_state (server_id, kind, key, status, since, fired_at)
		VALUES ($1, 'down', '', 'firing', $2, $2)`, id, at); err != nil {
		t.Fatal(err)
	}
	page := f.mustGet(t, "/servers/billing-api")
	for _, want := range []string{"billing-api is down in eu: initialize failed with JSON-RPC -32603", `class="alert-banner"`, "<td>fired</td>"} {
		if !strings.Contains(page, want) {
			t.Errorf("alerts: page lacks %q", want)
		}
	}
}

func testRunPage(t *testing.T, f *fleet) {
	var id store.RunID
	if err := f.pool.QueryRow(f.ctx, `SELECT id FROM runs WHERE server_id = $1 ORDER BY started_at DESC LIMIT 1`,
		f.servers["github-bridge"].ID).Scan(&id); err != nil {
		t.Fatal(err)
	}
	run, err := f.store.Run(f.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	page := f.mustGet(t, runHref(id))
	for _, want := range []string{
		// Both times, each saying what it is.
		"<dt>Answer time</dt><dd>" + formatLatency(run.AnswerTime) + ` <span class="muted">initialize`,
		"<dt>Whole probe</dt><dd>" + formatDuration(run.Duration) + ` <span class="muted">every request`,
		"MCP conformance report", `<span class="a1 a31">FAIL</span>`, "lifecycle.unknown-method",
		`[frames <a href="#frame-`, "Steps", `<h2>Transcript`, `id="frame-0"`, `POST http://127.0.0.1:`,
		`&#34;jsonrpc&#34;: &#34;2.0&#34;`, // an indented JSON frame
		`Authorization: [redacted]`,        // never a header value of the server's configuration
	} {
		if !strings.Contains(page, want) && !(want == `Authorization: [redacted]` && !strings.Contains(page, "Authorization")) {
			t.Errorf("run page lacks %q", want)
		}
	}
	res, err := f.store.Transcript(f.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	frames := strings.Count(page, `<li class="frame `)
	if frames == 0 || !strings.Contains(string(res), fmt.Sprintf(`"seq":%d`, frames-1)) || strings.Contains(string(res), fmt.Sprintf(`"seq":%d,`, frames)) {
		t.Errorf("%d frames shown; the recording has a different number", frames)
	}
}

func testRunWithoutRecording(t *testing.T, f *fleet) {
	// A passing run says why it has no transcript: the default policy keeps none for it.
	for _, outcome := range []string{store.OutcomeUp, store.OutcomeDown} {
		var id store.RunID
		if err := f.pool.QueryRow(f.ctx, `SELECT r.id FROM runs r WHERE r.outcome = $1
			AND NOT EXISTS (SELECT 1 FROM run_transcripts t WHERE t.run_id = r.id) ORDER BY started_at DESC LIMIT 1`,
			outcome).Scan(&id); err != nil {
			t.Fatalf("a %s run without a transcript: %v", outcome, err)
		}
		page := f.mustGet(t, runHref(id))
		says := "recording is not stored"
		if outcome == store.OutcomeUp {
			says = "Transcript not kept (passing run; kept for failing runs and changes of outcome)"
		}
		if !strings.Contains(page, says) || strings.Contains(page, "<h2>Transcript") {
			t.Errorf("%s run without recording, want %q: %s", outcome, says, clipForLog(page))
		}
	}
}

func testBadRequests(t *testing.T, f *fleet) {
	for _, tc := range []struct {
		path string
		code int
		says string
	}{
		{"/servers/no-such-server", http.StatusNotFound, "No server named"},
		{"/runs/not-a-run", http.StatusNotFound, "is not a run id"},
		{"/runs/" + store.NewRunID(time.Now()).String(), http.StatusNotFound, "There is no run"},
		{"/?state=sideways", http.StatusBadRequest, "There is no state"},
		{"/?page=0", http.StatusBadRequest, "is not a page number"},
		{"/?page=x", http.StatusBadRequest, "is not a page number"},
		{"/?page=9", http.StatusNotFound, "There are only"},
		{"/servers/github-bridge?window=1y", http.StatusBadRequest, "There is no chart window"},
		{"/servers/github-bridge?outcome=sideways", http.StatusBadRequest, "there is no outcome"},
		{"/servers/github-bridge?after=%21%21", http.StatusBadRequest, "the page link is damaged"},
		{"/nothing/here", http.StatusNotFound, "There is no page at /nothing/here"},
		{"/static/nothing.css", http.StatusNotFound, ""},
	} {
		code, body, _ := f.get(t, tc.path)
		if code != tc.code || !strings.Contains(body, tc.says) {
			t.Errorf("GET %s = %d, want %d saying %q\n%s", tc.path, code, tc.code, tc.says, clipForLog(body))
		}
	}
}

func testFragmentAndAssets(t *testing.T, f *fleet) {
	code, body, hdr := f.get(t, "/?fragment=live")
	if code != http.StatusOK || strings.Contains(body, "<html") || !strings.Contains(body, `class="hero`) {
		t.Errorf("fragment: %d %s", code, clipForLog(body))
	}
	if hdr.Get("Cache-Control") != "no-cache" || !strings.Contains(hdr.Get("Content-Security-Policy"), "script-src 'self'") {
		t.Errorf("headers %v", hdr)
	}
	page := f.mustGet(t, "/")
	m := regexp.MustCompile(`href="(/static/style\.css\?v=[0-9a-f]+)"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no stylesheet link")
	}
	code, css, hdr := f.get(t, m[1])
	if code != http.StatusOK || !strings.Contains(css, "prefers-color-scheme: dark") || !strings.Contains(hdr.Get("Cache-Control"), "immutable") {
		t.Errorf("stylesheet: %d %v", code, hdr)
	}
	if !strings.Contains(page, `<script src="/static/live.js?v=`) || !strings.Contains(page, `<noscript><meta http-equiv="refresh"`) {
		t.Error("status page does not refresh itself")
	}
	req := httptestRequest("/static/style.css", hdr.Get("ETag"))
	rec := serve(f.handler, req)
	if rec.Code != http.StatusNotModified {
		t.Errorf("conditional asset request = %d, want 304", rec.Code)
	}
}
