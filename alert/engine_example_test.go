package alert_test

import (
	"context"
	"fmt"
	"log"
	"maps"
	"time"

	"github.com/mcpwatch/mcpwatch/alert"
	"github.com/mcpwatch/mcpwatch/store"
)

// memoryAlerts keeps the alert state of servers in memory, the way *store.Store keeps it in
// Postgres under a lock per server, and prints each alert event as it is written.
type memoryAlerts struct {
	snaps map[int64]*store.AlertSnapshot
}

func (m *memoryAlerts) UpdateAlerts(_ context.Context, serverID int64, decide func(store.AlertSnapshot) (store.AlertChanges, error)) (store.AlertChanges, error) {
	snap, ok := m.snaps[serverID]
	if !ok {
		snap = &store.AlertSnapshot{ServerID: serverID, Memory: map[string][]byte{}}
		m.snaps[serverID] = snap
	}
	changes, err := decide(*snap)
	if err != nil {
		return store.AlertChanges{}, err
	}
	maps.Copy(snap.Memory, changes.Memory)
	for _, c := range changes.States { // an upsert by kind and key
		i := 0
		for i < len(snap.States) && (snap.States[i].Kind != c.Kind || snap.States[i].Key != c.Key) {
			i++
		}
		if i == len(snap.States) {
			snap.States = append(snap.States, c)
		} else {
			snap.States[i] = c
		}
	}
	for _, e := range changes.Events {
		fmt.Printf("%s %s (%d notification)\n", e.Event, e.Kind, len(e.Outbox))
	}
	return changes, nil
}

// Observe judges runs one at a time, in order, and keeps the alert state where its
// AlertUpdater says (the monitor passes its *store.Store; here it is kept in memory): a
// server is down once Down.FailureThreshold runs in a row say so, and up again at the first
// run that reaches it. The monitor builds its observations from stored runs; here they are
// built by hand.
func ExampleEngine_Observe() {
	ctx := context.Background()
	cfg := alert.Config{Channels: []alert.ChannelConfig{{Name: "ops", Type: alert.ChannelWebhook, URL: "http://127.0.0.1:9000/hook"}}}
	cfg.Down.FailureThreshold = 2
	eng, err := alert.NewEngine(&memoryAlerts{snaps: map[int64]*store.AlertSnapshot{}}, &cfg, alert.EngineOptions{})
	if err != nil {
		log.Fatal(err)
	}
	start := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	for i, outcome := range []string{alert.OutcomeUp, alert.OutcomeDown, alert.OutcomeDown, alert.OutcomeUp} {
		obs := alert.Observation{
			ServerID: 1, Server: "weather", Region: "eu",
			At: start.Add(time.Duration(i) * time.Minute), Outcome: outcome,
		}
		if outcome == alert.OutcomeDown {
			obs.Error = "connection refused"
		}
		if err := eng.Observe(ctx, obs); err != nil {
			log.Fatal(err)
		}
	}
	// Output:
	// fired down (1 notification)
	// resolved down (1 notification)
}
