//go:build !checkonly

package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// alertReceiver stands in for Slack's incoming webhooks and a generic webhook, on loopback.
type alertReceiver struct {
	srv    *httptest.Server
	mu     sync.Mutex
	bodies map[string][]string
	status map[string]int
}

func newAlertReceiver(t *testing.T) *alertReceiver {
	r := &alertReceiver{bodies: map[string][]string{}, status: map[string]int{}}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.bodies[req.URL.Path] = append(r.bodies[req.URL.Path], string(body))
		status := r.status[req.URL.Path]
		r.mu.Unlock()
		if status != 0 {
			http.Error(w, "no_service", status)
			return
		}
		_, _ = io.WriteString(w, "ok")
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *alertReceiver) received(path string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.bodies[path]
}

const alertsConfig = `
servers: []   # the monitor's part of the file
alerts:
  dashboard-url: https://status.example.com
  channels:
    - name: ops
      type: slack
      webhook-url-env: TEST_SLACK_HOOK
    - name: pager
      type: webhook
      url-env: TEST_PAGER_URL
      headers:
        - {name: Authorization, from-env: TEST_PAGER_TOKEN, prefix: "Bearer "}
`

func writeConfig(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "mcpwatch.yaml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func runAlerts(t *testing.T, vars map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	env := environment{stdout: &out, stderr: &errOut, lookupEnv: func(k string) (string, bool) { v, ok := vars[k]; return v, ok }}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	code = env.alerts(ctx, args)
	return code, out.String(), errOut.String()
}

func TestAlertsTestSendsASampleToEachChannel(t *testing.T) {
	t.Parallel()
	r := newAlertReceiver(t)
	vars := map[string]string{
		"TEST_SLACK_HOOK":  r.srv.URL + "/services/T1/B1/hooksecret",
		"TEST_PAGER_URL":   r.srv.URL + "/pager",
		"TEST_PAGER_TOKEN": "pagersecret",
	}
	code, stdout, stderr := runAlerts(t, vars, "test", "--config", writeConfig(t, alertsConfig))
	if code != exitOK {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "ok    ops") || !strings.Contains(stdout, "ok    pager") {
		t.Errorf("stdout %q", stdout)
	}
	slack := r.received("/services/T1/B1/hooksecret")
	if len(slack) != 1 || !strings.Contains(slack[0], "mcpwatch test message") || !strings.Contains(slack[0], "channel ops") {
		t.Errorf("slack got %q", slack)
	}
	pager := r.received("/pager")
	if len(pager) != 1 || !strings.Contains(pager[0], `"event":"test"`) {
		t.Errorf("pager got %q", pager)
	}
}

func TestAlertsTestReportsAFailingChannelWithoutItsSecret(t *testing.T) {
	t.Parallel()
	r := newAlertReceiver(t)
	r.status["/services/T1/B1/hooksecret"] = http.StatusNotFound
	vars := map[string]string{
		"TEST_SLACK_HOOK":  r.srv.URL + "/services/T1/B1/hooksecret",
		"TEST_PAGER_URL":   r.srv.URL + "/pager",
		"TEST_PAGER_TOKEN": "pagersecret",
	}
	code, stdout, stderr := runAlerts(t, vars, "test", "--config", writeConfig(t, alertsConfig), "--channel", "ops")
	if code != exitFailed || !strings.Contains(stdout, "FAIL  ops") || !strings.Contains(stdout, "404") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if strings.Contains(stdout+stderr, "hooksecret") {
		t.Errorf("output shows the webhook secret: %s%s", stdout, stderr)
	}
	if len(r.received("/pager")) != 0 {
		t.Error("--channel ops also sent to pager")
	}
}

func TestAlertsTestFailures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		config string
		vars   map[string]string
		args   []string
		code   int
		stderr string
	}{
		{"a missing secret is named", alertsConfig, map[string]string{"TEST_PAGER_URL": "http://127.0.0.1:1/x", "TEST_PAGER_TOKEN": "x"}, nil,
			exitFailed, "$TEST_SLACK_HOOK"},
		{"an invalid file names the file and line", "alerts:\n  channels:\n    - name: ops\n      type: carrier-pigeon\n", nil, nil,
			exitFailed, "mcpwatch.yaml:4:7: alerts.channels[0].type: must be slack or webhook"},
		{"an unknown key names the file and line", "alerts:\n  reminder: 1h\n", nil, nil,
			exitFailed, "mcpwatch.yaml:2:3: alerts.reminder: unknown key"},
		{"a syntax error names the line and column at fault", "alerts:\n  channels:\n    - name: ops\n   type: slack\n", nil, nil,
			exitFailed, "mcpwatch.yaml:4:4: not valid YAML: did not find expected key\n"},
		{"a value of the wrong type names the line, column and key", "alerts:\n  reminder-interval: [1h]\n", nil, nil,
			exitFailed, "mcpwatch.yaml:2:22: alerts.reminder-interval: want a duration such as 30s, 5m or 30d, got a list\n"},
		{"a file without alerts", "servers: []\n", nil, nil, exitFailed, "has no alerts section"},
		{"no channels", "alerts: {}\n", nil, nil, exitFailed, "has no channels"},
		{"an unknown channel", alertsConfig, nil, []string{"--channel", "nope"}, exitUsage, `--channel "nope"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"test", "--config", writeConfig(t, tt.config)}, tt.args...)
			code, _, stderr := runAlerts(t, tt.vars, args...)
			if code != tt.code || !strings.Contains(stderr, tt.stderr) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, tt.code, tt.stderr)
			}
		})
	}
}

func TestAlertsUsage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		code int
		out  string
	}{
		{nil, exitUsage, "prober alerts test --config FILE"},
		{[]string{"test"}, exitUsage, "--config FILE is required"},
		{[]string{"test", "--config", "x.yaml", "extra"}, exitUsage, `unexpected argument "extra"`},
		{[]string{"test", "--bogus"}, exitUsage, "flag provided but not defined"},
		{[]string{"send"}, exitUsage, `unknown command "send"`},
		{[]string{"--help"}, exitOK, "Exit codes"},
		{[]string{"test", "--help"}, exitOK, "Exit codes"},
	}
	for _, tt := range tests {
		code, stdout, stderr := runAlerts(t, nil, tt.args...)
		if code != tt.code || !strings.Contains(stdout+stderr, tt.out) {
			t.Errorf("prober alerts %q: exit %d, output %q; want %d and %q", tt.args, code, stdout+stderr, tt.code, tt.out)
		}
	}
}
