package probe

import (
	"slices"
	"testing"
)

func TestServerCardURLsStayOnTheTargetsOrigin(t *testing.T) {
	for _, tt := range []struct {
		endpoint string
		want     []string
	}{
		{"http://127.0.0.1:8931/mcp", []string{"http://127.0.0.1:8931/mcp/server-card", "http://127.0.0.1:8931/.well-known/mcp/server-card.json"}},
		{"https://example.test/a/mcp/", []string{"https://example.test/a/mcp/server-card", "https://example.test/.well-known/mcp/server-card.json"}},
		{"http://127.0.0.1:1", []string{"http://127.0.0.1:1/server-card", "http://127.0.0.1:1/.well-known/mcp/server-card.json"}},
		{"ftp://127.0.0.1/mcp", nil},
		{"not a url", nil},
	} {
		if got := ServerCardURLs(tt.endpoint); !slices.Equal(got, tt.want) {
			t.Errorf("ServerCardURLs(%q) = %v, want %v", tt.endpoint, got, tt.want)
		}
	}
}
