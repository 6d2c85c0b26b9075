package alert

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/store"
)

func TestDownAlert(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		cfg   Config
		steps []simStep
	}{
		{"fires after failure-threshold down runs in a row and resolves on a good run", config(only(KindDown)), []simStep{
			{obs(0, "eu", up), none()},
			{obs(1*m, "eu", down), none()},
			{obs(2*m, "eu", down), ev("fired down")},
			{obs(3*m, "eu", down), none()},
			{obs(4*m, "eu", up), ev("resolved down")},
			{obs(5*m, "eu", up), none()},
		}},
		{"a good run between down runs starts the count again", config(only(KindDown)), []simStep{
			{obs(1*m, "eu", down), none()},
			{obs(2*m, "eu", up), none()},
			{obs(3*m, "eu", down), none()},
			{obs(4*m, "eu", down), ev("fired down")},
		}},
		{"degraded is not down", config(only(KindDown)), []simStep{
			{obs(1*m, "eu", degraded), none()},
			{obs(2*m, "eu", degraded), none()},
			{obs(3*m, "eu", down), none()},
			{obs(4*m, "eu", down), ev("fired down")},
			{obs(5*m, "eu", degraded), ev("resolved down")},
		}},
		{"failure-threshold 1 fires on the first down run", config(only(KindDown), func(c *Config) { c.Down.FailureThreshold = 1 }), []simStep{
			{obs(1*m, "eu", down), ev("fired down")},
		}},
		{"success-threshold needs that many good runs in a row", config(only(KindDown), func(c *Config) { c.Down.SuccessThreshold = 3 }), []simStep{
			{obs(1*m, "eu", down), none()},
			{obs(2*m, "eu", down), ev("fired down")},
			{obs(3*m, "eu", up), none()},
			{obs(4*m, "eu", up), none()},
			{obs(5*m, "eu", down), none()},
			{obs(6*m, "eu", up), none()},
			{obs(7*m, "eu", up), none()},
			{obs(8*m, "eu", up), ev("resolved down")},
		}},
		{"quorum 2: one failing region is not enough", config(only(KindDown), func(c *Config) { c.Down.Quorum = 2 }), []simStep{
			{obs(0, "us", up), none()},
			{obs(1*m, "eu", down), none()},
			{obs(2*m, "eu", down), none()},
			{obs(3*m, "us", up), none()},
			{obs(4*m, "eu", down), none()},
		}},
		{"quorum 2: fires when a second region fails, resolves when one recovers", config(only(KindDown), func(c *Config) { c.Down.Quorum = 2 }), []simStep{
			{obs(1*m, "eu", down), none()},
			{obs(1*m, "us", down), none()},
			{obs(1*m, "ap", up), none()},
			{obs(2*m, "eu", down), none()},
			{obs(2*m, "us", down), ev("fired down")},
			{obs(3*m, "ap", up), none()},
			{obs(3*m, "eu", up), ev("resolved down")},
			{obs(3*m, "us", down), none()},
		}},
		{"a region silent past region-expiry does not count towards the quorum", config(only(KindDown), func(c *Config) { c.Down.Quorum = 2 }), []simStep{
			{obs(1*m, "eu", down), none()},
			{obs(2*m, "eu", down), none()},
			{obs(40*m, "us", down), none()},
			{obs(41*m, "us", down), none()},
			{obs(42*m, "eu", down), ev("fired down")},
		}},
		{"a run repeated or out of order is ignored", config(only(KindDown)), []simStep{
			{obs(1*m, "eu", down), none()},
			{obs(1*m, "eu", down), none()},
			{obs(30*time.Second, "eu", down), none()},
			{obs(2*m, "eu", down), ev("fired down")},
			{obs(2*m, "eu", up), none()},
		}},
		{"disabled, it never fires", config(only(KindDown), func(c *Config) { c.Down.Enabled = boolp(false) }), []simStep{
			{obs(1*m, "eu", down), none()},
			{obs(2*m, "eu", down), none()},
			{obs(3*m, "eu", down), none()},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			runScenario(t, tt.cfg, tt.steps)
		})
	}
}

func TestDownEvidenceNamesRegionsCodesAndSince(t *testing.T) {
	t.Parallel()
	s := newSim(t, config(only(KindDown), func(c *Config) { c.Down.Quorum = 2 }))
	fail := func(at time.Duration, region string, status int) Observation {
		o := obs(at, region, down)
		o.HTTPStatus, o.Error = &status, "initialize failed"
		return o
	}
	s.observe(fail(1*m, "eu", 502))
	s.observe(fail(90*time.Second, "us", 503))
	s.observe(fail(2*m, "eu", 502))
	events := s.observe(fail(3*m, "us", 504))
	if len(events) != 1 || len(events[0].Outbox) != 1 {
		t.Fatalf("events %q, want one fired with one notification", eventTexts(events))
	}
	msg := decodeMessage(t, events[0].Outbox[0].Payload)
	if msg.Event != EventFiring || msg.Kind != KindDown || msg.Server != "weather" || msg.ServerID != 7 {
		t.Errorf("message %+v", msg)
	}
	if !slices.Equal(msg.Regions, []string{"eu", "us"}) {
		t.Errorf("regions %q, want eu and us", msg.Regions)
	}
	if msg.HTTPStatus == nil || *msg.HTTPStatus != 504 {
		t.Errorf("HTTP status %v, want the latest, 504", msg.HTTPStatus)
	}
	if !msg.Since.Equal(t0.Add(1 * m)) {
		t.Errorf("since %v, want the first down run %v", msg.Since, t0.Add(m))
	}
	if msg.Summary != "down in 2 of 2 region(s) (eu, us): HTTP status 504" || msg.Error != "initialize failed" {
		t.Errorf("summary %q, error %q", msg.Summary, msg.Error)
	}
	// The region that failed otherwise says how; the one whose failure is the message's does not repeat it.
	if want := []string{"eu: down since 2026-03-02 10:01:00 UTC, 2 run(s) in a row; last: HTTP status 502 (initialize failed)",
		"us: down since 2026-03-02 10:01:30 UTC, 2 run(s) in a row"}; !slices.Equal(msg.Lines, want) {
		t.Errorf("lines %q, want %q", msg.Lines, want)
	}

	// The resolution keeps the incident and says when it began.
	events = s.observe(obs(4*m, "us", up))
	if got := eventTexts(events); len(got) != 1 || got[0] != "resolved down" {
		t.Fatalf("events %q, want resolved", got)
	}
	res := decodeMessage(t, events[0].Outbox[0].Payload)
	if res.Incident != msg.Incident || !res.Since.Equal(msg.Since) || res.Event != EventResolved {
		t.Errorf("resolution %+v does not continue incident %s", res, msg.Incident)
	}
}

