package checks

import (
	"slices"
	"strings"
	"testing"

	"github.com/mcpwatch/mcpwatch/protocol"
)

func TestVersionSupportAcrossRevisions(t *testing.T) {
	legacy := scriptedSession(protocol.TransportHTTP, func(p *sessionPlan) {})
	legacy.Requested, legacy.Negotiated, legacy.ProtocolVersion = "2025-11-25", "2025-11-25", "2025-11-25"
	older := scriptedSession(protocol.TransportHTTP, func(p *sessionPlan) {})
	older.Requested, older.Negotiated, older.ProtocolVersion = "2024-11-05", "2025-11-25", "2025-11-25"
	stateless := defaultStatelessPlan(protocol.TransportHTTP).result()
	refused := defaultStatelessPlan(protocol.TransportHTTP)
	refused.discover = errorReply(-32601, "method not found")
	refusedRes := refused.result()
	refusedRes.Negotiated = ""

	f := VersionSupport([]RevisionOutcome{
		{Revision: "2024-11-05", Result: older},
		{Revision: "2025-11-25", Result: legacy},
		{Revision: "2026-07-28", Result: stateless},
	})
	if f.Status != StatusInfo || f.ID != "lifecycle.version-support" {
		t.Fatalf("%s %s, want the info finding lifecycle.version-support", f.ID, f.Status)
	}
	if got := f.Data["accepted"].([]string); !slices.Equal(got, []string{"2025-11-25", "2026-07-28"}) {
		t.Errorf("accepted %v", got)
	}
	if !strings.Contains(f.Message, "not 2024-11-05 (answered 2025-11-25)") {
		t.Errorf("message %q does not say what 2024-11-05 got", f.Message)
	}

	f = VersionSupport([]RevisionOutcome{{Revision: "2025-11-25", Result: legacy}, {Revision: "2026-07-28", Result: refusedRes}})
	if !strings.Contains(f.Message, "not 2026-07-28 (server/discover got JSON-RPC error -32601") {
		t.Errorf("message %q does not say what server/discover got", f.Message)
	}
	if got := f.Data["rejected"].([]string); !slices.Equal(got, []string{"2026-07-28"}) {
		t.Errorf("rejected %v", got)
	}
}

func TestVersionSupportOfOneProbe(t *testing.T) {
	f := evaluateOne(statelessCheck(t, "lifecycle.version-support"), NewCapture(defaultStatelessPlan(protocol.TransportStdio).result()))
	if f.Status != StatusInfo || !strings.Contains(f.Message, `offered 2026-07-28: accepted; server/discover lists ["2026-07-28"]`) {
		t.Errorf("%s %q", f.Status, f.Message)
	}
}
