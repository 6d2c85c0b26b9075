package alert

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/store"
)

const (
	up       = OutcomeUp
	degraded = OutcomeDegraded
	down     = OutcomeDown
	m        = time.Minute
)

func intp(v int) *int              { return &v }
func floatp(v float64) *float64    { return &v }
func boolp(v bool) *bool           { return &v }
func only(kind Kind) func(*Config) { return func(c *Config) { onlyKind(c, kind) } }

// onlyKind turns off every kind but one, so that a scenario sees the events of that kind only.
func onlyKind(c *Config, kind Kind) {
	for k, p := range map[Kind]**bool{KindDown: &c.Down.Enabled, KindConformance: &c.Conformance.Enabled,
		KindDrift: &c.Drift.Enabled, KindLatency: &c.Latency.Enabled, KindCertificate: &c.Certificate.Enabled} {
		*p = boolp(k == kind)
	}
}

func config(edits ...func(*Config)) Config {
	var c Config
	for _, e := range edits {
		e(&c)
	}
	return c
}

func TestReminders(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		cfg   Config
		steps []simStep
	}{
		{"an open alert is announced again every reminder-interval", config(only(KindDown), func(c *Config) {
			c.ReminderInterval = 30 * m
			c.Down.FailureThreshold = 1
		}), []simStep{
			{obs(0, "eu", down), ev("fired down")},
			{obs(10*m, "eu", down), none()},
			{obs(20*m, "eu", down), none()},
			{obs(30*m, "eu", down), ev("reminded down")},
			{obs(40*m, "eu", down), none()},
			{obs(60*m, "eu", down), ev("reminded down")},
			{obs(70*m, "eu", up), ev("resolved down")},
			{obs(100*m, "eu", up), none()},
		}},
		{"without reminder-interval there are none", config(only(KindDown), func(c *Config) { c.Down.FailureThreshold = 1 }), []simStep{
			{obs(0, "eu", down), ev("fired down")},
			{obs(5*time.Hour, "eu", down), none()},
			{obs(50*time.Hour, "eu", down), none()},
		}},
		{"reminders cover every kind", config(only(KindConformance), func(c *Config) { c.ReminderInterval = time.Hour }), []simStep{
			{withChecks(obs(0, "eu", up), "lifecycle.ping", "pass"), none()},
			{withChecks(obs(1*m, "eu", degraded), "lifecycle.ping", "fail"), ev("fired conformance lifecycle.ping")},
			{withChecks(obs(61*m, "eu", degraded), "lifecycle.ping", "fail"), ev("reminded conformance lifecycle.ping")},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			runScenario(t, tt.cfg, tt.steps)
		})
	}
}

