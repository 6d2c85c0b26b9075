package report

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpwatch/mcpwatch/checks"
	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

func finding(id string, status checks.Status) checks.Finding {
	f := checks.Finding{ID: id, Status: status, Message: string(status), Area: strings.Split(id, ".")[0]}
	if status == checks.StatusFail {
		f.Severity = checks.SeverityError
		f.Evidence = []checks.Evidence{{Severity: checks.SeverityError, Message: "broken", Frames: []int{0}}}
	}
	return f
}

func revisionResult(rev string, accepted bool) *probe.Result {
	res := &probe.Result{Requested: rev, Transport: protocol.TransportHTTP}
	if accepted {
		res.Negotiated = rev
		if protocol.Stateless(rev) {
			res.Discover = json.RawMessage(`{}`)
		} else {
			res.Initialize = json.RawMessage(`{}`)
		}
	}
	return res
}

func TestAddRevisionsListsProblemsThatDifferAndJudgesAcceptedRevisions(t *testing.T) {
	main := revisionResult("2026-07-28", true)
	mainFindings := []checks.Finding{
		finding("lifecycle.ping", checks.StatusSkip),
		finding("tools.list", checks.StatusPass),
		finding("tools.description", checks.StatusPass),
		finding("lifecycle.version-support", checks.StatusInfo),
	}
	rep := Build(main, mainFindings, BuildOptions{})
	runs := []RevisionRun{
		{Result: revisionResult("2025-11-25", true), Findings: []checks.Finding{
			finding("lifecycle.ping", checks.StatusPass), // exists here only: no difference worth a line
			finding("tools.list", checks.StatusFail),     // breaks here only
			finding("tools.description", checks.StatusPass),
		}},
		{Result: revisionResult("2024-11-05", false), Findings: []checks.Finding{
			finding("tools.list", checks.StatusFail),
		}},
		{Result: main},
	}
	AddRevisions(rep, runs, 2, BuildOptions{})
	if len(rep.Revisions) != 3 {
		t.Fatalf("%d revisions", len(rep.Revisions))
	}
	r1125 := rep.Revisions[0]
	if len(r1125.Differences) != 1 || r1125.Differences[0].ID != "tools.list" || r1125.Verdict != VerdictFail {
		t.Errorf("2025-11-25: verdict %s, differences %+v; want tools.list alone and a failing verdict", r1125.Verdict, r1125.Differences)
	}
	if r := rep.Revisions[1]; r.Accepted || r.Verdict != VerdictFail {
		t.Errorf("2024-11-05: accepted %v verdict %s", r.Accepted, r.Verdict)
	}
	if r := rep.Revisions[2]; !r.Main || r.Verdict != VerdictPass || len(r.Differences) != 0 {
		t.Errorf("the main revision: %+v", r)
	}
	if rep.Verdict != VerdictFail || strings.Join(rep.FailingRevisions(), ",") != "2025-11-25" {
		t.Errorf("verdict %s, failing %v: an accepted failing revision fails the report, a refused one does not", rep.Verdict, rep.FailingRevisions())
	}
	var support Check
	for _, c := range rep.Checks {
		if c.ID == "lifecycle.version-support" {
			support = c
		}
	}
	if !strings.HasPrefix(support.Message, "accepts 2025-11-25, 2026-07-28; not 2024-11-05") {
		t.Errorf("lifecycle.version-support: %q", support.Message)
	}

	// Without the failing revision, a refused one alone fails nothing.
	rep = Build(main, mainFindings, BuildOptions{})
	AddRevisions(rep, runs[1:], 1, BuildOptions{})
	if rep.Verdict != VerdictPass {
		t.Errorf("verdict %s: a revision the server does not accept must not fail the report", rep.Verdict)
	}
}

func TestServerInfoOfAStatelessServerComesFromDiscover(t *testing.T) {
	res := &probe.Result{Requested: "2026-07-28", Negotiated: "2026-07-28",
		Discover: json.RawMessage(`{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"2"}}}`)}
	rep := Build(res, nil, BuildOptions{})
	if name, version := rep.ServerName(); name != "s" || version != "2" {
		t.Errorf("server %q %q", name, version)
	}
}

