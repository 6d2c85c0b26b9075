package report

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpwatch/mcpwatch/checks"
	"github.com/mcpwatch/mcpwatch/probe"
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
	res := &probe.Result{Requested: rev, Transport: probe.TransportHTTP}
	if accepted {
		res.Negotiated = rev
		if probe.Stateless(rev) {
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
