package web

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/mcpwatch/mcpwatch/internal/textclip"
	"github.com/mcpwatch/mcpwatch/store"
)

// alertsView is a server's open alerts and their history.
type alertsView struct {
	Open    []openAlertView
	History []alertRow
	Note    string
	// Maintenance names the maintenance window in force for the server, if any.
	Maintenance string
}

type alertRow struct {
	Kind    string
	Key     string
	Event   string
	At, Ago string
	Summary string
	Regions string
	Sent    string // how its notifications fared
	Muted   string
}

// alertHistoryShown is how many transitions the server page lists.
const alertHistoryShown = 20

// alertsOf reads the alerts of a server. A database without the alert tables (an older
// schema, or alerts not set up) has no alerts to show, which is no error.
func (d *dashboard) alertsOf(r *http.Request, serverID int64, server, state string, now time.Time) (alertsView, error) {
	v := alertsView{Maintenance: d.maintenanceNote(server, now)}
	open, err := d.store.OpenAlertsWithLast(r.Context(), serverID)
	if undefinedTable(err) {
		v.Note = "No alerts."
		return v, nil
	}
	if err != nil {
		return v, err
	}
	v.Open = openAlertsOf(open, state, now)
	history, err := d.store.AlertHistory(r.Context(), store.AlertHistoryQuery{ServerID: serverID, Limit: alertHistoryShown})
	if undefinedTable(err) {
		history, err = nil, nil
	}
	if err != nil {
		return v, err
	}
	for _, h := range history {
		row := alertRow{Kind: h.Kind, Key: h.Key, Event: h.Event, At: formatTime(h.At), Ago: formatAgo(h.At, now),
			Summary: textclip.Runes(h.Summary, 300), Regions: strings.Join(h.Regions, ", "), Muted: h.Muted}
		switch {
		case h.Failed > 0:
			row.Sent = "not delivered"
		case h.Pending > 0:
			row.Sent = "sending"
		case h.Sent > 0:
			row.Sent = "sent"
		}
		v.History = append(v.History, row)
	}
	if len(v.Open) == 0 && len(v.History) == 0 {
		v.Note = "No alerts."
	}
	return v, nil
}

// undefinedTable reports Postgres saying a table does not exist (SQLSTATE 42P01).
func undefinedTable(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "42P01"
}
