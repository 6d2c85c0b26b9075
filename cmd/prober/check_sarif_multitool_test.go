package main

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/testkit/fixture"
	"github.com/mcpwatch/mcpwatch/internal/testkit/modroot"
)

// sarifMultitool finds Microsoft's SARIF multitool, which .ci/sarif-multitool installs in
// .cache/sarif-multitool (or the binary MCPWATCH_SARIF_MULTITOOL names). The npm package
// runs its native build through a shell, which would split arguments at spaces, so the test
// runs the native build itself. Outside CI a missing tool skips the test; in CI it fails it.
func sarifMultitool(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("MCPWATCH_SARIF_MULTITOOL")
	if bin == "" {
		platform := map[string]string{"linux": "linux", "darwin": "darwin", "windows": "win32"}[runtime.GOOS]
		bin = filepath.Join(modroot.Of(t), ".cache", "sarif-multitool", "node_modules", "@microsoft",
			"sarif-multitool-"+platform, "Sarif.Multitool")
	}
	if _, err := os.Stat(bin); err != nil {
		msg := "SARIF multitool not found at " + bin + " (run .ci/sarif-multitool to install it): " + err.Error()
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return bin
}

// multitoolFinding is one result of the multitool's own SARIF log about the log it checked.
type multitoolFinding struct {
	Rule, Level, Message string
}

// validateSARIF runs `sarif-multitool validate` on file and returns its errors and warnings
// (results and notifications). It validates against the SARIF schema that .ci/sarif-schema
// installs when it is there (the multitool would fetch the one the log names otherwise).
func validateSARIF(t *testing.T, bin, file string) []multitoolFinding {
	t.Helper()
	out := filepath.Join(t.TempDir(), "validation.sarif")
	args := []string{"validate", file, "--output", out, "--log", "ForceOverwrite",
		"--config", filepath.Join("testdata", "sarif-multitool.xml"), "--level", "Error;Warning"}
	if schema := filepath.Join(modroot.Of(t), ".cache", "sarif", "sarif-schema-2.1.0.json"); fileExists(schema) {
		args = append(args, "--json-schema", schema)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	// The multitool is a .NET program: no telemetry, no first-run work in a home folder.
	cmd.Env = append(os.Environ(), "DOTNET_CLI_TELEMETRY_OPTOUT=1", "DOTNET_NOLOGO=1")
	console, err := cmd.CombinedOutput()
	if err != nil && !fileExists(out) {
		t.Fatalf("sarif-multitool validate %s: %v\n%s", file, err, console)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var log struct {
		Runs []struct {
			Results []struct {
				RuleID  string `json:"ruleId"`
				Level   string `json:"level"`
				Message struct {
					Text      string   `json:"text"`
					ID        string   `json:"id"`
					Arguments []string `json:"arguments"`
				} `json:"message"`
			} `json:"results"`
			Invocations []struct {
				Notifications []struct {
					Descriptor struct {
						ID string `json:"id"`
					} `json:"descriptor"`
					Level   string `json:"level"`
					Message struct {
						Text string `json:"text"`
					} `json:"message"`
				} `json:"toolExecutionNotifications"`
			} `json:"invocations"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(raw, &log); err != nil || len(log.Runs) == 0 {
		t.Fatalf("the multitool's log %s does not read (%v):\n%s", out, err, raw)
	}
	var found []multitoolFinding
	for _, run := range log.Runs {
		for _, r := range run.Results {
			level := r.Level
			if level == "" {
				level = "warning" // SARIF's default level
			}
			msg := r.Message.Text
			if msg == "" { // a message by id: its arguments say what and where
				msg = r.Message.ID + " " + strings.Join(r.Message.Arguments, " · ")
			}
			found = append(found, multitoolFinding{r.RuleID, level, msg})
		}
		for _, inv := range run.Invocations {
			for _, n := range inv.Notifications {
				// WRN999 says that SARIF2006 was turned off, which the test's configuration does.
				if n.Level == "error" || n.Level == "warning" && n.Descriptor.ID != "WRN999.RuleExplicitlyDisabled" {
					found = append(found, multitoolFinding{n.Descriptor.ID, n.Level, n.Message.Text})
				}
			}
		}
	}
	return found
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// The SARIF of a probe of a failing server passes the SARIF multitool's validation with no
// error and no warning, whatever the results point at: the target, or the artifact the user
// names, relative or absolute, with spaces; with a baseline (suppressed results) and advice.
func TestSARIFOfAFailingProbePassesTheSARIFMultitool(t *testing.T) {
	bin := sarifMultitool(t)
	tests := []struct {
		name     string
		fault    fixture.Fault
		args     []string
		baseline string
	}{
		{name: "failure, results at the target", fault: fixture.Fault("http-origin-accepted")},
		{name: "tool warning accepted by a baseline, relative artifact", fault: fixture.Fault("tool-name-bad"),
			args:     []string{"--fail-on", "warning", "--sarif-artifact", "src/my server.ts"},
			baseline: "- check: tools.name-format\n  tool: get weather\n  reason: renamed in the next release\n"},
		{name: "advice, absolute artifact", fault: fixture.Fault("no-metadata"),
			args: []string{"--fail-on", "advice", "--sarif-artifact", "/srv/mcp/server.json"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, err := fixture.New(fixture.Config{Fault: tt.fault})
			if err != nil {
				t.Fatal(err)
			}
			hs := httptest.NewServer(srv.Handler())
			defer hs.Close()
			dir := t.TempDir()
			file := filepath.Join(dir, "report.sarif")
			args := append([]string{"check", "--format", "sarif", "-o", file}, tt.args...)
			if tt.baseline != "" {
				b := filepath.Join(dir, "baseline.yaml")
				if err := os.WriteFile(b, []byte(tt.baseline), 0o600); err != nil {
					t.Fatal(err)
				}
				args = append(args, "--baseline", b)
			}
			var stdout, stderr strings.Builder
			code := dispatch(context.Background(), append(args, hs.URL+"/mcp"), &stdout, &stderr)
			if code != exitOK && code != exitFailed {
				t.Fatalf("exit %d:\n%s", code, stderr.String())
			}
			raw, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(raw), `"results": [`+"\n") {
				t.Fatalf("the log has no results, so the validation would prove little:\n%s", raw)
			}
			for _, f := range validateSARIF(t, bin, file) {
				t.Errorf("%s %s: %s", f.Level, f.Rule, f.Message)
			}
		})
	}
}

// The validation above could pass because the multitool checked nothing: the same run must
// report what a writer bug would break.
func TestSARIFMultitoolReportsABrokenLog(t *testing.T) {
	bin := sarifMultitool(t)
	broken := `{"$schema":"https://json.schemastore.org/sarif-2.1.0.json","version":"2.1.0","runs":[{"tool":{"driver":{
"name":"mcpwatch","version":"dev","informationUri":"https://github.com/mcpwatch/mcpwatch","rules":[{"id":"lifecycle.ping"}]}},
"results":[{"ruleId":"lifecycle.ping","ruleIndex":3,"level":"error","message":{"text":"ping answered {}."},
"locations":[{"physicalLocation":{"artifactLocation":{"uri":"file:///srv/../etc/passwd"},"region":{"startLine":1}}}]}]}]}`
	file := filepath.Join(t.TempDir(), "broken.sarif")
	if err := os.WriteFile(file, []byte(broken), 0o600); err != nil {
		t.Fatal(err)
	}
	rules := map[string]bool{}
	for _, f := range validateSARIF(t, bin, file) {
		rules[f.Rule] = true
	}
	for _, want := range []string{"SARIF1009", "SARIF2005"} { // ruleIndex out of range, version "dev"
		if !rules[want] {
			t.Errorf("the multitool did not report %s; it reported %v", want, rules)
		}
	}
}
