package store

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestUpdateAlertsRoundTripsStateMemoryAndHistory(t *testing.T) {
	t.Parallel()
	s, ctx := newTestStore(t)
	at := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	const incident = "0f6d3c9e-8a47-4d2b-9d53-4c3f0e1b2a77"
	_, err := s.UpdateAlerts(ctx, 7, func(snap AlertSnapshot) (AlertChanges, error) {
		if len(snap.Memory) != 0 || len(snap.States) != 0 {
			t.Errorf("fresh server has %+v", snap)
		}
		return AlertChanges{
			Memory: map[string][]byte{"regions": []byte(`{"eu":{"downs":2}}`)},
			States: []AlertState{{ServerID: 7, Kind: "down", Status: AlertFiring, Incident: incident, Since: at,
				FiredAt: at, NotifiedAt: at, CondBad: true, Cycles: []time.Time{at.Add(-time.Hour)}, Details: []byte(`{"summary":"down"}`)}},
			Events: []AlertEvent{{ServerID: 7, Server: "weather", Kind: "down", Incident: incident, Event: "fired", At: at,
				Regions: []string{"eu"}, Summary: "down", Outbox: []OutboxItem{
					{Channel: "ops", Payload: []byte(`{"n":1}`)}, {Channel: "bot", Target: "#x", Payload: []byte(`{"n":2}`)}}}},
		}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var got AlertSnapshot
	if _, err := s.UpdateAlerts(ctx, 7, func(snap AlertSnapshot) (AlertChanges, error) {
		got = snap
		return AlertChanges{}, nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(got.States) != 1 || string(got.Memory["regions"]) != `{"eu": {"downs": 2}}` {
		t.Fatalf("snapshot %+v, memory %s", got.States, got.Memory["regions"])
	}
	st := got.States[0]
	if st.Status != AlertFiring || st.Incident != incident || !st.Since.Equal(at) || !st.NotifiedAt.Equal(at) ||
		!st.ResolvedAt.IsZero() || !st.CondBad || len(st.Cycles) != 1 || !st.Cycles[0].Equal(at.Add(-time.Hour)) {
		t.Errorf("state %+v", st)
	}

	claimed, err := s.ClaimNotifications(ctx, "w", 10, time.Minute)
	if err != nil || len(claimed) != 2 || claimed[1].Target != "#x" || claimed[0].Attempts != 1 {
		t.Fatalf("claimed %+v, %v", claimed, err)
	}
	if err := s.NotificationSent(ctx, claimed[0], "C1 123.4"); err != nil {
		t.Fatal(err)
	}
	if err := s.NotificationSent(ctx, claimed[0], ""); !errors.Is(err, ErrLeaseLost) {
		t.Errorf("settling twice: %v, want ErrLeaseLost", err)
	}
	if err := s.NotificationFailed(ctx, claimed[1], time.Now().Add(-time.Second), "HTTP status 500", false); err != nil {
		t.Fatal(err)
	}
	again, err := s.ClaimNotifications(ctx, "w", 10, time.Minute)
	if err != nil || len(again) != 1 || again[0].ID != claimed[1].ID || again[0].Attempts != 2 || again[0].Seq != claimed[1].Seq+1 {
		t.Fatalf("reclaimed %+v, %v", again, err)
	}

	history, err := s.AlertHistory(ctx, AlertHistoryQuery{})
	if err != nil || len(history) != 1 || history[0].Sent != 1 || history[0].Pending != 1 || history[0].Summary != "down" {
		t.Fatalf("history %+v, %v", history, err)
	}
	// History with a pending notification, or of an open incident, is kept.
	if n, err := s.DeleteAlertHistoryBefore(ctx, at.Add(time.Hour)); err != nil || n != 0 {
		t.Errorf("deleted %d, %v; want none", n, err)
	}
	if err := s.NotificationSent(ctx, again[0], ""); err != nil {
		t.Fatal(err)
	}
	if _, err := s.UpdateAlerts(ctx, 7, func(snap AlertSnapshot) (AlertChanges, error) {
		st := snap.States[0]
		st.Status = AlertOK
		return AlertChanges{States: []AlertState{st}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	if n, err := s.DeleteAlertHistoryBefore(ctx, at.Add(time.Hour)); err != nil || n != 1 {
		t.Errorf("deleted %d, %v; want the closed incident's transition", n, err)
	}
	var left int
	if err := s.Pool().QueryRow(ctx, `SELECT count(*) FROM alert_outbox`).Scan(&left); err != nil || left != 0 {
		t.Errorf("%d notifications left, %v", left, err)
	}
}

func TestOpenAlertsWithLastNameTheIncidentsLatestTransition(t *testing.T) {
	t.Parallel()
	s, ctx := newTestStore(t)
	at := time.Date(2026, 3, 2, 2, 5, 0, 0, time.UTC)
	const held, fresh, closed = "11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222", "33333333-3333-4333-8333-333333333333"
	write := func(server int64, c AlertChanges) {
		t.Helper()
		if _, err := s.UpdateAlerts(ctx, server, func(AlertSnapshot) (AlertChanges, error) { return c, nil }); err != nil {
			t.Fatal(err)
		}
	}
	// Server 7: a down alert opened in a maintenance window (not announced), then a region
	// changed, still muted; and a resolved certificate alert, which is not open.
	write(7, AlertChanges{
		States: []AlertState{
			{ServerID: 7, Kind: "down", Status: AlertFiring, Incident: held, Since: at, FiredAt: at, CondBad: true},
			{ServerID: 7, Kind: "certificate", Status: AlertOK, Incident: closed, Since: at, FiredAt: at, ResolvedAt: at},
		},
		Events: []AlertEvent{
			{ServerID: 7, Server: "weather", Kind: "down", Incident: held, Event: "fired", At: at, Muted: "maintenance window deploy"},
			{ServerID: 7, Server: "weather", Kind: "down", Incident: held, Event: "changed", At: at.Add(time.Minute), Muted: "maintenance window deploy"},
		},
	})
	// Server 8: a conformance alert whose history is gone.
	write(8, AlertChanges{States: []AlertState{{ServerID: 8, Kind: "conformance", Key: "lifecycle.initialize", Status: AlertFiring,
		Incident: fresh, Since: at, FiredAt: at, NotifiedAt: at, Held: true, Cycles: []time.Time{at.Add(time.Hour)}}}})

	for _, tc := range []struct {
		server int64
		want   []string // kind/key event muted
	}{
		{0, []string{"down/ changed maintenance window deploy", "conformance/lifecycle.initialize  "}},
		{7, []string{"down/ changed maintenance window deploy"}},
		{8, []string{"conformance/lifecycle.initialize  "}},
		{9, nil},
	} {
		open, err := s.OpenAlertsWithLast(ctx, tc.server)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, a := range open {
			got = append(got, a.Kind+"/"+a.Key+" "+a.LastEvent+" "+a.LastMuted)
			if a.LastEvent == "changed" && !a.LastAt.Equal(at.Add(time.Minute)) {
				t.Errorf("last transition at %v, want %v", a.LastAt, at.Add(time.Minute))
			}
			if a.Kind == "conformance" && (!a.Held || len(a.Cycles) != 1 || !a.LastAt.IsZero()) {
				t.Errorf("held alert read as %+v", a)
			}
		}
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("server %d: open alerts %q, want %q", tc.server, got, tc.want)
		}
	}
}
