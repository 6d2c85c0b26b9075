package monitor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/alert"
)

// servers is the smallest servers list, for files that test other sections.
const servers = `servers:
  - name: a
    url: http://127.0.0.1:9/mcp
`

func TestLoadConfigReadsTheAlertsSection(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		yaml  string
		check func(*alert.Config) string // "" when good
	}{
		{"no section: no alerts", servers, func(c *alert.Config) string {
			if c != nil {
				return "alerts are on"
			}
			return ""
		}},
		{"an empty section: no alerts", servers + "alerts:\n", func(c *alert.Config) string {
			if c != nil {
				return "alerts are on"
			}
			return ""
		}},
		{"an empty mapping: alerts with their defaults and no channel", servers + "alerts: {}\n", func(c *alert.Config) string {
			if c == nil || c.Down.FailureThreshold != alert.DefaultFailureThreshold || !*c.SendOnResolved || len(c.Channels) != 0 {
				return "defaults not filled"
			}
			return ""
		}},
		{"channels and thresholds", servers + `alerts:
  dashboard-url: https://status.example.com/
  reminder-interval: 4h
  down: {failure-threshold: 3, quorum: 2}
  channels:
    - name: ops
      type: slack
      webhook-url-env: SLACK_WEBHOOK_URL
`, func(c *alert.Config) string {
			if c == nil || c.DashboardURL != "https://status.example.com/" || c.ReminderInterval != 4*time.Hour ||
				c.Down.FailureThreshold != 3 || c.Down.Quorum != 2 || c.Channels[0].WebhookURLEnv != "SLACK_WEBHOOK_URL" ||
				len(c.DefaultChannels) != 1 {
				return "settings not read"
			}
			return ""
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg, err := ParseConfig("mcpwatch.yaml", []byte(tt.yaml))
			if err != nil {
				t.Fatal(err)
			}
			if problem := tt.check(cfg.Alerts); problem != "" {
				t.Errorf("%s: %+v", problem, cfg.Alerts)
			}
		})
	}
}

// The problems of the alerts section are the file's problems: each names file:line and the
// field, in file order among the others.
func TestLoadConfigAlertErrorsNameFileLineAndField(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		yaml string
		want []string // "line: field: problem prefix", after "mcpwatch.yaml:"
	}{
		{"a misspelt key", servers + `alerts:
  down:
    failure-treshold: 3
`, []string{"6:5: alerts.down.failure-treshold: unknown key"}},
		{"a value out of range", servers + `alerts:
  down:
    failure-threshold: -1
`, []string{"6:5: alerts.down.failure-threshold: must be at least 1, not -1"}},
		{"reminders too often", servers + `alerts:
  reminder-interval: 1m
`, []string{"5:3: alerts.reminder-interval: must be 0 (no reminders) or at least 5m0s"}},
		{"a duration that is a word", servers + `alerts:
  reminder-interval: soon
`, []string{`5:22: alerts.reminder-interval: want a duration such as 30s, 5m or 30d, got the string "soon"`}},
		{"a duration without a unit", servers + `alerts:
  latency:
    window: 15
`, []string{"6:13: alerts.latency.window: want a duration such as 30s, 5m or 30d, got int 15"}},
		{"a list where a string goes", servers + `alerts:
  channels:
    - name: ops
      type: slack
      webhook-url-env: [A, B]
`, []string{"8:24: alerts.channels[0].webhook-url-env: want a string, got a list"}},
		{"a channel without its secret", servers + `alerts:
  channels:
    - name: ops
      type: slack
`, []string{"6:7: alerts.channels[0]: a slack channel needs webhook-url-env or token-env"}},
		{"a route to a channel that does not exist", servers + `alerts:
  channels:
    - {name: ops, type: webhook, url-env: HOOK}
  routes:
    - servers: ["payments-*"]
      channels: [oncall]
`, []string{`9:18: alerts.routes[0].channels[0]: no channel is named "oncall"`}},
		{"not a mapping", servers + "alerts: yes\n", []string{"4:9: alerts: want a mapping of alert settings"}},
		{"problems of both sections, in file order", `concurrency: 0
alerts:
  send-on-resolved: maybe
` + servers + "    timeout: 1h\n", []string{
			"1:14: concurrency: 0 is out of range",
			`3:21: alerts.send-on-resolved: want true or false, got the string "maybe"`,
			"7:14: servers[0].timeout: 1h0m0s is out of range",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseConfig("mcpwatch.yaml", []byte(tt.yaml))
			assertConfigErrors(t, err, "mcpwatch.yaml", tt.want)
		})
	}
}

// The example of docs/alerts.md is a valid alerts section of the monitor's file.
func TestTheDocumentedAlertsExampleIsValid(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(filepath.Join("..", "docs", "alerts.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "```yaml\n")
	example, _, closed := strings.Cut(rest, "```")
	if !ok || !closed || !strings.HasPrefix(example, "alerts:") {
		t.Fatal("docs/alerts.md has no yaml example of the alerts section first")
	}
	cfg, err := ParseConfig("docs/alerts.md", []byte(servers+example))
	if err != nil {
		t.Fatalf("the documented example: %v", err)
	}
	if cfg.Alerts == nil || len(cfg.Alerts.Channels) == 0 {
		t.Errorf("the documented example read as %+v", cfg.Alerts)
	}
}
