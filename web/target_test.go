package web

import (
	"testing"

	"github.com/mcpwatch/mcpwatch/protocol"
	"github.com/mcpwatch/mcpwatch/store"
)

// Readers see where a server is and by which transport: a legacy HTTP+SSE server is labelled
// as such, a stdio server shows its program only, a URL loses its credentials.
func TestTargetAndTransportAsReadersSeeThem(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		server        store.Server
		target, label string
	}{
		{store.Server{Transport: protocol.TransportHTTP, URL: "https://mcp.example.com/mcp"}, "https://mcp.example.com/mcp", "Streamable HTTP"},
		{store.Server{Transport: protocol.TransportSSE, URL: "https://old.example.com/sse"}, "legacy SSE: https://old.example.com/sse", "legacy HTTP+SSE (2024-11-05)"},
		{store.Server{Transport: protocol.TransportAuto, URL: "https://x.example.com/mcp"}, "https://x.example.com/mcp", "HTTP, Streamable or legacy SSE as detected"},
		{store.Server{Transport: protocol.TransportStdio, Command: "/usr/local/bin/server", Args: []string{"--token", "s3cret"}}, "stdio: server", "stdio"},
	} {
		if got := targetOf(tc.server); got != tc.target {
			t.Errorf("targetOf(%s %s%s) = %q, want %q", tc.server.Transport, tc.server.URL, tc.server.Command, got, tc.target)
		}
		if got := transportLabel(tc.server.Transport); got != tc.label {
			t.Errorf("transportLabel(%s) = %q, want %q", tc.server.Transport, got, tc.label)
		}
	}
}
