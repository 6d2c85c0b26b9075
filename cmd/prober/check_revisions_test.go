package main

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpwatch/mcpwatch/internal/testkit/fixture"
)

func fixtureURL(t *testing.T, cfg fixture.Config, legacySSE bool) string {
	t.Helper()
	srv, err := fixture.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	h, path := srv.Handler(), "/mcp"
	if legacySSE {
		h, path = srv.SSEHandler(), "/sse"
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts.URL + path
}

// revisionsReport is the part of the JSON report a --protocol-version all run adds.
type revisionsReport struct {
	Transport        string  `json:"transport"`
	ProtocolVersion  *string `json:"protocolVersion"`
	RequestedVersion string  `json:"requestedVersion"`
	Verdict          string  `json:"verdict"`
	Checks           []struct {
		ID     string         `json:"id"`
		Status string         `json:"status"`
		Data   map[string]any `json:"data"`
	} `json:"checks"`
	Revisions []struct {
		Revision    string            `json:"revision"`
		Accepted    bool              `json:"accepted"`
		Main        bool              `json:"main"`
		Verdict     string            `json:"verdict"`
		Differences []json.RawMessage `json:"differences"`
	} `json:"revisions"`
}

func TestCheckAllRevisions(t *testing.T) {
	tests := []struct {
		name     string
		url      string
		main     string
		accepted string // comma-joined
	}{
		{"a server of both eras", fixtureURL(t, fixture.Config{Stateless: true}, false), "2026-07-28",
			"2024-11-05,2025-03-26,2025-06-18,2025-11-25,2026-07-28"},
		{"a session-era server", fixtureURL(t, fixture.Config{}, false), "2025-11-25",
			"2024-11-05,2025-03-26,2025-06-18,2025-11-25"},
		{"a stateless-only server", fixtureURL(t, fixture.Config{StatelessOnly: true}, false), "2026-07-28", "2026-07-28"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := runCLI(t, context.Background(), "check", "--protocol-version", "all", "--format", "json", tc.url)
			if code != exitOK {
				t.Fatalf("exit %d (revisions the server does not accept fail nothing)\n%s\n%s", code, stdout, stderr)
			}
			var rep revisionsReport
			if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
				t.Fatal(err)
			}
			if len(rep.Revisions) != 5 {
				t.Fatalf("%d revisions, want 5", len(rep.Revisions))
			}
			var accepted []string
			for _, rev := range rep.Revisions {
				if rev.Accepted {
					accepted = append(accepted, rev.Revision)
				}
				if rev.Main != (rev.Revision == tc.main) {
					t.Errorf("%s: main %v", rev.Revision, rev.Main)
				}
				if rev.Differences == nil {
					t.Errorf("%s: differences is null, want a list", rev.Revision)
				}
			}
			if got := strings.Join(accepted, ","); got != tc.accepted {
				t.Errorf("accepted %s, want %s", got, tc.accepted)
			}
			if rep.ProtocolVersion == nil || *rep.ProtocolVersion != tc.main || rep.RequestedVersion != tc.main {
				t.Errorf("the report is about %v (requested %s), want %s", rep.ProtocolVersion, rep.RequestedVersion, tc.main)
			}
			found := false
			for _, c := range rep.Checks {
				if c.ID == "lifecycle.version-support" {
					found = true
					if got, _ := c.Data["accepted"].([]any); len(got) != strings.Count(tc.accepted, ",")+1 || c.Status != "info" {
						t.Errorf("lifecycle.version-support %s %v", c.Status, c.Data)
					}
				}
			}
			if !found {
				t.Error("no lifecycle.version-support")
			}
		})
	}
}

func TestCheckAllRevisionsTextTableAndFailingRevision(t *testing.T) {
	// ping no longer exists under 2026-07-28, the main revision: a server whose ping answer
	// is wrong fails the verdict through the session revisions it accepts.
	url := fixtureURL(t, fixture.Config{Fault: fixture.PingNonEmpty, Stateless: true}, false)
	code, stdout, stderr := runCLI(t, context.Background(), "check", "--protocol-version", "all", "--no-color", url)
	if code != exitFailed {
		t.Fatalf("exit %d, want %d: ping fails under every session revision\n%s\n%s", code, exitFailed, stdout, stderr)
	}
	for _, want := range []string{"Revisions", "2024-11-05  accepted", "2026-07-28  accepted", "differs: lifecycle.ping fail",
		"4 accepted revisions fail: 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25",
		"2026-07-28  accepted      pass"} {
		// The text report wraps prose at its width: compare word by word.
		if !strings.Contains(words(stdout), words(want)) {
			t.Errorf("the text report lacks %q:\n%s", want, stdout)
		}
	}
}

func TestCheckTransportFlag(t *testing.T) {
	legacy := fixtureURL(t, fixture.Config{}, true)
	for _, args := range [][]string{
		{"check", "--format", "json", legacy},
		{"check", "--format", "json", "--transport", "sse", legacy},
	} {
		code, stdout, stderr := runCLI(t, context.Background(), args...)
		if code != exitOK {
			t.Fatalf("%v: exit %d\n%s\n%s", args, code, stdout, stderr)
		}
		var rep revisionsReport
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatal(err)
		}
		if rep.Transport != "sse" {
			t.Errorf("%v: transport %q, want sse", args, rep.Transport)
		}
	}
	code, stdout, _ := runCLI(t, context.Background(), "check", "--format", "json", "--transport", "http", legacy)
	if code != exitFailed || !strings.Contains(stdout, `"transport": "http"`) {
		t.Errorf("--transport http on a legacy server: exit %d, want a failing Streamable HTTP probe", code)
	}
}
