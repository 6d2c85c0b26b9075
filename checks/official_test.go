package checks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwatch/mcpwatch/checks/mcpschema"
	"github.com/mcpwatch/mcpwatch/internal/testkit/officialschemas"
	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// syntheticOfficial writes a directory of official-looking schema files.
func syntheticOfficial(t *testing.T, files map[string]string) *mcpschema.Official {
	t.Helper()
	dir := t.TempDir()
	for rev, content := range files {
		if err := os.MkdirAll(filepath.Join(dir, rev), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, rev, "schema.json"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	o, err := mcpschema.LoadOfficial(dir)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// crossChecked evaluates every check on res, then cross-checks with official.
func crossChecked(t *testing.T, res *probe.Result, official *mcpschema.Official) (before, after map[string]Finding) {
	t.Helper()
	reg, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	findings := reg.Evaluate(res)
	before = map[string]Finding{}
	for _, f := range findings {
		f.Evidence = append([]Evidence(nil), f.Evidence...)
		before[f.ID] = f
	}
	after = map[string]Finding{}
	for _, f := range CrossCheckOfficial(res, findings, mustSchemas(t), official) {
		after[f.ID] = f
	}
	return before, after
}

func TestOfficialSchemasAgreeOnAConformantAndABrokenSession(t *testing.T) {
	official, err := mcpschema.LoadOfficial(officialschemas.Dir(t))
	if err != nil {
		t.Fatal(err)
	}
	sessions := map[string]*probe.Result{
		"conformant": scriptedSession(protocol.TransportStdio),
		"tool schema not an object": scriptedSession(protocol.TransportStdio, func(p *sessionPlan) {
			p.toolsResult = `{"tools":[{"name":"echo","description":"d","inputSchema":{"type":"string"}}]}`
		}),
		"initialize result without serverInfo": scriptedSession(protocol.TransportStdio, initResult(
			`{"protocolVersion":"2025-06-18","capabilities":{"tools":{}}}`)),
	}
	for name, res := range sessions {
		t.Run(name, func(t *testing.T) {
			before, after := crossChecked(t, res, official)
			for _, id := range []string{"lifecycle.initialize-result", "tools.list"} {
				b, a := before[id], after[id]
				if a.Status != b.Status || len(a.Evidence) != len(b.Evidence) {
					t.Errorf("%s: %s with %d evidence became %s with %v", id, b.Status, len(b.Evidence), a.Status, a.Evidence)
				}
			}
		})
	}
}

func TestOfficialSchemaViolationsAndDisagreementsBecomeEvidence(t *testing.T) {
	// A stricter official ListToolsResult and a laxer official InitializeResult.
	official := syntheticOfficial(t, map[string]string{"2025-11-25": `{
		"$schema": "https://json-schema.org/draft/2020-12/schema",
		"$defs": {
			"InitializeResult": {"type": "object"},
			"ListToolsResult": {"type": "object", "required": ["tools", "vendorStamp"]}
		}}`})
	res := scriptedSession(protocol.TransportStdio, initResult(`{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"x"}}`))
	before, after := crossChecked(t, res, official)

	list := after["tools.list"]
	if before["tools.list"].Status != StatusPass || list.Status != StatusFail || list.Severity != SeverityError {
		t.Fatalf("tools.list %s → %s, want pass → fail", before["tools.list"].Status, list.Status)
	}
	ev := list.Evidence[len(list.Evidence)-1]
	if ev.Severity != SeverityError || !strings.Contains(ev.Message, "official schema ") ||
		!strings.Contains(ev.Message, filepath.Join("2025-11-25", "schema.json")+": the ListToolsResult does not match") ||
		!strings.Contains(ev.Message, "vendorStamp") || len(ev.Frames) != 1 {
		t.Errorf("tools.list evidence = %+v", ev)
	}
	if list.Message != ev.Message {
		t.Errorf("message %q is not the official violation", list.Message)
	}

	init := after["lifecycle.initialize-result"]
	if before["lifecycle.initialize-result"].Status != StatusFail || init.Status != StatusFail {
		t.Fatalf("lifecycle.initialize-result %s → %s, want fail → fail", before["lifecycle.initialize-result"].Status, init.Status)
	}
	note := init.Evidence[len(init.Evidence)-1]
	if note.Severity != SeverityNone || !strings.Contains(note.Message, "accepts this InitializeResult, which mcpwatch's own schema rejects") {
		t.Errorf("disagreement note = %+v", note)
	}
}

func TestOfficialSchemasMissingTheRevisionLeaveANote(t *testing.T) {
	official := syntheticOfficial(t, map[string]string{"2024-11-05": `{
		"$schema": "http://json-schema.org/draft-07/schema#",
		"definitions": {"InitializeResult": {"type": "object"}}}`})
	res := scriptedSession(protocol.TransportStdio)
	before, after := crossChecked(t, res, official)
	for _, id := range []string{"lifecycle.initialize-result", "tools.list"} {
		a := after[id]
		if a.Status != before[id].Status || len(a.Evidence) != len(before[id].Evidence)+1 {
			t.Fatalf("%s: %s → %s with %v", id, before[id].Status, a.Status, a.Evidence)
		}
		if n := a.Evidence[len(a.Evidence)-1]; n.Severity != SeverityNone || !strings.Contains(n.Message, "not checked with the official schemas") {
			t.Errorf("%s note = %+v", id, n)
		}
	}
}

func TestOfficialCrossCheckLeavesSkippedChecksAlone(t *testing.T) {
	official := syntheticOfficial(t, map[string]string{"2025-11-25": `{
		"$schema": "https://json-schema.org/draft/2020-12/schema",
		"$defs": {"ListToolsResult": false, "InitializeResult": true}}`})
	// No tools capability: tools.list is skipped even though tools/list answered.
	res := scriptedSession(protocol.TransportStdio, withCapabilities(`{}`))
	_, after := crossChecked(t, res, official)
	if f := after["tools.list"]; f.Status != StatusSkip || len(f.Evidence) != 0 {
		t.Errorf("tools.list = %s with %v", f.Status, f.Evidence)
	}
}
