package probe

import (
	"encoding/json"
	"testing"
)

func TestHandshakeIsInitializeElseDiscover(t *testing.T) {
	init, disc := json.RawMessage(`{"capabilities":{"tools":{}}}`), json.RawMessage(`{"supportedVersions":[]}`)
	for _, c := range []struct {
		name string
		res  Result
		want json.RawMessage
		kind HandshakeKind
	}{
		{"session era", Result{Initialize: init}, init, HandshakeInitialize},
		{"stateless era", Result{Discover: disc}, disc, HandshakeDiscover},
		// The main initialize came first; a discover result beside it declares nothing.
		{"both", Result{Initialize: init, Discover: disc}, init, HandshakeInitialize},
		{"neither", Result{}, nil, HandshakeNone},
	} {
		got, kind := c.res.Handshake()
		if string(got) != string(c.want) || kind != c.kind {
			t.Errorf("%s: %s %d, want %s %d", c.name, got, kind, c.want, c.kind)
		}
	}
}

func TestDeclaresReadsTheHandshakesCapabilities(t *testing.T) {
	for _, c := range []struct {
		name     string
		res      Result
		value    string
		declares bool
	}{
		{"session era", Result{Initialize: json.RawMessage(`{"capabilities":{"tools":{"listChanged":true}}}`)}, `{"listChanged":true}`, true},
		{"stateless era", Result{Discover: json.RawMessage(`{"capabilities":{"tools":{}},"supportedVersions":["2026-07-28"]}`)}, `{}`, true},
		{"neither", Result{}, ``, false},
		{"not declared", Result{Initialize: json.RawMessage(`{"capabilities":{"prompts":{}}}`)}, ``, false},
		{"null", Result{Initialize: json.RawMessage(` {"capabilities" : { "tools" : null } } `)}, `null`, false},
		{"the last of a repeated name", Result{Initialize: json.RawMessage(`{"capabilities":{"tools":null,"tools":{}}}`)}, `{}`, true},
		{"a name spelled with escapes", Result{Initialize: json.RawMessage(`{"capabilities":{"t\u006fols":{}}}`)}, `{}`, true},
		{"names match exactly", Result{Initialize: json.RawMessage(`{"Capabilities":{"tools":{}},"capabilities":{"Tools":{}}}`)}, ``, false},
		{"capabilities not an object", Result{Initialize: json.RawMessage(`{"capabilities":["tools"]}`)}, ``, false},
		{"a result that is no object", Result{Initialize: json.RawMessage(`["capabilities"]`)}, ``, false},
		// The initialize result is the handshake even when it declares nothing.
		{"initialize first", Result{Initialize: json.RawMessage(`{}`), Discover: json.RawMessage(`{"capabilities":{"tools":{}}}`)}, ``, false},
	} {
		value, declared := c.res.Capability("tools")
		if string(value) != c.value || declared != c.declares || c.res.Declares("tools") != c.declares {
			t.Errorf("%s: Capability %q %v, Declares %v; want %q %v", c.name, value, declared, c.res.Declares("tools"), c.value, c.declares)
		}
		// Capabilities, decoded once for callers that ask often, reads the same.
		if got := c.res.Capabilities()["tools"]; string(got) != c.value {
			t.Errorf("%s: Capabilities()[tools] = %q, want %q", c.name, got, c.value)
		}
	}
}