// A --protocol-version all report whose main revision passes but another accepted revision
// fails: the verdict fails, so the summary must count the failure, JUnit, GitHub and SARIF
// must carry it, and the text and Markdown reports must show its evidence (from that
// revision's transcript), not only its ID.
func TestAllRevisionsSummaryAgreesWithVerdictAndShowsTheEvidenceOfDifferences(t *testing.T) {
	main := revisionResult("2026-07-28", true)
	mainFindings := []checks.Finding{
		finding("tools.list", checks.StatusPass),
		finding("http.origin", checks.StatusSkip),
		// The main probe's own fact is replaced by the one over every revision.
		finding("lifecycle.version-support", checks.StatusSkip),
	}
	rep := Build(main, mainFindings, BuildOptions{})
	other := revisionResult("2025-11-25", true)
	other.Frames = httpRuleResult().Frames
	// 2025-11-25 basic/transports, Security Warning: "If the Origin header is present and
	// invalid, servers MUST respond with HTTP 403 Forbidden."
	origin := checks.Finding{ID: "http.origin", Status: checks.StatusFail, Severity: checks.SeverityError, Area: "http",
		Message: "initialize with a foreign Origin: expected HTTP 403, got HTTP 200",
		Hint:    "reject requests whose Origin header is present and not an allowed origin with 403",
		Evidence: []checks.Evidence{{Severity: checks.SeverityError,
			Message: "initialize with a foreign Origin: expected HTTP 403, got HTTP 200", Frames: []int{0, 1}}}}
	runs := []RevisionRun{
		{Result: other, Findings: []checks.Finding{finding("tools.list", checks.StatusPass), origin}},
		{Result: main},
	}
	AddRevisions(rep, runs, 1, BuildOptions{})

	if rep.Verdict != VerdictFail {
		t.Fatalf("verdict %s: an accepted revision fails", rep.Verdict)
	}
	if rep.Summary.Failing != 1 {
		t.Errorf("summary counts %d failing checks, but the verdict fails on http.origin under 2025-11-25", rep.Summary.Failing)
	}
	var counted Summary
	for _, c := range rep.Checks {
		counted.add(c, false)
	}
	if counted.Pass != rep.Summary.Pass || counted.Skip != rep.Summary.Skip || counted.Info != rep.Summary.Info || counted.Total != rep.Summary.Total {
		t.Errorf("summary %+v does not count the report's checks %+v", rep.Summary, counted)
	}

	var junit strings.Builder
	if err := WriteJUnit(&junit, rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(junit.String(), `failures="1"`) || !strings.Contains(junit.String(), `name="http.origin under 2025-11-25"`) {
		t.Errorf("the JUnit report does not count the failure of 2025-11-25:\n%s", junit.String())
	}
	var gh strings.Builder
	if err := WriteGitHub(&gh, rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(gh.String(), "::error title=mcpwatch http.origin under 2025-11-25::Fails under 2025-11-25") {
		t.Errorf("no GitHub error annotation for the failure under 2025-11-25:\n%s", gh.String())
	}
	if !strings.Contains(gh.String(), "1 info; failing under 2025-11-25)") {
		t.Errorf("the GitHub log group does not say which revision fails:\n%s", gh.String())
	}
	var sarif strings.Builder
	if err := WriteSARIF(&sarif, rep, ""); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sarif.String(), `"ruleId": "http.origin"`) || !strings.Contains(sarif.String(), "Under 2025-11-25 (also accepted by the server): http.origin") {
		t.Errorf("no SARIF result for the failure under 2025-11-25:\n%s", sarif.String())
	}
	var doc any
	if err := json.Unmarshal([]byte(sarif.String()), &doc); err != nil {
		t.Fatalf("SARIF is not JSON: %v", err)
	}
	if err := sarifSchema(t).Validate(doc); err != nil {
		t.Errorf("SARIF with a result under another revision does not validate: %v", err)
	}
	for _, format := range []string{"text", "markdown"} {
		f, _ := LookupFormat(format)
		var b strings.Builder
		if err := f.Write(&b, rep, WriteOptions{Width: 200}); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		for _, want := range []string{
			"Only in other accepted revisions",
			"expected HTTP 403, got HTTP 200",                // the evidence message
			`{"jsonrpc":"2.0","id":1,"method":"initialize"}`, // the frame of the other revision
			"Origin: " + probe.ForeignOrigin,                 // the header the rule is about
			"2025-11-25",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("%s report lacks %q:\n%s", format, want, out)
			}
		}
	}
}
