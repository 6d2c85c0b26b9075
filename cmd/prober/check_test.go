package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// stdioArgs is `prober check [flags] -- <this test binary>` serving as a fixture in mode.
func stdioArgs(t *testing.T, mode string, flags ...string) []string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	args := append([]string{"check", "--env", fixtureModeEnv + "=" + mode}, flags...)
	return append(args, "--", exe)
}

func TestCheckExitCodes(t *testing.T) {
	conformant := newHTTPFixture(t, &httpFixture{mcp: fixtureMCP{name: "prober-http-fixture", version: "2.0.0"}})
	initFails := newHTTPFixture(t, &httpFixture{mcp: fixtureMCP{name: "x", version: "1"}, initStatus: http.StatusInternalServerError})
	badPing := newHTTPFixture(t, &httpFixture{mcp: fixtureMCP{name: "x", version: "1", pingResult: `[]`}})
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL + "/mcp"
	closed.Close()

	tests := []struct {
		name string
		args []string
		code int
		want []string // in stdout
	}{
		{"conformant stdio server", stdioArgs(t, modeConformant), exitOK,
			[]string{"prober-stdio-fixture 1.0.0", "revision   2025-11-25", "\nPASS "}},
		{"banner on stdout", stdioArgs(t, modeBanner), exitFailed,
			[]string{"FAIL stdio.stdout-purity", "fixture server starting", "\nFAIL "}},
		{"ping answered with an array", stdioArgs(t, modeBadPing), exitFailed, []string{"FAIL lifecycle.ping"}},
		// A missing description is advice: the field is optional in every revision's schema;
		// so are the title, annotations and instructions quality.metadata misses beside it.
		{"advice passes by default", stdioArgs(t, modeNoDesc), exitOK,
			[]string{"Advice (2", "WARN tools.description  advice", "WARN quality.metadata  advice", "\nPASS "}},
		{"advice passes with --fail-on warning", stdioArgs(t, modeNoDesc, "--fail-on", "warning"), exitOK,
			[]string{"WARN tools.description  advice", "2 advice below the threshold", "\nPASS "}},
		{"advice fails with --fail-on advice", stdioArgs(t, modeNoDesc, "--fail-on", "advice"), exitFailed,
			[]string{"WARN tools.description  advice", "2 checks fail at severity advice or above"}},
		{"skipping the failing check passes", stdioArgs(t, modeBadPing, "--skip", "lifecycle.ping"), exitOK, []string{"\nPASS "}},
		{"selecting the failing check fails", stdioArgs(t, modeBadPing, "--checks", "lifecycle.*"), exitFailed,
			[]string{"FAIL lifecycle.ping"}},
		{"server exits at once", stdioArgs(t, modeCrash), exitFailed,
			[]string{"fatal: the fixture crashed on purpose", "exit 3", "\nFAIL ", "untested, not passed", "\nUntested ("}},
		{"command that does not exist", []string{"check", "--", filepath.Join(t.TempDir(), "no-such-server")}, exitFailed,
			[]string{"not started", "requested 2025-11-25", ": nothing came back from the server (cannot start server command", "\nFAIL "}},
		{"conformant http server", []string{"check", conformant.URL + "/mcp"}, exitOK,
			[]string{"prober-http-fixture 2.0.0", "transport  http", "\nPASS "}},
		{"http initialize answered 500", []string{"check", initFails.URL + "/mcp"}, exitFailed,
			[]string{"FAIL lifecycle.initialize", "500", "none negotiated"}},
		{"http ping answered with an array", []string{"check", badPing.URL + "/mcp"}, exitFailed, []string{"FAIL lifecycle.ping"}},
		{"unreachable http server", []string{"check", closedURL}, exitFailed, []string{"probe error:", "\nFAIL "}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := runCLI(t, context.Background(), tc.args...)
			if code != tc.code {
				t.Errorf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, stdout, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(words(stdout), words(w)) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout)
				}
			}
		})
	}
}

