package alert

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/testkit/syncbuf"

	"github.com/mcpwatch/mcpwatch/alert/alerttest"
	"github.com/mcpwatch/mcpwatch/internal/testkit/pgtest"
	"github.com/mcpwatch/mcpwatch/store"
)

// incidentOf reads the incident and event of a generic webhook body.
func incidentOf(t *testing.T, body string) (incident, event string) {
	t.Helper()
	var b WebhookBody
	if err := json.Unmarshal([]byte(body), &b); err != nil {
		t.Fatalf("body %s: %v", body, err)
	}
	return b.Incident, b.Event
}

func TestRestartInTheMiddleOfAnIncident(t *testing.T) {
	t.Parallel()
	cfg := func(f *alerttest.Slack) Config {
		return config(only(KindDown), fastDelivery, func(c *Config) { c.Channels = []ChannelConfig{genericChannel()} })
	}
	t.Run("an announced incident is neither paged again nor forgotten", func(t *testing.T) {
		t.Parallel()
		db, _ := pgtest.Migrated(t)
		f := alerttest.NewSlack(t)
		first := startProcess(t, db, cfg(f), f, &syncbuf.Buffer{}, "w1")
		stop := first.run(t)
		observeAll(t, first.engine, obs(0, "eu", down), obs(1*m, "eu", down))
		f.WaitFor(t, 1, 30*time.Second)
		stop()

		second := startProcess(t, db, cfg(f), f, &syncbuf.Buffer{}, "w2")
		observeAll(t, second.engine, obs(2*m, "eu", down), obs(3*m, "eu", down), obs(4*m, "eu", down))
		if n, err := second.disp.DispatchOnce(testContext(t)); n != 0 || err != nil {
			t.Fatalf("after the restart DispatchOnce = %d, %v; want nothing to send", n, err)
		}
		open, err := second.store.OpenAlerts(testContext(t), 7)
		if err != nil || len(open) != 1 || open[0].Kind != "down" || open[0].NotifiedAt.IsZero() {
			t.Fatalf("open alerts %+v, %v; want the announced down alert", open, err)
		}
		observeAll(t, second.engine, obs(5*m, "eu", up))
		if n, err := second.disp.DispatchOnce(testContext(t)); n != 1 || err != nil {
			t.Fatalf("DispatchOnce = %d, %v; want the resolution", n, err)
		}
		reqs := f.Requests()
		if len(reqs) != 2 {
			t.Fatalf("%d messages, want 2 (firing, resolved)", len(reqs))
		}
		inc1, ev1 := incidentOf(t, reqs[0].Body)
		inc2, ev2 := incidentOf(t, reqs[1].Body)
		if ev1 != EventFiring || ev2 != EventResolved || inc1 != inc2 {
			t.Errorf("messages %s %s then %s %s; want firing then resolved of one incident", ev1, inc1, ev2, inc2)
		}
		history, err := second.store.AlertHistory(testContext(t), store.AlertHistoryQuery{ServerID: 7})
		if err != nil || len(history) != 2 || history[0].Event != "resolved" || history[1].Event != "fired" ||
			history[0].Sent != 1 || history[1].Sent != 1 {
			t.Errorf("history %+v, %v", history, err)
		}
	})
	t.Run("a notification that never got out is sent once after the restart", func(t *testing.T) {
		t.Parallel()
		db, _ := pgtest.Migrated(t)
		f := alerttest.NewSlack(t)
		f.Answer(alerttest.GenericPath, alerttest.Answer{Status: http.StatusBadGateway})
		first := startProcess(t, db, cfg(f), f, &syncbuf.Buffer{}, "w1")
		observeAll(t, first.engine, obs(0, "eu", down), obs(1*m, "eu", down))
		if n, _ := first.disp.DispatchOnce(testContext(t)); n != 1 {
			t.Fatalf("first attempt claimed %d", n)
		}
		// The process dies here, with the firing unsent.
		second := startProcess(t, db, cfg(f), f, &syncbuf.Buffer{}, "w2")
		second.run(t)
		f.WaitFor(t, 2, 30*time.Second)
		observeAll(t, second.engine, obs(2*m, "eu", down), obs(3*m, "eu", up))
		reqs := f.WaitFor(t, 3, 30*time.Second)
		time.Sleep(200 * time.Millisecond) // a few polls: nothing more may come
		if got := len(f.Requests()); got != 3 {
			t.Fatalf("%d requests, want 3 (failed firing, firing, resolved)", got)
		}
		_, ev1 := incidentOf(t, reqs[1].Body)
		_, ev2 := incidentOf(t, reqs[2].Body)
		if ev1 != EventFiring || ev2 != EventResolved {
			t.Errorf("delivered %s then %s", ev1, ev2)
		}
	})
	t.Run("a dispatcher killed mid-send gives its notifications back when its lease ends", func(t *testing.T) {
		t.Parallel()
		db, _ := pgtest.Migrated(t)
		f := alerttest.NewSlack(t)
		first := startProcess(t, db, cfg(f), f, &syncbuf.Buffer{}, "w1")
		second := startProcess(t, db, cfg(f), f, &syncbuf.Buffer{}, "w2")
		observeAll(t, first.engine, obs(0, "eu", down), obs(1*m, "eu", down))
		claimed, err := first.store.ClaimNotifications(testContext(t), "w1", 10, 2*time.Second)
		if err != nil || len(claimed) != 1 {
			t.Fatalf("claim = %d, %v", len(claimed), err)
		}
		if n, _ := second.disp.DispatchOnce(testContext(t)); n != 0 {
			t.Fatalf("a leased notification was claimed by another dispatcher")
		}
		second.run(t)
		f.WaitFor(t, 1, 30*time.Second)
		// The dead dispatcher's claim can no longer settle the notification.
		if err := first.store.NotificationSent(testContext(t), claimed[0], ""); err == nil {
			t.Error("a stale claim marked the notification sent")
		}
		time.Sleep(200 * time.Millisecond)
		if got := len(f.Requests()); got != 1 {
			t.Errorf("%d messages, want 1", got)
		}
	})
}
