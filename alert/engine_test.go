package alert

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/pgtest"
	"github.com/mcpwatch/mcpwatch/internal/toolsurface"
	"github.com/mcpwatch/mcpwatch/store"
)

// A probed server controls tool descriptions, check messages and error texts; whatever they
// hold, the alert state must stay writable (jsonb refuses NUL and invalid UTF-8).
func TestObserveStoresWhateverAServerSays(t *testing.T) {
	t.Parallel()
	db, _ := pgtest.Migrated(t)
	st := store.New(db.Pool(t))
	cfg := config(func(c *Config) {
		c.Channels = []ChannelConfig{{Name: "ops", Type: ChannelWebhook, URL: "http://127.0.0.1:1/"}}
		c.Down.FailureThreshold = 1
	})
	eng, err := NewEngine(st, &cfg, EngineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	hostile := "bad\x00text \xff\xfe " + strings.Repeat("long ", 10_000)
	o := withChecks(obs(0, "eu", up), "lifecycle.ping", "pass")
	o.Tools = toolsurface.NewSurface([]toolsurface.Entry{{Name: "t\x00", Description: hostile}})
	observeAll(t, eng, o)

	o = obs(time.Minute, "eu", degraded)
	o.Checks = []CheckResult{{ID: "lifecycle.ping", Status: CheckFail, Message: hostile, Rule: "x\x00"}}
	o.Tools = toolsurface.NewSurface([]toolsurface.Entry{{Name: "t\x00", Description: hostile + "!"}, {Name: "\xff", Description: hostile}})
	o.Certificate = &Certificate{Subject: "CN=\x00", NotAfter: t0}
	observeAll(t, eng, o)

	o = obs(2*time.Minute, "eu", down)
	o.Error = hostile
	observeAll(t, eng, o)

	history, err := st.AlertHistory(testContext(t), store.AlertHistoryQuery{ServerID: 7})
	if err != nil {
		t.Fatal(err)
	}
	var events []string
	for _, h := range history {
		events = append(events, h.Event+" "+h.Kind)
	}
	if got := strings.Join(events, ", "); got != "fired down, fired certificate, fired drift, fired conformance" {
		t.Errorf("history %s", got)
	}
}
