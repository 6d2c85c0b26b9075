package main

import (
	"bytes"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/redact"
	"github.com/mcpwatch/mcpwatch/probe"
)

func TestProgressModeFollowsTheFlagThenTheTerminal(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		name     string
		flag     *bool
		terminal bool
		want     progressMode
	}{
		{"terminal, no flag", nil, true, progressLine},
		{"pipe, no flag", nil, false, progressOff},
		{"pipe, --progress", &yes, false, progressPlain},
		{"terminal, --progress", &yes, true, progressLine},
		{"terminal, --progress=false", &no, true, progressOff},
		{"pipe, --progress=false", &no, false, progressOff},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := progressModeFor(tt.flag, tt.terminal); got != tt.want {
				t.Errorf("got %d, want %d", got, tt.want)
			}
		})
	}
}

func TestProgressStatusLineNamesTheLongestWait(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	tests := []struct {
		name   string
		all    int
		events []probe.Event
		now    time.Duration
		want   string
	}{
		{
			name: "nothing awaited yet",
			events: []probe.Event{
				{Kind: probe.EventStart, At: at(0), Target: "./server", Bound: time.Minute},
			},
			want: "probing ./server",
		},
		{
			name: "the first answer, against the init timeout",
			events: []probe.Event{
				{Kind: probe.EventStart, At: at(0), Target: "./server", Bound: time.Minute},
				{Kind: probe.EventWait, At: at(0), Conn: 1, Step: "initialize", Method: "initialize", Bound: 45 * time.Second},
				{Kind: probe.EventWait, At: at(3 * time.Second), Conn: 2, Step: "initialize-bogus-version", Method: "initialize", Bound: 45 * time.Second},
			},
			now:  12 * time.Second,
			want: "waiting for initialize (connection 1), 12 s of 45 s",
		},
		{
			name: "an answered wait gives way to the next",
			events: []probe.Event{
				{Kind: probe.EventWait, At: at(0), Conn: 1, Step: "initialize", Method: "initialize", Bound: 45 * time.Second},
				{Kind: probe.EventWait, At: at(time.Second), Conn: 3, Step: "rule", Method: "ping", Bound: 10 * time.Second},
				{Kind: probe.EventAnswered, At: at(2 * time.Second), Conn: 1, Step: "initialize", Outcome: probe.OutcomeOK},
				{Kind: probe.EventClose, At: at(2 * time.Second), Conn: 40, Bound: 9 * time.Second},
			},
			now:  3500 * time.Millisecond,
			want: "waiting for ping (connection 3), 2.5 s of 10 s",
		},
		{
			name: "a shutdown",
			events: []probe.Event{
				{Kind: probe.EventClose, At: at(0), Conn: 1, Bound: 9 * time.Second},
			},
			now:  time.Second,
			want: "shutting down connection 1, 1.0 s of 9.0 s",
		},
		{
			name: "every revision, each named",
			all:  5,
			events: []probe.Event{
				{Kind: probe.EventStart, At: at(0), Revision: "2025-03-26", Bound: time.Minute},
				{Kind: probe.EventStart, At: at(0), Revision: "2025-06-18", Bound: time.Minute},
				{Kind: probe.EventFinish, At: at(time.Second), Revision: "2025-03-26"},
				{Kind: probe.EventWait, At: at(0), Revision: "2025-06-18", Conn: 1, Step: "initialize", Method: "initialize", Bound: 45 * time.Second},
			},
			now:  5 * time.Second,
			want: "2025-06-18: waiting for initialize (connection 1), 5.0 s of 45 s · 1 of 5 revisions done",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProgress(progressLine, &bytes.Buffer{}, redact.New(), 80, tt.all, func() time.Time { return at(tt.now) })
			for _, e := range tt.events {
				p.observe(e)
			}
			if got := p.statusLine(at(tt.now)); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestProgressSaysInterruptedAtOnceAndRedactsSecrets(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	now := t0
	var out bytes.Buffer
	p := newProgress(progressPlain, &out, redact.New("hunter2"), 0, 0, func() time.Time { return now })
	p.observe(probe.Event{Kind: probe.EventStart, At: t0, Target: "https://user:hunter2@example.test/mcp", Bound: time.Minute})
	now = t0.Add(3200 * time.Millisecond)
	p.interrupted()
	p.stop()
	p.observe(probe.Event{Kind: probe.EventFinish, At: now}) // after stop: not written
	want := "prober check: probing https://user:[redacted]@example.test/mcp (up to 60 s)\n" +
		"prober check: interrupted after 3.2 s; shutting down\n"
	if got := out.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestProgressCountsTenthsBelowTenSecondsThenWholeSeconds(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "0.0 s"},
		{240 * time.Millisecond, "0.2 s"},
		{9940 * time.Millisecond, "9.9 s"},
		{9960 * time.Millisecond, "10 s"},
		{12400 * time.Millisecond, "12 s"},
		{45 * time.Second, "45 s"},
	}
	for _, tt := range tests {
		if got := roundSeconds(tt.d); got != tt.want {
			t.Errorf("roundSeconds(%s) = %q, want %q", tt.d, got, tt.want)
		}
	}
}
