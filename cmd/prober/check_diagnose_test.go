package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// When the server could not be talked to at all, stderr says what to do whatever the report
// format, and the report's probe error carries the same advice.
func TestAFailedHandshakeSaysWhatToDoNext(t *testing.T) {
	notFound := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(notFound.Close)
	tests := []struct {
		name        string
		args        []string
		stderr      []string
		reportSays  string
		stderrLacks string
	}{
		{
			name: "a server slower than --init-timeout",
			args: stdioArgs(t, modeSlowStart, "--init-timeout", "500ms", "--shutdown-grace", "100ms"),
			stderr: []string{
				"prober check: the server did not answer initialize within --init-timeout 500ms; if it is slow to start (npx, go run, loading a model), raise it: --init-timeout 120s\n",
				"prober check: the server's stderr ended with:\n  │ fixture: warming up the cache\n",
			},
			reportSays: "probe error: initialize failed: timed out waiting for an answer; the server did not answer initialize within --init-timeout 500ms",
		},
		{
			name: "a URL that is not the endpoint",
			args: []string{"check", notFound.URL + "/"},
			stderr: []string{
				"prober check: nothing is served at this URL (404): is it the MCP endpoint? Servers usually serve it at /mcp (Streamable HTTP) or /sse (legacy HTTP+SSE): try " + notFound.URL + "/mcp or " + notFound.URL + "/sse\n",
			},
			reportSays:  "HTTP status 404; nothing is served at this URL (404)",
			stderrLacks: "stderr ended with",
		},
		{
			name:        "the endpoint itself 404s: the other usual path",
			args:        []string{"check", notFound.URL + "/mcp"},
			stderr:      []string{"try " + notFound.URL + "/sse\n"},
			reportSays:  "try " + notFound.URL + "/sse",
			stderrLacks: notFound.URL + "/mcp or",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := runCLI(t, context.Background(), tt.args...)
			if code != exitFailed {
				t.Fatalf("exit %d, want %d\n%s\n%s", code, exitFailed, stdout, stderr)
			}
			for _, want := range tt.stderr {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr does not say %q:\n%s", want, stderr)
				}
			}
			if tt.stderrLacks != "" && strings.Contains(stderr, tt.stderrLacks) {
				t.Errorf("stderr says %q:\n%s", tt.stderrLacks, stderr)
			}
			// The text report wraps prose at its width: read it as one run of words.
			if !strings.Contains(strings.Join(strings.Fields(stdout), " "), tt.reportSays) {
				t.Errorf("the report does not say %q:\n%s", tt.reportSays, stdout)
			}
		})
	}
}

func TestAHandshakeThatWorkedNeedsNoDiagnosis(t *testing.T) {
	_, _, stderr := runCLI(t, context.Background(), stdioArgs(t, modeConformant)...)
	if stderr != "" {
		t.Errorf("stderr of a probe that worked: %q", stderr)
	}
}
