package alert

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// monitorFile is how the monitor's loader holds the section.
type monitorFile struct {
	Alerts Config `yaml:"alerts"`
}

func decodeFile(t *testing.T, text string) (Config, error) {
	t.Helper()
	var f monitorFile
	err := yaml.Unmarshal([]byte(text), &f)
	return f.Alerts, err
}

func TestExampleConfigDecodesAndValidates(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("testdata/mcpwatch.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := decodeFile(t, string(raw))
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.ValidateAndSetDefaults(); err != nil {
		t.Fatal(err)
	}
	if cfg.ReminderInterval != 4*time.Hour || cfg.Down.Quorum != 2 || cfg.Latency.P95Above != 2*time.Second ||
		len(cfg.Channels) != 3 || len(cfg.Routes) != 2 || cfg.Maintenance[0].Duration != 2*time.Hour {
		t.Errorf("decoded %+v", cfg)
	}
	if !slices.Equal(cfg.DefaultChannels, []string{"ops"}) || cfg.Routes[0].SlackChannel != "#payments-oncall" {
		t.Errorf("routing %v %+v", cfg.DefaultChannels, cfg.Routes)
	}
}

func TestDefaults(t *testing.T) {
	t.Parallel()
	var cfg Config
	if err := cfg.ValidateAndSetDefaults(); err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"send-on-resolved", *cfg.SendOnResolved, true},
		{"reminder-interval", cfg.ReminderInterval, time.Duration(0)},
		{"flapping.threshold", *cfg.Flapping.Threshold, 3},
		{"flapping.window", cfg.Flapping.Window, time.Hour},
		{"flapping.quiet", cfg.Flapping.Quiet, 30 * time.Minute},
		{"down.failure-threshold", cfg.Down.FailureThreshold, 2},
		{"down.success-threshold", cfg.Down.SuccessThreshold, 1},
		{"down.quorum", cfg.Down.Quorum, 1},
		{"down.region-expiry", cfg.Down.RegionExpiry, 30 * time.Minute},
		{"latency.window", cfg.Latency.Window, 15 * time.Minute},
		{"latency.steps", strings.Join(cfg.Latency.Steps, ","), "initialize,tools/list,ping"},
		{"latency.baseline-ratio", *cfg.Latency.BaselineRatio, 3.0},
		{"latency.baseline-days", cfg.Latency.BaselineDays, 7},
		{"certificate.days", cfg.Certificate.Days, 14},
		{"delivery.max-attempts", cfg.Delivery.MaxAttempts, 20},
		{"kinds enabled", *cfg.Down.Enabled && *cfg.Conformance.Enabled && *cfg.Drift.Enabled && *cfg.Latency.Enabled && *cfg.Certificate.Enabled, true},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	// Defaults once set are kept: validating again changes nothing.
	before := cfg
	if err := cfg.ValidateAndSetDefaults(); err != nil || cfg.Down != before.Down || cfg.Delivery != before.Delivery {
		t.Errorf("second validation changed the config: %v", err)
	}
}

