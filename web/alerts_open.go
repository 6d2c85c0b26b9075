package web

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcpwatch/mcpwatch/alert"
	"github.com/mcpwatch/mcpwatch/internal/textclip"
	"github.com/mcpwatch/mcpwatch/store"
)

// Kinds of note an open alert carries, also its class on the pages.
const (
	alertNoteFlapping    = "flapping"    // held open while it flaps
	alertNoteMaintenance = "maintenance" // not announced: a maintenance window holds it back
	alertNoteRecovering  = "recovering"  // the latest runs are good; the alert has not closed yet
)

// openAlertView is an open alert as the status page and the server page show it: what it is
// about, since when, and why it is still open when the server looks fine.
type openAlertView struct {
	Kind     string
	Key      string
	Headline string // "is down", "fails check lifecycle.initialize"
	Summary  string // the latest evidence
	Since    string // ago
	SinceAt  string
	RunHref  string // the run the evidence comes from
	// NoteClass is one of the alertNote kinds, "" when the alert needs no word beyond itself.
	NoteClass string
	Note      string
}

// openAlertsOf turns a server's open alerts into views. state is the server's state as its
// latest runs give it: a down alert open on a server that answers says why it is still open.
func openAlertsOf(open []store.OpenAlert, state string, now time.Time) []openAlertView {
	out := make([]openAlertView, 0, len(open))
	for _, a := range open {
		var ev alert.Evidence
		// Details are the alert engine's JSON; one it cannot read loses only the summary.
		_ = json.Unmarshal(a.Details, &ev)
		since := a.Since
		if since.IsZero() {
			since = a.FiredAt
		}
		v := openAlertView{
			Kind: a.Kind, Key: a.Key, Headline: alert.KindHeadline(alert.Kind(a.Kind), a.Key),
			Summary: textclip.Runes(ev.Summary, 300), Since: formatAgo(since, now), SinceAt: formatTime(since),
		}
		if ev.RunID != "" {
			if id, err := store.ParseRunID(ev.RunID); err == nil {
				v.RunHref = runHref(id)
			}
		}
		v.NoteClass, v.Note = alertNote(a, state, now)
		out = append(out, v)
	}
	return out
}

// alertNote says why an open alert is open beyond its condition: held open while it flaps,
// held back by a maintenance window, or waiting for enough good runs to close.
func alertNote(a store.OpenAlert, state string, now time.Time) (class, note string) {
	if w, ok := alert.HeldBackByMaintenance(a.LastMuted); ok && a.NotifiedAt.IsZero() {
		return alertNoteMaintenance, fmt.Sprintf("Maintenance window %s in force: nothing is sent yet; the alert is announced when the window closes if it is still open then.", w)
	}
	if a.Held {
		if !a.CondBad && len(a.Cycles) > 0 {
			good := a.Cycles[len(a.Cycles)-1]
			return alertNoteFlapping, fmt.Sprintf("Held open while flapping: %s since %s (%s); it closes after a quiet period without a relapse.",
				goodAgain(alert.Kind(a.Kind), a.Key), formatTime(good), formatAgo(good, now))
		}
		return alertNoteFlapping, "Held open while flapping: it resolved too often lately, and closes after a quiet period without a relapse."
	}
	if alert.Kind(a.Kind) == alert.KindDown && (state == store.StateUp || state == store.StateDegraded) {
		return alertNoteRecovering, "The latest runs answer; the alert closes once enough good runs in a row have been seen in enough regions."
	}
	return "", ""
}

// goodAgain is ResolvedHeadline without the server's name before it.
func goodAgain(k alert.Kind, key string) string {
	return "the server " + alert.ResolvedHeadline(k, key)
}

// alertsOpenOn reads every open alert, by server. A database without the alert tables has
// none.
func (d *dashboard) alertsOpenOn(ctx context.Context, serverID int64) (map[int64][]store.OpenAlert, error) {
	open, err := d.store.OpenAlertsWithLast(ctx, serverID)
	if undefinedTable(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := map[int64][]store.OpenAlert{}
	for _, a := range open {
		out[a.ServerID] = append(out[a.ServerID], a)
	}
	return out, nil
}

// maintenanceNote says which maintenance window is in force for a server now: its alerts are
// held back until it closes, even those not open yet. "" when none is, or when the dashboard
// has no alerts configuration.
func (d *dashboard) maintenanceNote(server string, now time.Time) string {
	if d.maintenance == nil {
		return ""
	}
	name, end, ok := d.maintenance(now, server)
	if !ok {
		return ""
	}
	return fmt.Sprintf("Maintenance window %s in force until %s (%s): alerts about this server are held back until it closes.",
		name, formatTime(end), formatIn(end, now))
}
