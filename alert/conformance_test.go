package alert

import (
	"strings"
	"testing"
)

func checkResults(statuses ...string) []CheckResult {
	var out []CheckResult
	for i := 0; i+1 < len(statuses); i += 2 {
		out = append(out, CheckResult{ID: statuses[i], Status: statuses[i+1], Message: statuses[i] + " says " + statuses[i+1], Rule: "B3"})
	}
	return out
}

func withChecks(o Observation, statuses ...string) Observation {
	o.Checks = checkResults(statuses...)
	return o
}

func TestConformanceAlert(t *testing.T) {
	t.Parallel()
	const ping = "lifecycle.ping"
	tests := []struct {
		name  string
		cfg   Config
		steps []simStep
	}{
		{"a check that passed and fails now fires, and resolves when it passes", config(only(KindConformance)), []simStep{
			{withChecks(obs(0, "eu", up), ping, "pass"), none()},
			{withChecks(obs(1*m, "eu", degraded), ping, "fail"), ev("fired conformance lifecycle.ping")},
			{withChecks(obs(2*m, "eu", degraded), ping, "fail"), none()},
			{withChecks(obs(3*m, "eu", up), ping, "pass"), ev("resolved conformance lifecycle.ping")},
			{withChecks(obs(4*m, "eu", degraded), ping, "fail"), ev("fired conformance lifecycle.ping")},
		}},
		{"a check never seen passing does not fire", config(only(KindConformance)), []simStep{
			{withChecks(obs(0, "eu", degraded), ping, "fail"), none()},
			{withChecks(obs(1*m, "eu", degraded), ping, "fail"), none()},
		}},
		{"a skipped check neither fires nor resolves", config(only(KindConformance)), []simStep{
			{withChecks(obs(0, "eu", up), ping, "pass"), none()},
			{withChecks(obs(1*m, "eu", degraded), ping, "fail"), ev("fired conformance lifecycle.ping")},
			{withChecks(obs(2*m, "eu", degraded), ping, "skip"), none()},
			{withChecks(obs(3*m, "eu", degraded), ping, "fail"), none()},
			{withChecks(obs(4*m, "eu", up), ping, "pass"), ev("resolved conformance lifecycle.ping")},
		}},
		{"an untested check neither fires nor resolves", config(only(KindConformance)), []simStep{
			{withChecks(obs(0, "eu", up), ping, "pass"), none()},
			{withChecks(obs(1*m, "eu", degraded), ping, "fail"), ev("fired conformance lifecycle.ping")},
			{withChecks(obs(2*m, "eu", degraded), ping, CheckUntested), none()},
			{withChecks(obs(3*m, "eu", degraded), ping, "fail"), none()},
			{withChecks(obs(4*m, "eu", up), ping, "pass"), ev("resolved conformance lifecycle.ping")},
		}},
		{"an untested check is not the previous verdict: pass, untested, fail fires", config(only(KindConformance)), []simStep{
			{withChecks(obs(0, "eu", up), ping, "pass"), none()},
			{withChecks(obs(1*m, "eu", degraded), ping, CheckUntested), none()},
			{withChecks(obs(2*m, "eu", degraded), ping, "fail"), ev("fired conformance lifecycle.ping")},
		}},
		{"an untested check is not a pass: untested then fail does not fire", config(only(KindConformance)), []simStep{
			{withChecks(obs(0, "eu", up), ping, CheckUntested), none()},
			{withChecks(obs(1*m, "eu", degraded), ping, "fail"), none()},
		}},
		{"a down run is the down alert's: its failing checks neither fire nor count as the previous run", config(only(KindConformance)), []simStep{
			{withChecks(obs(0, "eu", up), "lifecycle.initialize", "pass", ping, "pass"), none()},
			{withChecks(obs(1*m, "eu", down), "lifecycle.initialize", "fail", ping, "skip"), none()},
			{withChecks(obs(2*m, "eu", down), "lifecycle.initialize", "fail", ping, "skip"), none()},
			{withChecks(obs(3*m, "eu", degraded), "lifecycle.initialize", "pass", ping, "fail"), ev("fired conformance lifecycle.ping")},
			{withChecks(obs(4*m, "eu", down), "lifecycle.initialize", "fail", ping, "skip"), none()},
			{withChecks(obs(5*m, "eu", up), "lifecycle.initialize", "pass", ping, "pass"), ev("resolved conformance lifecycle.ping")},
		}},
		{"a check that passed before an outage and fails after it fires", config(only(KindConformance)), []simStep{
			{withChecks(obs(0, "eu", up), ping, "pass"), none()},
			{withChecks(obs(1*m, "eu", degraded), ping, "skip"), none()},
			{withChecks(obs(2*m, "eu", degraded), ping, "fail"), ev("fired conformance lifecycle.ping")},
		}},
		{"a warning is not a failure: it resolves, and warn to fail fires", config(only(KindConformance)), []simStep{
			{withChecks(obs(0, "eu", up), ping, "pass"), none()},
			{withChecks(obs(1*m, "eu", degraded), ping, "fail"), ev("fired conformance lifecycle.ping")},
			{withChecks(obs(2*m, "eu", up), ping, "warn"), ev("resolved conformance lifecycle.ping")},
			{withChecks(obs(3*m, "eu", degraded), ping, "fail"), ev("fired conformance lifecycle.ping")},
		}},
		{"each check is an alert of its own", config(only(KindConformance)), []simStep{
			{withChecks(obs(0, "eu", up), ping, "pass", "tools.list", "pass"), none()},
			{withChecks(obs(1*m, "eu", degraded), ping, "fail", "tools.list", "pass"), ev("fired conformance lifecycle.ping")},
			{withChecks(obs(2*m, "eu", degraded), ping, "fail", "tools.list", "fail"), ev("fired conformance tools.list")},
			{withChecks(obs(3*m, "eu", degraded), ping, "pass", "tools.list", "fail"), ev("resolved conformance lifecycle.ping")},
		}},
		{"the previous run of another region counts as the previous run", config(only(KindConformance)), []simStep{
			{withChecks(obs(0, "eu", up), ping, "pass"), none()},
			{withChecks(obs(1*m, "us", degraded), ping, "fail"), ev("fired conformance lifecycle.ping")},
		}},
		{"ignored and unselected checks do not fire", config(only(KindConformance), func(c *Config) {
			c.Conformance.Checks = []string{"tools.*", "lifecycle.ping"}
			c.Conformance.Ignore = []string{"tools.description"}
		}), []simStep{
			{withChecks(obs(0, "eu", up), ping, "pass", "tools.description", "pass", "jsonrpc.id", "pass", "tools.list", "pass"), none()},
			{withChecks(obs(1*m, "eu", degraded), ping, "fail", "tools.description", "fail", "jsonrpc.id", "fail", "tools.list", "fail"),
				ev("fired conformance lifecycle.ping", "fired conformance tools.list")},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			runScenario(t, tt.cfg, tt.steps)
		})
	}
}

func TestConformanceEvidenceNamesCheckMessageAndRule(t *testing.T) {
	t.Parallel()
	s := newSim(t, config(only(KindConformance)))
	s.observe(withChecks(obs(0, "eu", up), "lifecycle.ping", "pass"))
	o := obs(1*m, "eu", degraded)
	o.Checks = []CheckResult{{ID: "lifecycle.ping", Status: CheckFail, Message: "ping answered with JSON-RPC error -32601",
		Rule: "B6", Spec: "https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/ping"}}
	events := s.observe(o)
	if len(events) != 1 {
		t.Fatalf("events %q", eventTexts(events))
	}
	msg := decodeMessage(t, events[0].Outbox[0].Payload)
	if msg.Key != "lifecycle.ping" || msg.Rule != "B6" || msg.Spec != o.Checks[0].Spec ||
		!strings.Contains(msg.Summary, "JSON-RPC error -32601") {
		t.Errorf("message %+v", msg)
	}
}
