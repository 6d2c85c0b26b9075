package checks

import (
	"strings"
	"testing"

	"github.com/mcpwatch/mcpwatch/protocol"
)

// TestCatalogueEntriesOfEnvelopeLifecycleAndTransports holds these areas to docs/checks.md: the
// IDs and rule letters are a public contract.
func TestCatalogueEntriesOfEnvelopeLifecycleAndTransports(t *testing.T) {
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
		{"stdio.stdout-purity", "F1, F2, F4", protocol.TransportStdio},
		{"stdio.spawn", "-", protocol.TransportStdio},
		{"stdio.shutdown", "C7", protocol.TransportStdio},
		{"http.status", "G3", protocol.TransportHTTP},
		{"http.content-type", "G3", protocol.TransportHTTP},
		{"http.notification-accepted", "G4", protocol.TransportHTTP},
		{"http.sse-framing", "G5", protocol.TransportHTTP},
	}
	var got []Check
	got = append(got, envelopeChecks()...)
	got = append(got, lifecycleChecks(nil)...)
	got = append(got, stdioChecks()...)
	got = append(got, httpChecks()...)
	if len(got) != len(want) {
		t.Fatalf("%d checks, want %d", len(got), len(want))
	}
	for i, w := range want {
		c := got[i]
		if c.ID != w.id || c.Rule != w.rule || c.Transport != w.transport {
			t.Errorf("check %d is %s (rule %q, transport %q), want %s (rule %q, transport %q)",
				i, c.ID, c.Rule, c.Transport, w.id, w.rule, w.transport)
		}
		if area, _, _ := strings.Cut(c.ID, "."); c.Area != area {
			t.Errorf("%s: area %q", c.ID, c.Area)
		}
		if !strings.HasPrefix(c.Spec, "https://modelcontextprotocol.io/specification/") || c.Title == "" || c.Evaluate == nil {
			t.Errorf("%s: spec %q, title %q", c.ID, c.Spec, c.Title)
		}
	}
	reg, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range want {
		if _, ok := reg.Lookup(w.id); !ok {
			t.Errorf("Default() lacks %s", w.id)
		}
	}
}

// TestCatalogueEntriesOfRevision2 holds the checks that catalogue revision 2 added for the
// stateless revision, transport security and authorization to their IDs, rule letters and
// transports: they are a public contract.
func TestCatalogueEntriesOfRevision2(t *testing.T) {
	http := protocol.TransportHTTP
	want := []struct{ id, rule, transport string }{
		{"stateless.removed-methods", "26", ""},
		{"stateless.no-session", "26", http},
		{"stateless.get-delete", "26", http},
		{"stateless.server-requests", "F6, 26", ""},
		{"discover.version-error", "26", ""},
		{"results.input-required", "A9", ""},
		{"errors.codes", "B", ""},
		{"subscriptions.listen", "C'", ""},
		{"auth.server-metadata", "I", http},
		{"auth.pkce", "I", http},
		{"auth.client-registration", "I", http},
		{"auth.invalid-token", "I", http},
		{"auth.scope", "I", http},
		{"http.concurrent-requests", "G3", http},
		{"http.sse-priming", "G5", http},
		{"tls.version", "", ""},
	}
	reg, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range want {
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
		if c.Doc == nil || c.Hint == "" || !strings.HasPrefix(c.Spec, "https://modelcontextprotocol.io/specification/") {
			t.Errorf("%s: doc %v, hint %q, spec %q", w.id, c.Doc != nil, c.Hint, c.Spec)
		}
	}
}
