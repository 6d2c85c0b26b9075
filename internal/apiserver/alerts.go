package apiserver

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/mcpwatch/mcpwatch/jsondoc"
	"github.com/mcpwatch/mcpwatch/store"
)

const maxAlertPage = 200

type alertView struct {
	ID       int64           `json:"id"`
	Server   string          `json:"server"`
	ServerID int64           `json:"serverId"`
	Kind     string          `json:"kind"`
	Key      string          `json:"key"`
	Incident string          `json:"incident"`
	Event    string          `json:"event"`
	At       time.Time       `json:"at"`
	Regions  []string        `json:"regions"`
	Summary  string          `json:"summary"`
	Details  json.RawMessage `json:"details"`
	// Muted says why nothing was sent ("" when a notification was).
	Muted string `json:"muted"`
	Sent  int    `json:"sent"`
}

// listAlerts is GET /api/v1/alerts: alert transitions of every server, newest first.
func (s *API) listAlerts(w http.ResponseWriter, r *http.Request) error {
	return s.alerts(w, r, 0)
}

// serverAlerts is GET /api/v1/servers/{server}/alerts.
func (s *API) serverAlerts(w http.ResponseWriter, r *http.Request) error {
	v, err := s.serverOf(r)
	if err != nil {
		return err
	}
	return s.alerts(w, r, v.ID)
}

func (s *API) alerts(w http.ResponseWriter, r *http.Request, serverID int64) error {
	q := r.URL.Query()
	aq := store.AlertHistoryQuery{ServerID: serverID, Kind: q.Get("kind"), Limit: 50}
	switch aq.Kind {
	case "", "down", "conformance", "drift", "latency", "certificate":
	default:
		return errorf(http.StatusBadRequest, codeBadRequest, "kind: one of down, conformance, drift, latency, certificate")
	}
	if l := q.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 || n > maxAlertPage {
			return errorf(http.StatusBadRequest, codeBadRequest, "limit: a number from 1 to "+strconv.Itoa(maxAlertPage))
		}
		aq.Limit = n
	}
	if c := q.Get("cursor"); c != "" {
		// Alert ids are public and increasing: the cursor is the last id seen, checked as one.
		n, err := strconv.ParseInt(c, 10, 64)
		if err != nil || n < 1 {
			return errorf(http.StatusBadRequest, codeBadCursor, "cursor is not one this API gave; start again without it")
		}
		aq.BeforeID = n
	}
	entries, err := s.cfg.Store.AlertHistory(r.Context(), aq)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "42P01" {
		// No alert tables in this database (the alert engine's migration is not applied):
		// there is no history, which is not an error.
		entries, err = nil, nil
	}
	if err != nil {
		return err
	}
	out := struct {
		Alerts     []alertView `json:"alerts"`
		NextCursor *string     `json:"nextCursor"`
	}{Alerts: make([]alertView, 0, len(entries))}
	for _, e := range entries {
		details := json.RawMessage(e.Details)
		if !jsondoc.Valid(details) {
			details = json.RawMessage("{}")
		}
		regions := e.Regions
		if regions == nil {
			regions = []string{}
		}
		out.Alerts = append(out.Alerts, alertView{ID: e.ID, Server: e.Server, ServerID: e.ServerID, Kind: e.Kind, Key: e.Key,
			Incident: e.Incident, Event: e.Event, At: e.At.UTC(), Regions: regions, Summary: e.Summary,
			Details: details, Muted: e.Muted, Sent: e.Sent})
	}
	if len(entries) == aq.Limit && aq.Limit > 0 {
		c := strconv.FormatInt(entries[len(entries)-1].ID, 10)
		out.NextCursor = &c
	}
	s.writeJSON(w, http.StatusOK, out)
	return nil
}
