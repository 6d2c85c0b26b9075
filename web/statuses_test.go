package web

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/store"
)

// testUntestedFindings: a check the run could not judge is listed apart from the skipped
// ones and the passes, and the conformance tile counts it.
func testUntestedFindings(t *testing.T, f *fleet) {
	v, err := f.store.UpsertServer(f.ctx, store.Server{Name: "half-judged", Source: store.SourceConfig,
		Transport: "http", URL: "https://half.example.com/mcp", Schedule: "@every 1m", Timeout: time.Second, Enabled: true})
	if err != nil {
		t.Fatal(err)
	}
	start := f.now.Add(-time.Minute)
	run := store.RunRecord{ID: store.NewRunID(start), ServerID: v.ID, Region: "eu", Worker: "w", Start: start,
		Duration: 30 * time.Millisecond, Outcome: store.OutcomeUp, ProtocolVersion: "2025-11-25",
		Findings: []store.FindingRecord{
			{CheckID: "lifecycle.initialize", Status: "pass", Message: "ok"},
			{CheckID: "tools.description", Status: "warn", Severity: "advice", Message: `tool "bare" has no description`},
			{CheckID: "lifecycle.capabilities", Status: "untested", Message: "no list method was sent: the probe stopped early"},
			{CheckID: "tls.certificate", Status: "skip", Message: "the target is not https"},
		}}
	if _, err := f.store.WriteRuns(f.ctx, []store.RunRecord{run}); err != nil {
		t.Fatal(err)
	}
	page := f.mustGet(t, serverHref(v.Name))
	untested := between(page, `<div id="untested">`, `</div>`+"\n")
	others := between(page, `<details id="others">`, `</details>`)
	if !strings.Contains(untested, "1 check untested") || !strings.Contains(untested, "<code>lifecycle.capabilities</code>") ||
		!strings.Contains(untested, "the probe stopped early") {
		t.Errorf("no untested section naming the check and why:\n%s", clipForLog(page))
	}
	if strings.Contains(others, "lifecycle.capabilities") || !strings.Contains(others, "tls.certificate") {
		t.Errorf("the untested check is among the skipped and facts:\n%s", others)
	}
	if !strings.Contains(page, "0 failed · 0 warned · 1 advice · 1 untested") {
		t.Errorf("the conformance tile does not count advice and untested apart:\n%s", clipForLog(page))
	}
}

// between is the part of s after the first from and up to the next to ("" without from).
func between(s, from, to string) string {
	i := strings.Index(s, from)
	if i < 0 {
		return ""
	}
	rest := s[i+len(from):]
	if j := strings.Index(rest, to); j >= 0 {
		return rest[:j]
	}
	return rest
}
