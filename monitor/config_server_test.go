package monitor

import (
	"strings"
	"testing"

	"github.com/mcpwatch/mcpwatch/protocol"
)

// A server with a url may name any transport a URL server has (the legacy HTTP+SSE one
// included), which is stored as given; a command is stdio only; anything else is an error
// that lists what is allowed.
func TestTheFileNamesTheTransportOfAServer(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, entry, want, problem string
	}{
		{"a url without a transport", "url: http://127.0.0.1:1/mcp", protocol.TransportHTTP, ""},
		{"streamable http", "url: http://127.0.0.1:1/mcp\n    transport: http", protocol.TransportHTTP, ""},
		{"legacy sse", "url: http://127.0.0.1:1/sse\n    transport: sse", protocol.TransportSSE, ""},
		{"auto", "url: http://127.0.0.1:1/mcp\n    transport: auto", protocol.TransportAuto, ""},
		{"a command without a transport", "command: [./server]", protocol.TransportStdio, ""},
		{"stdio", "command: [./server]\n    transport: stdio", protocol.TransportStdio, ""},
		{"a url over stdio", "url: http://127.0.0.1:1/mcp\n    transport: stdio", "",
			`servers[0].transport: "stdio" does not match the server: a server with a url is "http", "sse" or "auto", one with a command "stdio"`},
		{"a command over sse", "command: [./server]\n    transport: sse", "", `servers[0].transport: "sse" does not match the server`},
		{"an unknown transport", "url: http://127.0.0.1:1/mcp\n    transport: websocket", "",
			`servers[0].transport: unknown transport "websocket": a server with a url is "http", "sse" or "auto" ("sse" is the legacy HTTP+SSE transport of 2024-11-05)`},
		{"the wrong case", "url: http://127.0.0.1:1/sse\n    transport: SSE", "", `unknown transport "SSE"`},
	} {
		cfg, err := ParseConfig("mcpwatch.yaml", []byte("servers:\n  - name: s\n    "+tc.entry+"\n"))
		if tc.problem != "" {
			if err == nil || !strings.Contains(err.Error(), tc.problem) {
				t.Errorf("%s: %v, want an error saying %q", tc.name, err, tc.problem)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if got := cfg.StoreServers()[0]; got.Transport != tc.want || got.Validate() != nil {
			t.Errorf("%s: stored transport %q (valid: %v), want %q", tc.name, got.Transport, got.Validate(), tc.want)
		}
	}
}
