package monitor

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/store"
)

func TestRuleProbesRunOncePerWindow(t *testing.T) {
	base := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name     string
		schedule string
		every    time.Duration
		slots    int
		step     time.Duration
		want     int // slots whose probe runs the rule probes
	}{
		{"every minute, hourly rules: one a window", "@every 1m", time.Hour, 180, time.Minute, 3},
		{"every 5 minutes, daily rules", "@every 5m", 24 * time.Hour, 2 * 288, 5 * time.Minute, 2},
		{"rules in every probe when ruleProbes is 0", "@every 1m", 0, 30, time.Minute, 30},
		{"a schedule slower than the window runs them every time", "@every 2h", time.Hour, 10, 2 * time.Hour, 10},
		{"a cron schedule", "*/10 * * * *", time.Hour, 36, 10 * time.Minute, 6},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := &Prober{ruleProbes: tt.every}
			s := store.Server{Name: "weather", Schedule: tt.schedule}
			got := 0
			for i := range tt.slots {
				if p.rulesElsewhere(s, base.Add(time.Duration(i)*tt.step)) == "" {
					got++
				}
			}
			if got != tt.want {
				t.Errorf("%d of %d slots run the rule probes, want %d", got, tt.slots, tt.want)
			}
		})
	}
}

// Servers on one schedule get their rule probes in different slots, not all in one minute.
func TestRuleProbesArePhasedByServer(t *testing.T) {
	p := &Prober{ruleProbes: time.Hour}
	base := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	minutes := map[int]bool{}
	for i := range 20 {
		s := store.Server{Name: "server-" + string(rune('a'+i)), Schedule: "@every 1m"}
		for m := range 60 {
			if p.rulesElsewhere(s, base.Add(time.Duration(m)*time.Minute)) == "" {
				minutes[m] = true
			}
		}
	}
	if len(minutes) < 10 {
		t.Errorf("20 servers got their rule probes in only %d distinct minutes of the hour", len(minutes))
	}
}

// A probe that leaves the rule probes out says so in the rule checks' findings.
func TestAProbeWithoutRuleProbesSaysWhy(t *testing.T) {
	p := testProberWith(t, nil, ProberConfig{Transcripts: TranscriptsNone, RuleProbes: 24 * time.Hour})
	s := httpTarget("weather", fixtureURL(t, ""))
	s.Schedule = "@every 1m"
	due := time.Now().Truncate(time.Minute)
	for p.rulesElsewhere(s, due) == "" {
		due = due.Add(time.Minute)
	}
	rec, _ := p.Probe(t.Context(), s, due, "", 10*time.Second, "eu", "w")
	if rec.Outcome != store.OutcomeUp {
		t.Fatalf("outcome %s", rec.Outcome)
	}
	seen := false
	for _, f := range rec.Findings {
		seen = seen || f.CheckID == "lifecycle.parse-error"
		if f.CheckID == "lifecycle.parse-error" && (f.Status != "skip" || !strings.Contains(f.Message, "once every 24h0m0s")) {
			t.Errorf("lifecycle.parse-error: %s %q", f.Status, f.Message)
		}
	}
	if !seen {
		t.Error("no lifecycle.parse-error finding stored")
	}
}