// TestDownMessageSaysTheErrorOnce: the firing message of a server answering an error page
// says the error in words once, shows the start of the page and links to the failing run.
func TestDownMessageSaysTheErrorOnce(t *testing.T) {
	t.Parallel()
	const errText = "initialize: HTTP status 502, the body of the answer is not a JSON-RPC response"
	status := 502
	tests := []struct {
		name    string
		regions []string
	}{
		{"one region", []string{"eu"}},
		{"two regions failing alike", []string{"eu", "us"}}, // fires in eu, then updates
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newSim(t, config(only(KindDown)))
			var events []store.AlertEvent
			for i := range 2 {
				for j, r := range tt.regions {
					o := obs(time.Duration(2*i+j)*m, r, down)
					o.HTTPStatus, o.Error, o.Response = &status, errText, "upstream unavailable"
					o.RunID = fmt.Sprintf("run-%s-%d", r, i)
					events = append(events, s.observe(o)...)
				}
			}
			if len(events) != len(tt.regions) || events[0].Event != histFired || len(events[0].Outbox) != 1 {
				t.Fatalf("events %q, want one firing and an update per other region", eventTexts(events))
			}
			msg := decodeMessage(t, events[0].Outbox[0].Payload)
			text, blocks := slackMessage(&msg, "https://status.example.com")
			raw, err := json.Marshal(blocks)
			if err != nil {
				t.Fatal(err)
			}
			all := text + string(raw)
			for what, want := range map[string]int{errText: 1, "upstream unavailable": 1, "HTTP status 502": 3, // summary, fallback, and the error's words
				"https://status.example.com/runs/" + msg.RunID: 1} {
				if got := strings.Count(all, what); got != want {
					t.Errorf("%q appears %d times, want %d:\n%s", what, got, want, all)
				}
			}
			if msg.RunID != "run-eu-1" {
				t.Errorf("run %q, want the run that made it fire, run-eu-1", msg.RunID)
			}
		})
	}
}

// TestMultiRegionDownAlertUpdatesItsRegions: an announced down alert whose failing regions
// change sends an update with the new count, without reopening or reminding.
func TestMultiRegionDownAlertUpdatesItsRegions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		cfg   Config
		steps []simStep
	}{
		{"a second and a third region failing, then one recovering", config(only(KindDown), func(c *Config) { c.Down.FailureThreshold = 1 }), []simStep{
			{obs(0, "eu", up), none()},
			{obs(10*time.Second, "us", up), none()},
			{obs(20*time.Second, "ap", up), none()},
			{obs(1*m, "eu", down), ev("fired down")},
			{obs(70*time.Second, "us", down), ev("changed down")},
			{obs(80*time.Second, "ap", down), ev("changed down")},
			{obs(2*m, "eu", down), none()},
			{obs(130*time.Second, "us", up), ev("changed down")},
			{obs(140*time.Second, "ap", up), ev("changed down")},
			{obs(3*m, "eu", up), ev("resolved down")},
		}},
		{"no update before the alert was announced", config(only(KindDown), func(c *Config) {
			c.Down.FailureThreshold = 1
			c.Maintenance = []MaintenanceWindow{{Name: "deploy", Schedule: "0 10 * * MON", Duration: time.Hour}}
		}), []simStep{
			{obs(1*m, "eu", down), ev("fired down (muted: maintenance window deploy)")},
			{obs(70*time.Second, "us", down), none()},
			{obs(61*m, "eu", down), ev("announced down")},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			runScenario(t, tt.cfg, tt.steps)
		})
	}

	s := newSim(t, config(only(KindDown), func(c *Config) { c.Down.FailureThreshold = 1 }))
	s.observe(obs(0, "us", up))
	s.observe(obs(1*m, "eu", down))
	events := s.observe(obs(2*m, "us", down))
	if len(events) != 1 || len(events[0].Outbox) != 1 {
		t.Fatalf("events %q, want one update", eventTexts(events))
	}
	msg := decodeMessage(t, events[0].Outbox[0].Payload)
	if msg.Event != EventUpdate || msg.Summary != "down in 2 of 2 region(s) (eu, us): no successful initialize" || !slices.Equal(msg.Regions, []string{"eu", "us"}) {
		t.Errorf("update %s %q %q", msg.Event, msg.Summary, msg.Regions)
	}
	if st, _ := s.state(KindDown, ""); !st.NotifiedAt.Equal(t0.Add(1 * m)) {
		t.Errorf("notified at %v: an update must not delay the reminders", st.NotifiedAt)
	}
}