func TestConfigErrorsNameTheLineAndKey(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		yaml string
		want []string // each a line of the error
	}{
		{"unknown key", `
alerts:
  down:
    failure-treshold: 3
`, []string{"line 4, column 5: alerts.down.failure-treshold: unknown key (known: enabled, failure-threshold, quorum, region-expiry, success-threshold)"}},
		{"unknown key in a list item", `
alerts:
  channels:
    - name: ops
      type: slack
      webhook-url: https://hooks.slack.com/services/x
`, []string{"line 6, column 7: alerts.channels[0].webhook-url: unknown key"}},
		{"reminder below the minimum", `
alerts:
  reminder-interval: 1m
`, []string{"line 3, column 3: alerts.reminder-interval: must be 0 (no reminders) or at least 5m0s, not 1m0s"}},
		{"slack channel without a secret, webhook without url, unknown type", `
alerts:
  channels:
    - name: ops
      type: slack
    - name: pager
      type: webhook
    - name: mail
      type: email
`, []string{
			"line 4, column 7: alerts.channels[0]: a slack channel needs webhook-url-env or token-env (one of them)",
			"line 6, column 7: alerts.channels[1]: a webhook channel needs url or url-env (one of them)",
			"line 9, column 7: alerts.channels[2].type: must be slack or webhook, not \"email\"",
		}},
		{"bot token without a channel; a variable name that is not one", `
alerts:
  channels:
    - name: bot
      type: slack
      token-env: "$SLACK_TOKEN"
`, []string{
			"line 4, column 7: alerts.channels[0].channel: a slack channel with token-env needs the channel to post to",
			"line 6, column 7: alerts.channels[0].token-env: \"$SLACK_TOKEN\" is not an environment variable name",
		}},
		{"routes name channels that exist", `
alerts:
  channels:
    - {name: ops, type: slack, webhook-url-env: HOOK}
  default-channels: [ops, nowhere]
  routes:
    - servers: ["pay[ments"]
      channels: [elsewhere]
      slack-channel: "#x"
`, []string{
			"line 5, column 27: alerts.default-channels[1]: no channel is named \"nowhere\"",
			"line 8, column 18: alerts.routes[0].channels[0]: no channel is named \"elsewhere\"",
			"line 7, column 17: alerts.routes[0].servers[0]: \"pay[ments\" is not a name pattern",
			"line 9, column 7: alerts.routes[0].slack-channel: only a Slack channel with token-env can post to another channel; this route sends to none",
		}},
		{"maintenance windows", `
alerts:
  maintenance:
    - schedule: "61 2 * * *"
      duration: 1h
    - schedule: "0 2 * * *"
      timezone: Mars/Olympus
    - schedule: "@every 1h"
      duration: 1h
`, []string{
			"line 4, column 7: alerts.maintenance[0].schedule: schedule \"61 2 * * *\": end of range (61) above maximum (59): 61",
			"line 7, column 7: alerts.maintenance[1].timezone: unknown time zone \"Mars/Olympus\"",
			"line 6, column 7: alerts.maintenance[1].duration: a window needs a positive duration such as 2h, not 0s",
			"line 8, column 7: alerts.maintenance[2].schedule: \"@every 1h\": a window starts at times of day; use a cron expression",
		}},
		{"thresholds", `
alerts:
  flapping: {threshold: -1, quiet: 30s}
  down: {failure-threshold: -2, quorum: -1}
  latency: {baseline-ratio: 0.5, baseline-days: 90}
  certificate: {days: 400}
  conformance: {checks: ["Tools list"]}
`, []string{
			"line 3, column 14: alerts.flapping.threshold: must be 0 (off) or more, not -1",
			"line 3, column 29: alerts.flapping.quiet: must be between 1m and 7d, not 30s",
			"line 4, column 10: alerts.down.failure-threshold: must be at least 1, not -2",
			"line 4, column 33: alerts.down.quorum: must be at least 1, not -1",
			"line 7, column 26: alerts.conformance.checks[0]: \"Tools list\" is not a check id or a prefix such as tools.*",
			"line 5, column 13: alerts.latency.baseline-ratio: must be 0 (none) or above 1, not 0.5",
			"line 5, column 34: alerts.latency.baseline-days: must be between 1 and 30, not 90",
			"line 6, column 17: alerts.certificate.days: must be between 1 and 365, not 400",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg, err := decodeFile(t, tt.yaml)
			if err == nil {
				err = cfg.ValidateAndSetDefaults()
			}
			if err == nil {
				t.Fatal("no error")
			}
			var ce ConfigErrors
			if !errors.As(err, &ce) {
				t.Fatalf("error %v is not ConfigErrors", err)
			}
			got := strings.Split(err.Error(), "\n")
			if len(got) != len(tt.want) {
				t.Fatalf("errors:\n%s\nwant:\n%s", err, strings.Join(tt.want, "\n"))
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tt.want[i]) {
					t.Errorf("error %d:\n got %s\nwant %s", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestValidationErrorsWrapErrInvalidConfig(t *testing.T) {
	t.Parallel()
	cfg := Config{ReminderInterval: time.Second}
	if err := cfg.ValidateAndSetDefaults(); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("error %v does not wrap ErrInvalidConfig", err)
	}
}

func TestMaintenanceWindowOpensAndCloses(t *testing.T) {
	t.Parallel()
	ws, err := compileMaintenance([]MaintenanceWindow{{Name: "sunday", Schedule: "0 2 * * SUN", Duration: 2 * time.Hour}})
	if err != nil {
		t.Fatal(err)
	}
	sunday := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		at      time.Time
		want    bool
		wantEnd time.Time
	}{
		{sunday.Add(time.Hour + 59*time.Minute), false, time.Time{}},
		{sunday.Add(2 * time.Hour), true, sunday.Add(4 * time.Hour)},
		{sunday.Add(3*time.Hour + 59*time.Minute + 59*time.Second), true, sunday.Add(4 * time.Hour)},
		{sunday.Add(4 * time.Hour), false, time.Time{}},
		{sunday.Add(7*24*time.Hour + 3*time.Hour), true, sunday.Add(7*24*time.Hour + 4*time.Hour)},
		{sunday.Add(24*time.Hour + 3*time.Hour), false, time.Time{}},
	}
	for _, tt := range tests {
		if end, got := ws[0].openAt(tt.at, "any"); got != tt.want || !end.Equal(tt.wantEnd) {
			t.Errorf("open at %v = %v until %v, want %v until %v", tt.at, got, end, tt.want, tt.wantEnd)
		}
	}
}

func TestSameSettingsIgnoresWhereKeysAre(t *testing.T) {
	t.Parallel()
	decode := func(text string) *Config {
		t.Helper()
		cfg, err := decodeFile(t, text)
		if err != nil {
			t.Fatal(err)
		}
		if err := cfg.ValidateAndSetDefaults(); err != nil {
			t.Fatal(err)
		}
		return &cfg
	}
	base := decode("alerts:\n  reminder-interval: 1h\n")
	tests := []struct {
		name  string
		other *Config
		same  bool
	}{
		{"the same keys on other lines", decode("# moved\n\nalerts:\n\n  reminder-interval: 1h\n"), true},
		{"a default written out", decode("alerts:\n  reminder-interval: 1h\n  send-on-resolved: true\n"), true},
		{"a changed value", decode("alerts:\n  reminder-interval: 2h\n"), false},
		{"no section", nil, false},
	}
	for _, tt := range tests {
		if got := base.SameSettings(tt.other); got != tt.same {
			t.Errorf("%s: SameSettings = %v, want %v", tt.name, got, tt.same)
		}
	}
	var none *Config
	if !none.SameSettings(nil) {
		t.Error("two missing sections differ")
	}
}