func TestMaintenanceWindows(t *testing.T) {
	t.Parallel()
	// t0 is Monday 10:00 UTC; the window opens at 10:00 for one hour.
	window := func(servers ...string) func(*Config) {
		return func(c *Config) {
			c.Maintenance = []MaintenanceWindow{{Name: "deploy", Schedule: "0 10 * * MON", Duration: time.Hour, Servers: servers}}
			c.Down.FailureThreshold = 1
			c.ReminderInterval = 10 * m
		}
	}
	muted := "(muted: maintenance window deploy)"
	tests := []struct {
		name  string
		cfg   Config
		steps []simStep
	}{
		{"an alert opened in a window is muted, then announced when the window ends", config(only(KindDown), window()), []simStep{
			{obs(5*m, "eu", down), ev("fired down " + muted)},
			{obs(30*m, "eu", down), none()},
			{obs(59*m, "eu", down), none()},
			{obs(60*m, "eu", down), ev("announced down")},
			{obs(65*m, "eu", down), none()},
			{obs(70*m, "eu", down), ev("reminded down")},
			{obs(75*m, "eu", up), ev("resolved down")},
		}},
		{"an alert opened and resolved within a window sends nothing", config(only(KindDown), window()), []simStep{
			{obs(5*m, "eu", down), ev("fired down " + muted)},
			{obs(10*m, "eu", up), ev("resolved down (muted: resolved before it was announced)")},
			{obs(70*m, "eu", up), none()},
		}},
		{"an announced alert is not reminded in a window, and its resolution is sent", config(only(KindDown), window()), []simStep{
			{obs(-30*m, "eu", down), ev("fired down")},
			{obs(-20*m, "eu", down), ev("reminded down")},
			{obs(10*m, "eu", down), none()},
			{obs(30*m, "eu", up), ev("resolved down")},
		}},
		{"a window for some servers leaves the others alone", config(only(KindDown), window("payments-*")), []simStep{
			{obs(5*m, "eu", down), ev("fired down")},
		}},
		{"a window for this server mutes it", config(only(KindDown), window("weath*")), []simStep{
			{obs(5*m, "eu", down), ev("fired down " + muted)},
		}},
		{"a window in another time zone", config(only(KindDown), func(c *Config) {
			c.Maintenance = []MaintenanceWindow{{Name: "deploy", Schedule: "0 11 * * *", Duration: 30 * m, TimeZone: "Europe/Berlin"}}
			c.Down.FailureThreshold = 1
		}), []simStep{
			{obs(5*m, "eu", down), ev("fired down " + muted)},
			{obs(31*m, "eu", down), ev("announced down")},
		}},
		{"probes go on in a window: state changes, only messages are held", config(only(KindConformance), window()), []simStep{
			{withChecks(obs(-time.Hour, "eu", up), "lifecycle.ping", "pass"), none()},
			{withChecks(obs(5*m, "eu", degraded), "lifecycle.ping", "fail"), ev("fired conformance lifecycle.ping " + muted)},
			{withChecks(obs(61*m, "eu", degraded), "lifecycle.ping", "fail"), ev("announced conformance lifecycle.ping")},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			runScenario(t, tt.cfg, tt.steps)
		})
	}
}

