package dashseed

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcpwatch/mcpwatch/alert"
	"github.com/mcpwatch/mcpwatch/store"
)

// Demo alert incidents: fixed, so that a seeding is the same every time.
const (
	incidentFlapping    = "5d0c1a52-7a3e-4f0e-9f59-0e4b7f1a6c01"
	incidentCertificate = "5d0c1a52-7a3e-4f0e-9f59-0e4b7f1a6c02"
	incidentMaintenance = "5d0c1a52-7a3e-4f0e-9f59-0e4b7f1a6c03"
)

// MaintenanceWindow is the name of the demo's maintenance window.
const MaintenanceWindow = "weekly deploy"

// SeedAlerts writes the open alerts of the demo fleet as the alert engine leaves them:
//
//   - weather-tools (up) has its down alert held open while flapping, its condition good
//     again since twenty minutes ago;
//   - search-index has a certificate expiring in six days;
//   - github-bridge's failing check opened inside a maintenance window and is not announced.
//
// servers are the fleet's servers by name, as Seed returns them.
func SeedAlerts(ctx context.Context, s *store.Store, now time.Time, servers map[string]store.Server) error {
	ago := func(d time.Duration) time.Time { return now.Add(-d) }
	for _, a := range []struct {
		server string
		state  store.AlertState
		ev     alert.Evidence
		event  string
		muted  string
	}{
		{
			server: "weather-tools",
			state: store.AlertState{Kind: string(alert.KindDown), Incident: incidentFlapping, Since: ago(3 * time.Hour),
				FiredAt: ago(3 * time.Hour), NotifiedAt: ago(50 * time.Minute), Held: true,
				Cycles: []time.Time{ago(2 * time.Hour), ago(70 * time.Minute), ago(20 * time.Minute)}},
			ev:    alert.Evidence{Summary: "down in 1 of 2 region(s) (eu): JSON-RPC error -32603", Regions: []string{"eu"}},
			event: "flapping",
		},
		{
			server: "search-index",
			state: store.AlertState{Kind: string(alert.KindCertificate), Incident: incidentCertificate, Since: ago(26 * time.Hour),
				FiredAt: ago(26 * time.Hour), NotifiedAt: ago(26 * time.Hour), CondBad: true},
			ev:    alert.Evidence{Summary: fmt.Sprintf("the TLS certificate expires in 6 days (%s)", now.Add(6*24*time.Hour).UTC().Format("2006-01-02 15:04 UTC"))},
			event: "fired",
		},
		{
			server: "github-bridge",
			state: store.AlertState{Kind: string(alert.KindConformance), Key: "lifecycle.unknown-method", Incident: incidentMaintenance,
				Since: ago(3 * time.Hour), FiredAt: ago(3 * time.Hour), CondBad: true},
			ev:    alert.Evidence{Summary: "fails check lifecycle.unknown-method: expected error -32601, got JSON-RPC -32603"},
			event: "fired", muted: "maintenance window " + MaintenanceWindow,
		},
	} {
		srv, ok := servers[a.server]
		if !ok {
			return fmt.Errorf("dashseed: alerts: no server %s in the fleet", a.server)
		}
		st := a.state
		st.ServerID, st.Status = srv.ID, store.AlertFiring
		a.ev.Since = st.Since
		details, err := json.Marshal(a.ev)
		if err != nil {
			return fmt.Errorf("dashseed: alerts: %w", err)
		}
		st.Details = details
		at := st.FiredAt
		if st.Held {
			at = st.NotifiedAt
		}
		ev := store.AlertEvent{ServerID: srv.ID, Server: srv.Name, Kind: st.Kind, Key: st.Key, Incident: st.Incident,
			Event: a.event, At: at, Regions: a.ev.Regions, Summary: a.ev.Summary, Details: details, Muted: a.muted}
		if _, err := s.UpdateAlerts(ctx, srv.ID, func(store.AlertSnapshot) (store.AlertChanges, error) {
			return store.AlertChanges{States: []store.AlertState{st}, Events: []store.AlertEvent{ev}}, nil
		}); err != nil {
			return fmt.Errorf("dashseed: alerts of %s: %w", srv.Name, err)
		}
	}
	return nil
}
