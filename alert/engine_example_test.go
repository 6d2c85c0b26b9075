package alert_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/mcpwatch/mcpwatch/alert"
	"github.com/mcpwatch/mcpwatch/store"
)

// Observe judges runs one at a time, in order, and keeps the alert state in Postgres: a
// server is down once Down.FailureThreshold runs in a row say so, and up again at the first
// run that reaches it. The monitor builds its observations from stored runs; here they are
// built by hand. Against a migrated database (MCPWATCH_DATABASE_URL) it prints the alert
// history, newest first: "resolved down", then "fired down". It needs that database, so
// go test compiles it without running it (the engine's tests run on pgtest schemas).
func ExampleEngine_Observe() {
	ctx := context.Background()
	st, err := store.Open(ctx, os.Getenv("MCPWATCH_DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()
	server, err := st.UpsertServer(ctx, store.Server{
		Name: "weather", Source: store.SourceConfig, Transport: "http", URL: "http://127.0.0.1:8931/mcp",
		Schedule: "@every 1m", Timeout: 30 * time.Second, Enabled: true,
	})
	if err != nil {
		log.Fatal(err)
	}

	cfg := alert.Config{Channels: []alert.ChannelConfig{{Name: "ops", Type: alert.ChannelWebhook, URL: "http://127.0.0.1:9000/hook"}}}
	cfg.Down.FailureThreshold = 2
	eng, err := alert.NewEngine(st, &cfg, alert.EngineOptions{})
	if err != nil {
		log.Fatal(err)
	}
	start := time.Now().Add(-time.Hour)
	for i, outcome := range []string{alert.OutcomeUp, alert.OutcomeDown, alert.OutcomeDown, alert.OutcomeUp} {
		obs := alert.Observation{
			ServerID: server.ID, Server: server.Name, Region: "eu",
			At: start.Add(time.Duration(i) * time.Minute), Outcome: outcome,
		}
		if outcome == alert.OutcomeDown {
			obs.Error = "connection refused"
		}
		if err := eng.Observe(ctx, obs); err != nil {
			log.Fatal(err)
		}
	}

	history, err := st.AlertHistory(ctx, store.AlertHistoryQuery{ServerID: server.ID})
	if err != nil {
		log.Fatal(err)
	}
	for _, h := range history { // newest first
		fmt.Println(h.Event, h.Kind)
	}
}