func TestFlapDamping(t *testing.T) {
	t.Parallel()
	flappy := func(c *Config) { c.Down.FailureThreshold = 1 }
	quiet := func(d time.Duration) func(*Config) { return func(c *Config) { c.Flapping.Quiet = d } }
	tests := []struct {
		name  string
		cfg   Config
		steps []simStep
	}{
		{"the threshold-th resolution within the window is held, and comes once it stayed resolved for the quiet period", config(only(KindDown), flappy, quiet(20*m)), []simStep{
			{obs(0, "eu", down), ev("fired down")},
			{obs(1*m, "eu", up), ev("resolved down")},
			{obs(2*m, "eu", down), ev("fired down")},
			{obs(3*m, "eu", up), ev("resolved down")},
			{obs(4*m, "eu", down), ev("fired down")},
			{obs(5*m, "eu", up), ev("flapping down")},
			{obs(6*m, "eu", down), none()},
			{obs(7*m, "eu", up), none()},
			{obs(26*m, "eu", up), none()},
			{obs(27*m, "eu", up), ev("resolved down")},
		}},
		{"a relapse while held starts the quiet period again", config(only(KindDown), flappy, quiet(20*m)), []simStep{
			{obs(0, "eu", down), ev("fired down")},
			{obs(1*m, "eu", up), ev("resolved down")},
			{obs(2*m, "eu", down), ev("fired down")},
			{obs(3*m, "eu", up), ev("resolved down")},
			{obs(4*m, "eu", down), ev("fired down")},
			{obs(5*m, "eu", up), ev("flapping down")},
			{obs(20*m, "eu", down), none()},
			{obs(24*m, "eu", down), none()},
			{obs(25*m, "eu", up), none()},
			{obs(44*m, "eu", up), none()},
			{obs(45*m, "eu", up), ev("resolved down")},
		}},
		{"by default the quiet period is 30m, whatever the window", config(only(KindDown), flappy, func(c *Config) { c.Flapping.Window = 3 * time.Hour }), []simStep{
			{obs(0, "eu", down), ev("fired down")},
			{obs(1*m, "eu", up), ev("resolved down")},
			{obs(2*m, "eu", down), ev("fired down")},
			{obs(3*m, "eu", up), ev("resolved down")},
			{obs(4*m, "eu", down), ev("fired down")},
			{obs(5*m, "eu", up), ev("flapping down")},
			{obs(34*m, "eu", up), none()},
			{obs(35*m, "eu", up), ev("resolved down")},
		}},
		{"a quiet period longer than the window", config(only(KindDown), flappy, quiet(time.Hour), func(c *Config) {
			c.Flapping.Threshold = intp(2)
			c.Flapping.Window = 10 * m
		}), []simStep{
			{obs(0, "eu", down), ev("fired down")},
			{obs(1*m, "eu", up), ev("resolved down")},
			{obs(2*m, "eu", down), ev("fired down")},
			{obs(3*m, "eu", up), ev("flapping down")},
			{obs(62*m, "eu", up), none()},
			{obs(63*m, "eu", up), ev("resolved down")},
		}},
		{"resolutions spread wider than the window are never held", config(only(KindDown), flappy), []simStep{
			{obs(0, "eu", down), ev("fired down")},
			{obs(1*m, "eu", up), ev("resolved down")},
			{obs(40*m, "eu", down), ev("fired down")},
			{obs(41*m, "eu", up), ev("resolved down")},
			{obs(80*m, "eu", down), ev("fired down")},
			{obs(81*m, "eu", up), ev("resolved down")},
			{obs(120*m, "eu", down), ev("fired down")},
			{obs(121*m, "eu", up), ev("resolved down")},
		}},
		{"threshold 0 turns damping off", config(only(KindDown), flappy, func(c *Config) { c.Flapping.Threshold = intp(0) }), []simStep{
			{obs(0, "eu", down), ev("fired down")},
			{obs(1*m, "eu", up), ev("resolved down")},
			{obs(2*m, "eu", down), ev("fired down")},
			{obs(3*m, "eu", up), ev("resolved down")},
			{obs(4*m, "eu", down), ev("fired down")},
			{obs(5*m, "eu", up), ev("resolved down")},
		}},
		{"a flapping check is held like a flapping server", config(only(KindConformance), quiet(9*m), func(c *Config) {
			c.Flapping.Threshold = intp(2)
			c.Flapping.Window = 10 * m
		}), []simStep{
			{withChecks(obs(0, "eu", up), "lifecycle.ping", "pass"), none()},
			{withChecks(obs(1*m, "eu", degraded), "lifecycle.ping", "fail"), ev("fired conformance lifecycle.ping")},
			{withChecks(obs(2*m, "eu", up), "lifecycle.ping", "pass"), ev("resolved conformance lifecycle.ping")},
			{withChecks(obs(3*m, "eu", degraded), "lifecycle.ping", "fail"), ev("fired conformance lifecycle.ping")},
			{withChecks(obs(4*m, "eu", up), "lifecycle.ping", "pass"), ev("flapping conformance lifecycle.ping")},
			{withChecks(obs(12*m, "eu", up), "lifecycle.ping", "pass"), none()},
			{withChecks(obs(13*m, "eu", up), "lifecycle.ping", "pass"), ev("resolved conformance lifecycle.ping")},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			runScenario(t, tt.cfg, tt.steps)
		})
	}
}

// TestHeldAlertStoredBeforeQuietPeriodsResolves: a state written when the hold ended with
// the window (its resolution times pruned) still loads, and resolves at its next good run.
func TestHeldAlertStoredBeforeQuietPeriodsResolves(t *testing.T) {
	t.Parallel()
	s := newSim(t, config(only(KindDown), func(c *Config) { c.Down.FailureThreshold = 1 }))
	s.snap.States = []store.AlertState{{ServerID: 7, Kind: string(KindDown), Status: store.AlertFiring, Incident: "00000000-0000-4000-8000-000000000099",
		Since: t0.Add(-2 * time.Hour), FiredAt: t0.Add(-2 * time.Hour), NotifiedAt: t0.Add(-2 * time.Hour), Held: true}}
	if got := eventTexts(s.observe(obs(0, "eu", up))); !slices.Equal(got, []string{"resolved down"}) {
		t.Errorf("events %q, want the resolution", got)
	}
}

