package web

import (
	"context"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/checks"
	"github.com/mcpwatch/mcpwatch/internal/testkit/fixture"
	"github.com/mcpwatch/mcpwatch/internal/testkit/pgtest"
	"github.com/mcpwatch/mcpwatch/monitor"
	"github.com/mcpwatch/mcpwatch/store"
)

// The server page of a server with calls: has a Tool calls card: each call step with its last
// latency and outcome, p50 and p95 over the window, and the call checks of the latest run;
// the runs come from the monitor's prober against the fixture, stored in PostgreSQL. A server
// without calls says the monitor calls none of its tools.
func TestTheServerPageShowsTheToolCalls(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	_, pool := pgtest.Migrated(t)
	st := store.New(pool)
	reg, err := checks.Default()
	if err != nil {
		t.Fatal(err)
	}
	serve := func(fault fixture.Fault) string {
		srv, err := fixture.New(fixture.Config{Fault: fault})
		if err != nil {
			t.Fatal(err)
		}
		ts := httptest.NewServer(srv.Handler())
		t.Cleanup(ts.Close)
		return ts.URL + "/mcp"
	}
	cfg, err := monitor.ParseConfig("mcpwatch.yaml", []byte(`servers:
  - name: caller
    url: `+serve(fixture.CallExpectationMissed)+`
    calls:
      - tool: echo
        arguments: {text: {fromEnv: ECHO_TEXT}}
        expect: {textContains: hello}
      - tool: add
        arguments: {a: 1, b: 2}
  - name: quiet
    url: `+serve("")+`
`))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.RegisterRegion(ctx, "eu"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.SyncServers(ctx, store.SourceConfig, cfg.StoreServers()); err != nil {
		t.Fatal(err)
	}
	p, err := monitor.NewProber(monitor.ProberConfig{Checks: reg, Version: "test", Transcripts: monitor.TranscriptsAll,
		LookupEnv: func(k string) (string, bool) {
			return map[string]string{"ECHO_TEXT": "hello from the environment"}[k], k == "ECHO_TEXT"
		}})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	if err := st.EnsurePartitions(ctx, now.Add(-time.Hour), now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"caller", "quiet"} {
		srv, err := st.ServerByName(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		var runs []store.RunRecord
		for range 3 {
			rec, _ := p.Probe(ctx, srv, time.Time{}, "", 20*time.Second, "eu", "w")
			runs = append(runs, rec)
		}
		if _, err := st.WriteRuns(ctx, runs); err != nil {
			t.Fatal(err)
		}
	}
	h, err := New(Deps{Store: st, Checks: reg, Now: func() time.Time { return time.Now().UTC() }, Version: "test", StatusTTL: -1})
	if err != nil {
		t.Fatal(err)
	}

	code, page, _ := get(t, h, "/servers/caller")
	if code != 200 {
		t.Fatalf("GET /servers/caller = %d", code)
	}
	card := cardOf(t, page, "calls")
	for _, want := range []string{
		"<h2>Tool calls", "<code>call:echo</code>", "<code>call:add</code>", "3 of 3 answered",
		`<span class="pill up" title="the tool answered with a result">`,
		"<code>tools.call-result</code>", "<code>tools.structured-content</code>", "<code>tools.invalid-arguments</code>",
		"<code>tools.call-expectations</code>", `<span class="badge fail">fail</span>`, // echo answers HELLO, not hello
		// A call check is shown as any finding is: with its rule and the specification's page.
		`<span class="spec">rule `, `<p class="spec">Specification: <a href="https://modelcontextprotocol.io/`,
	} {
		if !strings.Contains(card, want) {
			t.Errorf("the Tool calls card lacks %q:\n%s", want, clipForLog(card))
		}
	}
	// Every call row gives a last latency, a p50 and a p95.
	latency := regexp.MustCompile(`<td data-label="(Latency|p50|p95)" class="num">([^<]*)</td>`)
	cells := latency.FindAllStringSubmatch(card, -1)
	if len(cells) != 6 {
		t.Errorf("%d latency cells, want 3 for each of the two calls", len(cells))
	}
	for _, c := range cells {
		if c[2] == "–" || c[2] == "" {
			t.Errorf("%s is empty", c[1])
		}
	}

	_, quiet, _ := get(t, h, "/servers/quiet")
	card = cardOf(t, quiet, "calls")
	if !strings.Contains(card, "The monitor calls none of this server&#39;s tools") || strings.Contains(card, "<code>call:") {
		t.Errorf("the card of a server without calls:\n%s", clipForLog(card))
	}
	if !strings.Contains(card, `<span class="badge skip">skip</span>`) {
		t.Errorf("the call checks of a server without calls are not shown skipped:\n%s", clipForLog(card))
	}
}

// cardOf cuts the card of the given id out of a page.
func cardOf(t *testing.T, page, id string) string {
	t.Helper()
	_, after, ok := strings.Cut(page, `<section class="card" id="`+id+`">`)
	if !ok {
		t.Fatalf("no card %s on the page", id)
	}
	card, _, _ := strings.Cut(after, "</section>")
	return card
}
