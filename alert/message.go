package alert

import (
	"fmt"
	"net/url"
	"strings"
	"time"
)

// Message events: what a notification says happened.
const (
	EventFiring   = "firing"   // an alert opened (or, muted until now, is announced)
	EventResolved = "resolved" // an announced alert closed
	EventReminder = "reminder" // an alert is still open after reminder-interval
	EventFlapping = "flapping" // an alert resolved too often and is held open
	EventUpdate   = "update"   // the regions of an open alert changed (down: how many fail)
	EventTest     = "test"     // `prober alerts test`
)

// Message is one notification, as stored in the outbox and rendered by each channel. It is
// JSON in the outbox, so its fields only ever grow.
type Message struct {
	Event    string    `json:"event"`
	Kind     Kind      `json:"kind"`
	Key      string    `json:"key,omitempty"`
	ServerID int64     `json:"serverId"`
	Server   string    `json:"server"`
	Incident string    `json:"incident"`
	At       time.Time `json:"at"`
	Evidence
}

// Evidence is what an alert shows: what changed, where, since when, with which exact codes.
type Evidence struct {
	Summary string   `json:"summary"`
	Regions []string `json:"regions,omitempty"`
	// Since is when the condition began (for a resolution: when the incident began).
	Since      time.Time `json:"since,omitzero"`
	ErrorCode  *int64    `json:"errorCode,omitempty"`
	HTTPStatus *int      `json:"httpStatus,omitempty"`
	ExitStatus *int      `json:"exitStatus,omitempty"`
	Error      string    `json:"error,omitempty"`
	// Rule and Spec name the specification rule a conformance alert is about.
	Rule string `json:"rule,omitempty"`
	Spec string `json:"spec,omitempty"`
	// Lines are the details, one fact a line.
	Lines []string `json:"lines,omitempty"`
	// Warning is a call to look closer (a tool description that changed).
	Warning string `json:"warning,omitempty"`
	// RunID is the run the evidence comes from (for a firing alert, the failing run), whose
	// page on the dashboard a message links to.
	RunID string `json:"runId,omitempty"`
	// Response is the start of the body of the failing answer, when one came.
	Response string `json:"response,omitempty"`
	// HeldOpen: the alert is held open while it flaps, although its condition is good again
	// since GoodSince (zero when it is bad again).
	HeldOpen  bool      `json:"heldOpen,omitempty"`
	GoodSince time.Time `json:"goodSince,omitzero"`
	// HeldBack says why this message comes late: the maintenance window that held it back.
	HeldBack string `json:"heldBack,omitempty"`
}

// Codes says the exact error code, HTTP status and exit status that the evidence carries,
// "" when it carries none.
func (e *Evidence) Codes() string {
	var parts []string
	if e.ErrorCode != nil {
		parts = append(parts, fmt.Sprintf("JSON-RPC error %d", *e.ErrorCode))
	}
	if e.HTTPStatus != nil {
		parts = append(parts, fmt.Sprintf("HTTP status %d", *e.HTTPStatus))
	}
	if e.ExitStatus != nil {
		parts = append(parts, fmt.Sprintf("exit status %d", *e.ExitStatus))
	}
	return strings.Join(parts, ", ")
}

// Title is the one-line headline of a message.
func (m *Message) Title() string {
	what := KindHeadline(m.Kind, m.Key)
	switch m.Event {
	case EventResolved:
		return fmt.Sprintf("Resolved: %s %s", m.Server, ResolvedHeadline(m.Kind, m.Key))
	case EventReminder:
		if m.HeldOpen && !m.GoodSince.IsZero() {
			return fmt.Sprintf("Still held open (flapping): %s %s since %s", m.Server, ResolvedHeadline(m.Kind, m.Key), timeText(m.GoodSince))
		}
		return fmt.Sprintf("Still open: %s %s", m.Server, what)
	case EventFlapping:
		return fmt.Sprintf("Flapping: %s %s (held open)", m.Server, what)
	case EventUpdate:
		return fmt.Sprintf("Update: %s %s", m.Server, what)
	case EventTest:
		return "mcpwatch test message"
	}
	return fmt.Sprintf("%s %s", m.Server, what)
}

// KindHeadline says what an open alert of kind k (and key) is about, after the server's name:
// "is down", "fails check lifecycle.initialize".
func KindHeadline(k Kind, key string) string {
	switch k {
	case KindDown:
		return "is down"
	case KindConformance:
		return "fails check " + key
	case KindDrift:
		return "changed its tools"
	case KindLatency:
		return "is slow on " + key
	case KindCertificate:
		return "has a TLS certificate about to expire"
	}
	return string(k)
}

// ResolvedHeadline says, after the server's name, that an alert's condition is good again.
func ResolvedHeadline(k Kind, key string) string {
	switch k {
	case KindDown:
		return "is up again"
	case KindConformance:
		return "passes check " + key + " again"
	case KindDrift:
		return "has a stable tool surface again"
	case KindLatency:
		return "is fast again on " + key
	case KindCertificate:
		return "has a renewed TLS certificate"
	}
	return string(k)
}

// ServerPage is the dashboard page of a server ("" without a dashboard URL).
func ServerPage(dashboardURL, server string) string {
	if dashboardURL == "" {
		return ""
	}
	return strings.TrimSuffix(dashboardURL, "/") + "/servers/" + url.PathEscape(server)
}

// RunPage is the dashboard page of a run ("" without a dashboard URL or a run).
func RunPage(dashboardURL, runID string) string {
	if dashboardURL == "" || runID == "" {
		return ""
	}
	return strings.TrimSuffix(dashboardURL, "/") + "/runs/" + url.PathEscape(runID)
}

// timeText is how messages write a time: UTC to the second, the same for every reader.
func timeText(t time.Time) string {
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

// durationText writes a span rounded to what a reader cares about.
func durationText(d time.Duration) string {
	switch {
	case d < time.Hour:
		return d.Round(time.Second).String()
	case d < 48*time.Hour:
		return d.Round(time.Minute).String()
	}
	d = d.Round(time.Hour)
	return fmt.Sprintf("%dd%dh", d/(24*time.Hour), d%(24*time.Hour)/time.Hour)
}
