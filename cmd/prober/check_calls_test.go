package main

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwatch/mcpwatch/internal/testkit/fixture"
)

// --calls calls the fixture's tools, judges them, and keeps a fromEnv argument out of every
// output, the transcript included.
func TestCheckCallsToolsFromACallsFile(t *testing.T) {
	srv, err := fixture.New(fixture.Config{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	const secret = "calls-secret-7f3a9c2e51"
	t.Setenv("PROBER_TEST_CALL_TEXT", secret)
	file := filepath.Join(t.TempDir(), "calls.yaml")
	if err := os.WriteFile(file, []byte(`calls:
  - tool: echo
    arguments: {text: {fromEnv: PROBER_TEST_CALL_TEXT}}
    invalidArguments: true
    expect: {isError: false, textContains: calls-secret}
  - tool: add
    arguments: {a: 1, b: 2}
    expect: {pointer: /sum, equals: 3}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, context.Background(), "check", "--format", "json", "--verbose", "--log-level", "debug",
		"--calls", file, ts.URL+"/mcp")
	if code != exitOK {
		t.Errorf("exit %d\n%s", code, stderr)
	}
	if strings.Contains(stdout+stderr, secret) {
		t.Error("the output shows the argument read from the environment")
	}
	var rep struct {
		Checks []struct {
			ID, Status, Message string
		}
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"tools.call-result": "pass", "tools.structured-content": "pass", "tools.invalid-arguments": "pass", "tools.call-expectations": "pass"}
	for _, c := range rep.Checks {
		if w, ok := want[c.ID]; ok && c.Status != w {
			t.Errorf("%s: %s (%s), want %s", c.ID, c.Status, c.Message, w)
		}
		delete(want, c.ID)
	}
	if len(want) > 0 {
		t.Errorf("checks missing from the report: %v", want)
	}
}

func TestCheckCallsFileProblemsAreUsageErrors(t *testing.T) {
	file := filepath.Join(t.TempDir(), "calls.yaml")
	if err := os.WriteFile(file, []byte("calls:\n  - tool: echo\n    argumens: {}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, context.Background(), "check", "--calls", file, "http://127.0.0.1:1/mcp")
	if code != exitUsage || !strings.Contains(stderr, "line 3, column 5: calls[0].argumens: unknown key") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
}
