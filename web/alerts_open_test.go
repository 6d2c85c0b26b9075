package web

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/store"
)

func TestAlertNoteSaysWhyAnAlertIsStillOpen(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 2, 10, 30, 0, 0, time.UTC)
	good := now.Add(-25 * time.Minute)
	open := func(kind string, f func(a *store.OpenAlert)) store.OpenAlert {
		a := store.OpenAlert{AlertState: store.AlertState{Kind: kind, Status: store.AlertFiring, CondBad: true}}
		f(&a)
		return a
	}
	for _, tc := range []struct {
		name   string
		alert  store.OpenAlert
		state  string
		class  string
		phrase string
	}{
		{"held back by a maintenance window", open("down", func(a *store.OpenAlert) { a.LastMuted = "maintenance window nightly" }),
			store.StateDown, alertNoteMaintenance, "Maintenance window nightly in force"},
		{"announced after the window: no maintenance note", open("down", func(a *store.OpenAlert) {
			a.LastMuted, a.NotifiedAt = "maintenance window nightly", now.Add(-time.Hour)
		}), store.StateDown, "", ""},
		{"held open while flapping, good again", open("down", func(a *store.OpenAlert) {
			a.Held, a.CondBad, a.Cycles = true, false, []time.Time{now.Add(-time.Hour), good}
		}), store.StateUp, alertNoteFlapping, "the server is up again since 2026-03-02 10:05:00 UTC (25 min ago)"},
		{"held open while flapping, failing again", open("conformance", func(a *store.OpenAlert) { a.Key, a.Held = "lifecycle.initialize", true }),
			store.StateDegraded, alertNoteFlapping, "resolved too often lately"},
		{"down alert on a server that answers again", open("down", func(*store.OpenAlert) {}), store.StateUp, alertNoteRecovering, "The latest runs answer"},
		{"down alert on a down server needs no word", open("down", func(*store.OpenAlert) {}), store.StateDown, "", ""},
		{"a certificate alert needs no word", open("certificate", func(*store.OpenAlert) {}), store.StateUp, "", ""},
		{"a route's mute is no maintenance", open("down", func(a *store.OpenAlert) { a.LastMuted = "muted by a route" }), store.StateDown, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			class, note := alertNote(tc.alert, tc.state, now)
			if class != tc.class || !strings.Contains(note, tc.phrase) || (tc.phrase == "" && note != "") {
				t.Errorf("note %q %q, want class %q containing %q", class, note, tc.class, tc.phrase)
			}
		})
	}
}

func TestOpenAlertsOfReadTheEvidence(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 2, 10, 30, 0, 0, time.UTC)
	id := store.NewRunID(now)
	views := openAlertsOf([]store.OpenAlert{
		{AlertState: store.AlertState{Kind: "latency", Key: "tools/list", Since: now.Add(-2 * time.Hour), CondBad: true,
			Details: []byte(`{"summary":"tools/list is slow in eu","runId":"` + id.String() + `"}`)}},
		{AlertState: store.AlertState{Kind: "drift", FiredAt: now.Add(-time.Minute), Details: []byte(`not json`)}},
	}, store.StateUp, now)
	if len(views) != 2 {
		t.Fatalf("%d views", len(views))
	}
	if v := views[0]; v.Headline != "is slow on tools/list" || v.Summary != "tools/list is slow in eu" || v.Since != "2 h ago" || v.RunHref != runHref(id) {
		t.Errorf("latency alert: %+v", v)
	}
	if v := views[1]; v.Headline != "changed its tools" || v.Summary != "" || v.Since != "1 min ago" || v.RunHref != "" {
		t.Errorf("drift alert with unreadable details: %+v", v)
	}
}