// TestHeldReminderSaysItIsFlappingAndSinceWhenItIsUp: a reminder of an alert held open while
// the server is up says so, and since when, rather than repeating the last failure as if
// the server were still down.
func TestHeldReminderSaysItIsFlappingAndSinceWhenItIsUp(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		last      Observation // the last run before the reminder
		wantTitle string
		want      []string // in the summary and lines
		wantUp    time.Time
	}{
		{"up since the last resolution", obs(12*m, "eu", up), "Still held open (flapping): weather is up again since 2026-03-02 10:05:00 UTC",
			[]string{"held open while flapping: weather is up again since 2026-03-02 10:05:00 UTC", "resolved 3 times within 1h0m0s",
				"resolves if it stays so until 2026-03-02 10:35:00 UTC", "last failure: down in 1 of 1 region(s) (eu)"}, t0.Add(5 * m)},
		{"down again: a plain reminder", obs(12*m, "eu", down), "Still open: weather is down", []string{"down in 1 of 1 region(s) (eu)"}, time.Time{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newSim(t, config(only(KindDown), func(c *Config) {
				c.Down.FailureThreshold = 1
				c.ReminderInterval = 10 * m
			}))
			for i, o := range []string{down, up, down, up, down, up} {
				s.observe(obs(time.Duration(i)*m, "eu", o))
			}
			s.observe(tt.last)
			events := s.observe(obs(16*m, "eu", tt.last.Outcome))
			if len(events) != 1 || events[0].Event != histReminded || len(events[0].Outbox) != 1 {
				t.Fatalf("events %q, want one reminder", eventTexts(events))
			}
			msg := decodeMessage(t, events[0].Outbox[0].Payload)
			if got := msg.Title(); got != tt.wantTitle {
				t.Errorf("title %q, want %q", got, tt.wantTitle)
			}
			text := msg.Summary + "\n" + strings.Join(msg.Lines, "\n")
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("the reminder lacks %q:\n%s", w, text)
				}
			}
			if !msg.GoodSince.Equal(tt.wantUp) || msg.HeldOpen != !tt.wantUp.IsZero() {
				t.Errorf("goodSince %v heldOpen %v, want %v", msg.GoodSince, msg.HeldOpen, tt.wantUp)
			}
			if !tt.wantUp.IsZero() && (msg.Error != "" || msg.Codes() != "" || len(msg.Lines) != 3) {
				t.Errorf("a reminder of a server that is up repeats the failure as current: error %q, codes %q, lines %q", msg.Error, msg.Codes(), msg.Lines)
			}
		})
	}
}

