package checks

import (
	"strings"
	"testing"

	"github.com/mcpwatch/mcpwatch/protocol"
)

// TestEveryCheckKeepsItsIDRuleAndTransport holds the registry to docs/checks.md: the IDs are a
// public contract (baselines, the database, alert rules and the dashboard key on them), and so
// are their rule letters and transports. A check added to the registry fails this test until
// it is added here; one that disappears or changes its rule or transport fails it too.
func TestEveryCheckKeepsItsIDRuleAndTransport(t *testing.T) {
	want := []struct{ id, rule, transport string }{
		{"jsonrpc.parse", "A1", ""},
		{"jsonrpc.version", "A1", ""},
		{"jsonrpc.message-shape", "A1, A5", ""},
		{"jsonrpc.id-echo", "A2, A4", ""},
		{"jsonrpc.error-shape", "A6", ""},
		{"jsonrpc.null-id", "A4", ""},
		{"jsonrpc.notification-silence", "A7", ""},
		{"jsonrpc.batch", "A8", ""},
		{"lifecycle.initialize", "C1, C2", ""},
		{"lifecycle.initialize-result", "C2", ""},
		{"lifecycle.version-negotiation", "C3", ""},
		{"lifecycle.ping", "C6", ""},
		{"lifecycle.unknown-method", "B", ""},
		{"lifecycle.capabilities", "C5, E5", ""},
		{"lifecycle.early-messages", "C4", ""},
		{"lifecycle.parse-error", "A, B", ""},
		{"lifecycle.invalid-request", "A, B", ""},
		{"discover.result", "C'", ""},
		{"discover.unsupported-version", "C'", ""},
		{"discover.meta-required", "C'", ""},
		{"results.result-type", "A9", ""},
		{"results.cache-hints", "C'", ""},
		{"stateless.headers", "G8", protocol.TransportHTTP},
		{"stateless.removed-methods", "26", ""},
		{"stateless.no-session", "26", protocol.TransportHTTP},
		{"stateless.get-delete", "26", protocol.TransportHTTP},
		{"stateless.server-requests", "F6, 26", ""},
		{"discover.version-error", "26", ""},
		{"tools.list", "E1", ""},
		{"tools.pagination", "D", ""},
		{"tools.input-schema", "E1, E3", ""},
		{"tools.output-schema", "E2", ""},
		{"tools.name-format", "E4", ""},
		{"tools.description", "E", ""},
		{"tools.fingerprint", "", ""},
		{"tools.unknown-tool", "B", ""},
		{"tools.call-result", "-", ""},
		{"tools.structured-content", "-", ""},
		{"tools.invalid-arguments", "-", ""},
		{"tools.call-expectations", "-", ""},
		{"tools.invalid-cursor", "D", ""},
		{"resources.list", "D", ""},
		{"resources.templates-list", "D", ""},
		{"prompts.list", "D", ""},
		{"resources.read", "A1", ""},
		{"resources.read-unknown", "B", ""},
		{"resources.subscribe", "C5", ""},
		{"prompts.get", "-", ""},
		{"prompts.get-invalid", "B", ""},
		{"completion.complete", "C5", ""},
		{"logging.set-level", "-", ""},
		{"logging.messages", "C5", ""},
		{"stdio.stdout-purity", "F1, F2, F4", protocol.TransportStdio},
		{"stdio.spawn", "-", protocol.TransportStdio},
		{"stdio.shutdown", "C7", protocol.TransportStdio},
		{"http.status", "G3", protocol.TransportHTTP},
		{"http.content-type", "G3", protocol.TransportHTTP},
		{"http.notification-accepted", "G4", protocol.TransportHTTP},
		{"http.sse-framing", "G5", protocol.TransportHTTP},
		{"http.session", "G7", protocol.TransportHTTP},
		{"http.protocol-version-header", "G8", protocol.TransportHTTP},
		{"http.get-stream", "G6", protocol.TransportHTTP},
		{"http.origin", "G9", ""},
		{"http.delete-session", "G7", protocol.TransportHTTP},
		{"sse.endpoint-event", "H", protocol.TransportSSE},
		{"sse.message-events", "H", protocol.TransportSSE},
		{"auth.challenge", "I", protocol.TransportHTTP},
		{"auth.resource-metadata", "I", protocol.TransportHTTP},
		{"auth.server-metadata", "I", protocol.TransportHTTP},
		{"auth.pkce", "I", protocol.TransportHTTP},
		{"auth.client-registration", "I", protocol.TransportHTTP},
		{"auth.invalid-token", "I", protocol.TransportHTTP},
		{"auth.scope", "I", protocol.TransportHTTP},
		{"tls.certificate", "", protocol.TransportHTTP},
		{"lifecycle.version-support", "C3, C'", ""},
		{"lists.item-hygiene", "D", ""},
		{"lists.stable", "E, D", ""},
		{"tools.x-mcp-header", "E", ""},
		{"tools.execution", "E, C5", ""},
		{"meta.keys", "A", ""},
		{"quality.metadata", "", ""},
		{"server.card", "", protocol.TransportHTTP},
		{"security.tool-poisoning", "", ""},
		{"security.error-leak", "", ""},
		{"results.input-required", "A9", ""},
		{"errors.codes", "B", ""},
		{"subscriptions.listen", "C'", ""},
		{"http.concurrent-requests", "G3", protocol.TransportHTTP},
		{"http.sse-priming", "G5", protocol.TransportHTTP},
		{"tls.version", "", ""},
	}
	reg, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, w := range want {
		if listed[w.id] {
			t.Errorf("%s is listed twice", w.id)
		}
		listed[w.id] = true
		c, ok := reg.Lookup(w.id)
		if !ok {
			t.Errorf("Default() lacks %s", w.id)
			continue
		}
		if c.Rule != w.rule || c.Transport != w.transport {
			t.Errorf("%s: rule %q, transport %q; want rule %q, transport %q", w.id, c.Rule, c.Transport, w.rule, w.transport)
		}
		if area, _, _ := strings.Cut(c.ID, "."); c.Area != area {
			t.Errorf("%s: area %q", c.ID, c.Area)
		}
		if !strings.HasPrefix(c.Spec, "https://") || c.Title == "" || c.Evaluate == nil || c.Doc == nil || c.Hint == "" {
			t.Errorf("%s: spec %q, title %q, evaluate %v, doc %v, hint %q", c.ID, c.Spec, c.Title, c.Evaluate != nil, c.Doc != nil, c.Hint)
		}
	}
	for _, c := range reg.Checks() {
		if !listed[c.ID] {
			t.Errorf("%s is in the registry but not in this contract", c.ID)
		}
	}
}
