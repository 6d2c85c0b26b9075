package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A --header value is a credential: whatever the server echoes, it must not reach any
// output, in any format, verbose or not, with debug logs on.
func TestHeaderValuesNeverAppearInAnyOutput(t *testing.T) {
	const token = "sk-prober-test-7f3a9c2e5b1d"
	const tenant = "tenant-secret-0b9e4d"
	fixture := &httpFixture{mcp: fixtureMCP{name: "echoing-server", version: "1.0.0"}, echoHeader: "Authorization"}
	srv := newHTTPFixture(t, fixture)
	failing := &httpFixture{mcp: fixtureMCP{name: "x", version: "1"}, echoHeader: "Authorization", initStatus: 401}
	failingSrv := newHTTPFixture(t, failing)

	variants := [][]string{
		{"--format", "text"},
		{"--format", "text", "-v"},
		{"--format", "json"},
		{"--format", "json", "--verbose"},
	}
	for _, target := range []string{srv.URL + "/mcp", failingSrv.URL + "/mcp"} {
		for _, flags := range variants {
			out := filepath.Join(t.TempDir(), "report")
			for _, toFile := range []bool{false, true} {
				args := append([]string{"check", "--log-level", "debug",
					"--header", "Authorization: Bearer " + token, "-H", "X-Tenant: " + tenant}, flags...)
				if toFile {
					args = append(args, "--output", out)
				}
				args = append(args, target)
				_, stdout, stderr := runCLI(t, context.Background(), args...)
				all := stdout + stderr
				if toFile {
					data, err := os.ReadFile(out)
					if err != nil {
						t.Fatal(err)
					}
					all += string(data)
				}
				for _, secret := range []string{token, tenant} {
					if strings.Contains(all, secret) {
						t.Errorf("%s %q (file %v): output contains %q", target, flags, toFile, secret)
					}
				}
				if !strings.Contains(all, "[redacted]") {
					t.Errorf("%s %q: the echoed token was not shown as [redacted]", target, flags)
				}
			}
		}
	}
	// The header was really sent: the test would prove nothing otherwise. (The probe that
	// checks the 401 challenge goes without it.)
	got := append(fixture.receivedValues(), failing.receivedValues()...)
	if !slices.Contains(got, "Bearer "+token) {
		t.Errorf("server received Authorization %q", got)
	}
}