func TestRoutesAndMuting(t *testing.T) {
	t.Parallel()
	channels := []ChannelConfig{
		{Name: "ops", Type: ChannelSlack, WebhookURLEnv: "HOOK"},
		{Name: "bot", Type: ChannelSlack, TokenEnv: "TOKEN", Channel: "#alerts"},
		{Name: "pager", Type: ChannelWebhook, URL: "https://pager.example.com/hook"},
	}
	tests := []struct {
		name   string
		cfg    Config
		labels map[string]string
		want   []string // channel>target of each notification, or the muted event
	}{
		{"no route: the default channels, which are all channels unless set",
			Config{Channels: channels}, nil, []string{"ops>", "bot>", "pager>"}},
		{"default-channels", Config{Channels: channels, DefaultChannels: []string{"pager"}}, nil, []string{"pager>"}},
		{"the first matching route wins, and picks the Slack channel of bot channels",
			Config{Channels: channels, Routes: []Route{
				{Servers: []string{"payments-*"}, Channels: []string{"pager"}},
				{Servers: []string{"weath*"}, Labels: map[string]string{"team": "sky"}, Channels: []string{"bot", "ops"}, SlackChannel: "#team-sky"},
				{Channels: []string{"pager"}},
			}}, map[string]string{"team": "sky"}, []string{"bot>#team-sky", "ops>"}},
		{"labels must match", Config{Channels: channels, Routes: []Route{
			{Labels: map[string]string{"team": "sea"}, Channels: []string{"ops"}},
		}}, map[string]string{"team": "sky"}, []string{"ops>", "bot>", "pager>"}},
		{"a muting route keeps the alert out of every channel",
			Config{Channels: channels, Routes: []Route{{Servers: []string{"weather"}, Mute: true}}}, nil,
			[]string{"fired down (muted: muted by a route)"}},
		{"no channel at all", Config{}, nil, []string{"fired down (muted: no channel configured)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := tt.cfg
			onlyKind(&cfg, KindDown)
			cfg.Down.FailureThreshold = 1
			if cfg.Channels == nil {
				cfg.Channels = []ChannelConfig{}
			}
			s := newSim(t, cfg)
			o := obs(0, "eu", down)
			o.Labels = tt.labels
			events := s.observe(o)
			if len(events) != 1 {
				t.Fatalf("events %q", eventTexts(events))
			}
			var got []string
			for _, n := range events[0].Outbox {
				got = append(got, n.Channel+">"+n.Target)
			}
			if len(got) == 0 {
				got = []string{eventText(events[0])}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestSendOnResolvedOff(t *testing.T) {
	t.Parallel()
	runScenario(t, config(only(KindDown), func(c *Config) {
		c.SendOnResolved = boolp(false)
		c.Down.FailureThreshold = 1
	}), []simStep{
		{obs(0, "eu", down), ev("fired down")},
		{obs(1*m, "eu", up), ev("resolved down (muted: send-on-resolved is off)")},
	})
}

func TestStateIsWrittenOnlyWhenItChanges(t *testing.T) {
	t.Parallel()
	s := newSim(t, config(only(KindConformance)))
	o := withChecks(obs(0, "eu", up), "lifecycle.ping", "pass")
	o.ServerID = 7
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	s.observe(o)
	// The same verdicts again: only the region's last run time changes.
	o2 := withChecks(obs(1*m, "eu", up), "lifecycle.ping", "pass")
	o2.At = o2.At.UTC()
	ch, err := s.ev.decide(&o2, s.snap)
	if err != nil {
		t.Fatal(err)
	}
	if len(ch.States) != 0 || len(ch.Events) != 0 {
		t.Errorf("unchanged run wrote %d states and %d events", len(ch.States), len(ch.Events))
	}
	if _, ok := ch.Memory[partChecks]; ok || len(ch.Memory) != 1 {
		t.Errorf("unchanged run wrote memory parts %v, want only %s", keysOf(ch.Memory), partRegions)
	}
}

func keysOf(m map[string][]byte) []string { return slices.Sorted(maps.Keys(m)) }

// TestMessageAfterAMaintenanceWindowSaysItWasHeldBack: the first message of an alert that
// opened in a window comes when the window closes, and says why it comes late.
func TestMessageAfterAMaintenanceWindowSaysItWasHeldBack(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		firstAt  time.Duration // the first down run; t0 is Monday 10:00 UTC, the window 10:00-11:00
		sentAt   time.Duration
		wantHeld string
	}{
		{"opened in the window", 5 * m, 60 * m,
			"held back by maintenance window deploy: the alert opened at 2026-03-02 10:05:00 UTC, in the window, which closed at 2026-03-02 11:00:00 UTC"},
		{"opened outside a window", -30 * m, -30 * m, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newSim(t, config(only(KindDown), func(c *Config) {
				c.Maintenance = []MaintenanceWindow{{Name: "deploy", Schedule: "0 10 * * MON", Duration: time.Hour}}
				c.Down.FailureThreshold = 1
			}))
			var sent []store.AlertEvent
			for at := tt.firstAt; at <= tt.sentAt; at += 5 * m {
				for _, e := range s.observe(obs(at, "eu", down)) {
					if len(e.Outbox) > 0 {
						sent = append(sent, e)
					}
				}
			}
			if len(sent) != 1 || sent[0].At != t0.Add(tt.sentAt) {
				t.Fatalf("sent %q, want one message at +%v", eventTexts(sent), tt.sentAt)
			}
			msg := decodeMessage(t, sent[0].Outbox[0].Payload)
			if msg.HeldBack != tt.wantHeld {
				t.Errorf("held back %q, want %q", msg.HeldBack, tt.wantHeld)
			}
			if text, _ := slackMessage(&msg, ""); tt.wantHeld != "" && !strings.Contains(text, "held back by maintenance window deploy") {
				t.Errorf("the Slack text does not say it was held back: %s", text)
			}
		})
	}
}
