//go:build !checkonly

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/testkit/syncbuf"

	"github.com/mcpwatch/mcpwatch/alert/alerttest"
	"github.com/mcpwatch/mcpwatch/internal/testkit/fixture"
	"github.com/mcpwatch/mcpwatch/internal/testkit/pgtest"
)

// prober run with an alerts section pages Slack about a server that does not initialize,
// with the exact code and a link under --dashboard-url, once.
func TestRunSendsAlertsWithTheDashboardLink(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	slack := alerttest.NewSlack(t)
	dir := t.TempDir()
	config := filepath.Join(dir, "mcpwatch.yaml")
	writeFile(t, config, fmt.Sprintf(`servers:
  - name: broken
    url: %s
    schedule: "@every 1s"
    timeout: 5s
alerts:
  dashboard-url: https://overridden.example.com
  latency: {enabled: false}
  delivery: {poll-interval: 50ms}
  channels:
    - name: ops
      type: slack
      webhook-url-env: %s
`, serveFixture(t, fixture.InitError), alerttest.EnvWebhookURL))
	var stdout bytes.Buffer
	var stderr syncbuf.Buffer
	env := environment{stdout: &stdout, stderr: &stderr, lookupEnv: slack.Env()}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	code := make(chan int, 1)
	go func() {
		code <- env.runMonitor(ctx, []string{"--config", config, "--database-url", db.URL, "--worker", "w1",
			"--spool-dir", filepath.Join(dir, "spool"), "--dashboard-url", "https://status.example.com"}, make(chan os.Signal))
	}()

	reqs := slack.WaitFor(t, 1, time.Minute)
	for _, want := range []string{"broken is down", "JSON-RPC error -32603", "https://status.example.com/servers/broken"} {
		if !strings.Contains(reqs[0].Body, want) {
			t.Errorf("the message lacks %q: %s", want, reqs[0].Body)
		}
	}
	time.Sleep(2 * time.Second) // two more down runs: still one message
	cancel()
	expectCleanStop(t, code, &stderr)
	if got := len(slack.Requests()); got != 1 {
		t.Errorf("%d messages, want 1", got)
	}
	logs := stderr.String()
	if !strings.Contains(logs, "alerts on") || strings.Contains(logs, "hooksecret") {
		t.Errorf("the log does not say alerts are on, or holds the webhook's secret:\n%s", logs)
	}
}

func TestRunRefusesAlertsItCannotSend(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	config := filepath.Join(dir, "mcpwatch.yaml")
	writeFile(t, config, `servers:
  - name: a
    url: http://127.0.0.1:1/mcp
alerts:
  channels:
    - name: ops
      type: slack
      webhook-url-env: SLACK_WEBHOOK_URL
`)
	badAlerts := filepath.Join(dir, "bad.yaml")
	writeFile(t, badAlerts, `servers:
  - name: a
    url: http://127.0.0.1:1/mcp
alerts:
  down:
    failure-threshold: -1
`)
	// No database is reachable: these are refused before one is needed.
	db := "postgres://x@127.0.0.1:1/db"
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"a channel whose secret is not set", []string{"--config", config, "--database-url", db}, nil,
			"channel ops: webhook-url-env names $SLACK_WEBHOOK_URL, which is empty or unset"},
		{"an invalid alerts section", []string{"--config", badAlerts, "--database-url", db}, nil,
			badAlerts + ":6:5: alerts.down.failure-threshold: must be at least 1"},
		{"a dashboard URL that is not one", []string{"--config", config, "--database-url", db, "--dashboard-url", "status.example.com"},
			map[string]string{"SLACK_WEBHOOK_URL": "https://hooks.slack.com/services/x"}, `--dashboard-url "status.example.com": want the http(s) URL`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var out, errb bytes.Buffer
			code := testEnv(&out, &errb, tt.env).runMonitor(t.Context(), tt.args, nil)
			if code != exitUsage || !strings.Contains(out.String()+errb.String(), tt.want) {
				t.Errorf("exit %d, output %q; want %d and %q", code, out.String()+errb.String(), exitUsage, tt.want)
			}
		})
	}
}

func TestRunHelpTeachesAlerts(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	if code := testEnv(&out, &errb, nil).runMonitor(t.Context(), []string{"--help"}, nil); code != exitOK {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"--dashboard-url URL", "URL/servers/NAME", "alerts: section", "docs/alerts.md", "prober alerts test"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("run help lacks %q", want)
		}
	}
}
