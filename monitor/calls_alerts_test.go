package monitor

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/alert"
	"github.com/mcpwatch/mcpwatch/alert/alerttest"
	"github.com/mcpwatch/mcpwatch/internal/testkit/fixture"
	"github.com/mcpwatch/mcpwatch/store"
)

// The alerts the monitor already has watch the calls like everything else: a call step named
// in latency.steps opens a latency alert when the call is slow, and a call check that passed
// and fails now opens a conformance alert, with no path of their own. The runs are the
// monitor prober's against the fixture, judged by the engine on the store.
func TestTheLatencyAndConformanceAlertsWatchCallStepsAndCallChecks(t *testing.T) {
	t.Parallel()
	db := newTestDB(t)
	mon := alerttest.NewMonitored(t)
	cfg, err := ParseConfig("mcpwatch.yaml", []byte(`servers:
  - name: weather
    url: `+mon.URL()+`/mcp
    calls:
      - tool: echo
        arguments: {text: hello}
        expect: {textContains: hello}
alerts:
  down: {enabled: false}
  drift: {enabled: false}
  certificate: {enabled: false}
  conformance: {checks: ["tools.*"]}
  # Any answer is slower than a nanosecond: three of the last five calls of echo above the
  # bound open the alert, as a slow tool would.
  latency: {steps: ["call:echo"], p95-above: 1ns, baseline-ratio: 0}
  channels:
    - name: ops
      type: slack
      webhook-url-env: `+alerttest.EnvWebhookURL+`
`))
	if err != nil {
		t.Fatal(err)
	}
	byID := syncServers(t, db.direct, "eu", cfg.StoreServers())
	var srv store.Server
	for _, s := range byID {
		srv = s
	}
	eng, err := alert.NewEngine(db.direct, cfg.Alerts, alert.EngineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := testProberWith(t, nil, ProberConfig{Transcripts: TranscriptsNone, RuleProbes: 24 * time.Hour})
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	probeOnce := func() store.RunRecord {
		t.Helper()
		rec, obs := p.Probe(ctx, srv, time.Time{}, "", 10*time.Second, "eu", "w")
		if err := eng.Observe(ctx, obs); err != nil {
			t.Fatal(err)
		}
		return rec
	}
	open := func() []string {
		t.Helper()
		alerts, err := db.direct.OpenAlertsWithLast(ctx, srv.ID)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, a := range alerts {
			out = append(out, a.Kind+" "+a.Key)
		}
		slices.Sort(out)
		return out
	}

	for range 5 {
		rec := probeOnce()
		if f := findingOf(rec, "tools.call-expectations"); f.Status != "pass" {
			t.Fatalf("tools.call-expectations %s %q on the conformant fixture", f.Status, f.Message)
		}
	}
	if got := open(); !slices.Equal(got, []string{"latency call:echo"}) {
		t.Errorf("open alerts after five slow calls: %q, want the latency of call:echo", got)
	}

	// echo now answers in upper case, which the expectation does not allow.
	mon.Serve(t, fixture.Config{Fault: fixture.CallExpectationMissed})
	rec := probeOnce()
	if f := findingOf(rec, "tools.call-expectations"); f.Status != "fail" {
		t.Fatalf("tools.call-expectations %s %q, want fail", f.Status, f.Message)
	}
	if got := open(); !slices.Contains(got, "conformance tools.call-expectations") {
		t.Errorf("open alerts after the call check failed: %q, want the conformance of tools.call-expectations", got)
	}
}