func TestCheckJSONReportOnStdoutAndInAFile(t *testing.T) {
	out := filepath.Join(t.TempDir(), "report.json")
	code, stdout, stderr := runCLI(t, context.Background(), stdioArgs(t, modeBadPing, "--format", "json", "--output", out)...)
	if code != exitFailed {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	if stdout != "" {
		t.Errorf("stdout not empty with --output:\n%s", stdout)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Target          string          `json:"target"`
		Transport       string          `json:"transport"`
		ProtocolVersion *string         `json:"protocolVersion"`
		ServerInfo      json.RawMessage `json:"serverInfo"`
		Verdict         string          `json:"verdict"`
		Checks          []struct {
			ID, Status string
		} `json:"checks"`
		Steps []struct {
			Method    string   `json:"method"`
			LatencyMs *float64 `json:"latencyMs"`
		} `json:"steps"`
		Summary   map[string]int `json:"summary"`
		Processes []struct {
			EndedBy string `json:"endedBy"`
		} `json:"processes"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("report file is not JSON: %v\n%s", err, data)
	}
	if doc.Transport != "stdio" || doc.ProtocolVersion == nil || *doc.ProtocolVersion != "2025-11-25" || doc.Verdict != "fail" {
		t.Errorf("report = %+v", doc)
	}
	if !strings.Contains(string(doc.ServerInfo), "prober-stdio-fixture") {
		t.Errorf("serverInfo = %s", doc.ServerInfo)
	}
	failed := false
	for _, c := range doc.Checks {
		failed = failed || c.ID == "lifecycle.ping" && c.Status == "fail"
	}
	if !failed || doc.Summary["fail"] == 0 {
		t.Errorf("lifecycle.ping did not fail: %+v", doc.Checks)
	}
	answered := 0
	for _, s := range doc.Steps {
		if s.LatencyMs != nil {
			answered++
		}
	}
	if answered == 0 {
		t.Errorf("no step has a latency: %+v", doc.Steps)
	}
	if len(doc.Processes) == 0 || doc.Processes[0].EndedBy == "" {
		t.Errorf("processes = %+v", doc.Processes)
	}
	if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) != 1 {
		t.Errorf("temporary files left beside the report: %v", entries)
	}

	code, stdout, _ = runCLI(t, context.Background(), stdioArgs(t, modeConformant, "--format", "json")...)
	var onStdout map[string]any
	if err := json.Unmarshal([]byte(stdout), &onStdout); err != nil || code != exitOK || onStdout["verdict"] != "pass" {
		t.Errorf("json on stdout: exit %d, err %v, verdict %v", code, err, onStdout["verdict"])
	}
}

func TestCheckVerboseAddsTheTranscript(t *testing.T) {
	code, stdout, _ := runCLI(t, context.Background(), stdioArgs(t, modeConformant, "-v")...)
	if code != exitOK || !strings.Contains(stdout, "Transcript (") || !strings.Contains(stdout, `"method":"initialize"`) {
		t.Errorf("exit %d, no transcript in:\n%s", code, stdout)
	}
	code, stdout, _ = runCLI(t, context.Background(), stdioArgs(t, modeConformant, "--format", "json", "--verbose")...)
	var doc struct {
		Transcript []map[string]any `json:"transcript"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil || code != exitOK || len(doc.Transcript) < 4 {
		t.Errorf("exit %d, err %v, %d frames", code, err, len(doc.Transcript))
	}
}

func TestCheckRunsTheServerInDirWithEnv(t *testing.T) {
	dir := t.TempDir()
	const token = "fixture-token-5d41402abc4b2a76"
	code, stdout, stderr := runCLI(t, context.Background(), stdioArgs(t, modeEchoEnv,
		"--dir", dir, "--env", fixturePIDFileEnv+"=pids", "--env", "FIXTURE_API_TOKEN="+token, "-v")...)
	if code != exitOK {
		t.Errorf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "pids")); err != nil {
		t.Errorf("the server did not run in --dir: %v", err)
	}
	// The server put the token in its serverInfo: a credential-looking variable is redacted.
	if strings.Contains(stdout+stderr, token) {
		t.Error("the value of FIXTURE_API_TOKEN appears in the output")
	}
	if !strings.Contains(stdout, "prober-stdio-fixture [redacted]") {
		t.Errorf("serverInfo with the token not shown redacted:\n%s", stdout)
	}
}

func TestCheckJSONWhenInitializeFails(t *testing.T) {
	srv := newHTTPFixture(t, &httpFixture{mcp: fixtureMCP{name: "x", version: "1"}, initStatus: http.StatusServiceUnavailable})
	code, stdout, stderr := runCLI(t, context.Background(), "check", "--format", "json", srv.URL+"/mcp")
	if code != exitFailed {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, stdout)
	}
	for _, key := range []string{"protocolVersion", "serverInfo"} {
		if v, ok := doc[key]; !ok || v != nil {
			t.Errorf("%s = %#v (present %v), want null", key, v, ok)
		}
	}
	if doc["error"] == nil || doc["verdict"] != "fail" {
		t.Errorf("error %#v verdict %#v", doc["error"], doc["verdict"])
	}
	steps, _ := doc["steps"].([]any)
	sawStatus := false
	for _, s := range steps {
		if s.(map[string]any)["httpStatus"] == float64(http.StatusServiceUnavailable) {
			sawStatus = true
		}
	}
	if !sawStatus {
		t.Errorf("no step records HTTP 503: %v", steps)
	}
}

// words is s with every run of white space made one space: the text report wraps prose at its
// width, so a phrase may span lines.
func words(s string) string { return strings.Join(strings.Fields(s), " ") }
