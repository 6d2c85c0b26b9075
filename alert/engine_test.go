package alert

import (
	"context"
	"errors"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/testkit/pgtest"
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

// fakeAlerts keeps one server's alert state in memory, as the store does under its lock, or
// fails every update with err.
type fakeAlerts struct {
	snap    store.AlertSnapshot
	err     error
	updates int
}

func (f *fakeAlerts) UpdateAlerts(_ context.Context, serverID int64, decide func(store.AlertSnapshot) (store.AlertChanges, error)) (store.AlertChanges, error) {
	f.updates++
	if f.err != nil {
		return store.AlertChanges{}, f.err
	}
	f.snap.ServerID = serverID
	changes, err := decide(f.snap)
	if err != nil {
		return store.AlertChanges{}, err
	}
	maps.Copy(f.snap.Memory, changes.Memory)
	f.snap.States = changes.States
	return changes, nil
}

var _ AlertUpdater = (*fakeAlerts)(nil)

// Observe wakes the dispatcher only when the run queued notifications, and an observation
// it cannot judge never reaches the store.
func TestObserveWakesTheDispatcherOnlyForNotifications(t *testing.T) {
	t.Parallel()
	lost := errors.New("connection lost")
	tests := []struct {
		name        string
		storeErr    error
		run         Observation
		wantErr     error
		wantUpdates int
		wantWakes   int
	}{
		{"a failure that fires pages", nil, obs(0, "eu", down), nil, 1, 1},
		{"a run that changes nothing wakes no one", nil, obs(0, "eu", up), nil, 1, 0},
		{"the store's failure is the error", lost, obs(0, "eu", down), lost, 1, 0},
		{"an invalid observation is refused before the store", nil, obs(0, "", down), ErrInvalidObservation, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := config(only(KindDown), func(c *Config) {
				c.Channels = []ChannelConfig{{Name: "ops", Type: ChannelWebhook, URL: "http://127.0.0.1:1/"}}
				c.Down.FailureThreshold = 1
			})
			st := &fakeAlerts{snap: store.AlertSnapshot{Memory: map[string][]byte{}}, err: tt.storeErr}
			wakes := 0
			eng, err := NewEngine(st, &cfg, EngineOptions{OnNotify: func() { wakes++ }})
			if err != nil {
				t.Fatal(err)
			}
			err = eng.Observe(testContext(t), tt.run)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Errorf("Observe = %v, want %v", err, tt.wantErr)
			}
			if st.updates != tt.wantUpdates || wakes != tt.wantWakes {
				t.Errorf("%d updates and %d wakes, want %d and %d", st.updates, wakes, tt.wantUpdates, tt.wantWakes)
			}
		})
	}
}
