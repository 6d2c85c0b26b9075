package monitor

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/alert"
	"github.com/mcpwatch/mcpwatch/alert/alerttest"
	"github.com/mcpwatch/mcpwatch/internal/testkit/fixture"
	"github.com/mcpwatch/mcpwatch/store"
)

// dashboardURL stands for --dashboard-url in these tests.
const dashboardURL = "https://status.example.com"

// alertingWorker is what `prober run` runs when its file has an alerts section: a worker
// whose runs are judged by an engine, and a dispatcher, on a database pool of their own.
type alertingWorker struct {
	*runningWorker
	alerting     *Alerting
	stopAlerting context.CancelFunc
	alertingDone chan struct{}
}

func startAlertingWorker(t *testing.T, db testDB, cfg *Config, slack *alerttest.Slack, name string, trace func(Event)) *alertingWorker {
	t.Helper()
	st := openStore(t, db.URL)
	a, err := NewAlerting(st, cfg.Alerts, alert.DispatcherOptions{Worker: name, LookupEnv: slack.Env(),
		HTTPClient: slack.Server.Client(), DashboardURL: dashboardURL})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	aw := &alertingWorker{alerting: a, stopAlerting: cancel, alertingDone: make(chan struct{})}
	go func() {
		defer close(aw.alertingDone)
		a.Run(ctx)
	}()
	t.Cleanup(func() { aw.stopDispatcher(30 * time.Second) })
	aw.runningWorker = startWorker(t, st, WorkerConfig{Name: name, Region: cfg.Region, Concurrency: 2,
		MaxTimeout: 5 * time.Second, MaxJitter: -1, Alerts: a.Engine, Trace: trace})
	return aw
}

// stopDispatcher ends the dispatcher's Run and waits for it at most within; false if it did
// not return in time.
func (aw *alertingWorker) stopDispatcher(within time.Duration) bool {
	aw.stopAlerting()
	select {
	case <-aw.alertingDone:
		return true
	case <-time.After(within):
		return false
	}
}

// stop shuts the process down as SIGTERM does: the worker, then the dispatcher.
func (aw *alertingWorker) stop(t *testing.T) {
	t.Helper()
	aw.runningWorker.stop(t)
	if !aw.stopDispatcher(30 * time.Second) {
		t.Error("the dispatcher did not stop within 30s")
	}
}

// slackText reads the plain text of an incoming-webhook message (what Slack notifications
// show).
func slackText(t *testing.T, r alerttest.Request) string {
	t.Helper()
	var msg struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal([]byte(r.Body), &msg); err != nil {
		t.Fatalf("a Slack request that is not a webhook message: %s", r.Body)
	}
	return msg.Text
}

// The "done when", through the monitor: a monitored fixture server breaks, then is
// fixed, with the worker restarted while it is broken. Slack hears exactly once that it is
// down, with the evidence and a link to its dashboard page, and exactly once that it is up.
func TestAMonitoredServerThatBreaksAndIsFixedAlertsOnceEachWay(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		breakIt  func(*alerttest.Monitored)
		evidence []string // in the firing message
	}{
		{"it answers 500", func(m *alerttest.Monitored) { m.Fail(http.StatusInternalServerError) },
			[]string{"HTTP status 500", "initialize: HTTP status 500, the body of the answer is not a JSON-RPC response",
				"*The server answered*\\n```upstream unavailable```", dashboardURL + "/runs/"}},
		{"it hangs up", func(m *alerttest.Monitored) { m.HangUp() },
			[]string{"initialize: transport failure", "EOF", dashboardURL + "/runs/"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			db := newTestDB(t)
			slack := alerttest.NewSlack(t)
			mon := alerttest.NewMonitored(t)
			cfg, err := ParseConfig("mcpwatch.yaml", []byte(fmt.Sprintf(`region: eu
servers:
  - name: weather
    url: %s/mcp
    schedule: "@every 1s"
    timeout: 5s
alerts:
  # down alone: the fixture passes its checks, but on a loaded machine a slow answer can
  # fail one now and then, which would be a true alert but not this test's.
  conformance: {enabled: false}
  drift: {enabled: false}
  latency: {enabled: false}
  certificate: {enabled: false}
  delivery: {poll-interval: 50ms, min-backoff: 100ms, max-backoff: 1s}
  channels:
    - name: ops
      type: slack
      webhook-url-env: %s
`, mon.URL(), alerttest.EnvWebhookURL)))
			if err != nil {
				t.Fatal(err)
			}
			byID := syncServers(t, db.direct, cfg.Region, cfg.StoreServers())
			var serverID int64
			for id := range byID {
				serverID = id
			}
			rec := newRecorder()
			// finished counts the runs of a worker with an outcome, since a point in time.
			finished := func(worker, outcome string, since time.Time) func(*recorder) bool {
				return func(r *recorder) bool {
					n := 0
					for _, e := range r.of(EventProbeFinished) {
						if e.Worker == worker && e.Outcome == outcome && e.at.After(since) {
							n++
						}
					}
					return n >= 3
				}
			}

			first := startAlertingWorker(t, db, cfg, slack, "w1", rec.trace)
			rec.waitFor(t, time.Minute, "3 up runs", finished("w1", store.OutcomeUp, time.Time{}))
			if got := slack.Requests(); len(got) != 0 {
				t.Fatalf("%d messages about a server that is up", len(got))
			}

			tt.breakIt(mon)
			reqs := slack.WaitFor(t, 1, time.Minute)
			if text := slackText(t, reqs[0]); !strings.Contains(text, "weather is down") {
				t.Errorf("first message %q, want weather is down", text)
			}
			for _, want := range append(tt.evidence, "*Region*\\neu", "*Since*", dashboardURL+"/servers/weather") {
				if !strings.Contains(reqs[0].Body, want) {
					t.Errorf("the firing message lacks %q: %s", want, reqs[0].Body)
				}
			}
			if n := strings.Count(reqs[0].Body, "initialize: "); n != 1 {
				t.Errorf("the firing message says the error %d times, want once: %s", n, reqs[0].Body)
			}

			// A restart while the server is down: the new process knows the alert is open
			// and announced.
			first.stop(t)
			restarted := time.Now()
			second := startAlertingWorker(t, db, cfg, slack, "w2", rec.trace)
			rec.waitFor(t, time.Minute, "3 down runs after the restart", finished("w2", store.OutcomeDown, restarted))
			if got := slack.Requests(); len(got) != 1 {
				t.Fatalf("%d messages after the restart, want still 1", len(got))
			}

			mon.Serve(t, fixture.Config{})
			reqs = slack.WaitFor(t, 2, time.Minute)
			if text := slackText(t, reqs[1]); !strings.Contains(text, "Resolved: weather is up again") {
				t.Errorf("second message %q, want the resolution", text)
			}
			fixed := time.Now()
			rec.waitFor(t, time.Minute, "3 up runs after the fix", finished("w2", store.OutcomeUp, fixed))
			second.stop(t)
			if got := slack.Requests(); len(got) != 2 {
				t.Errorf("%d messages in all, want 2 (down, resolved)", len(got))
			}

			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			history, err := db.direct.AlertHistory(ctx, store.AlertHistoryQuery{ServerID: serverID})
			if err != nil {
				t.Fatal(err)
			}
			if len(history) != 2 || history[0].Event != "resolved" || history[1].Event != "fired" ||
				history[0].Incident != history[1].Incident || history[0].Sent != 1 || history[1].Sent != 1 {
				t.Errorf("history %+v, want one incident fired and resolved, each sent once", history)
			}
		})
	}
}
