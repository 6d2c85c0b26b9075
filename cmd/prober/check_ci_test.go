package main

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwatch/mcpwatch/internal/testkit/officialschemas"
)

func TestCheckWritesEveryCIFormat(t *testing.T) {
	badPing := newHTTPFixture(t, &httpFixture{mcp: fixtureMCP{name: "x", version: "1", pingResult: `[]`}})
	conformant := newHTTPFixture(t, &httpFixture{mcp: fixtureMCP{name: "x", version: "1"}})
	tests := []struct {
		format string
		// valid reads the output back the way its consumer does.
		valid func(t *testing.T, out string, failing bool)
	}{
		{"junit", func(t *testing.T, out string, failing bool) {
			var doc struct {
				Failures int `xml:"failures,attr"`
				Suites   []struct {
					Cases []struct {
						Name    string    `xml:"name,attr"`
						Failure *struct{} `xml:"failure"`
					} `xml:"testcase"`
				} `xml:"testsuite"`
			}
			if err := xml.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatalf("junit does not parse: %v", err)
			}
			if (doc.Failures > 0) != failing || len(doc.Suites) != 1 || len(doc.Suites[0].Cases) < 20 {
				t.Errorf("failures %d, %d suites", doc.Failures, len(doc.Suites))
			}
		}},
		{"sarif", func(t *testing.T, out string, failing bool) {
			var doc struct {
				Version string `json:"version"`
				Runs    []struct {
					Results []struct{ RuleID string } `json:"results"`
				} `json:"runs"`
			}
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatalf("sarif is not JSON: %v", err)
			}
			sawPing := false
			for _, r := range doc.Runs[0].Results {
				sawPing = sawPing || r.RuleID == "lifecycle.ping"
			}
			if doc.Version != "2.1.0" || sawPing != failing {
				t.Errorf("version %s, lifecycle.ping result %v", doc.Version, sawPing)
			}
		}},
		{"github", func(t *testing.T, out string, failing bool) {
			if strings.Contains(out, "::error title=mcpwatch lifecycle.ping") != failing || !strings.Contains(out, "::group::") ||
				!strings.HasSuffix(out, "::endgroup::\n") {
				t.Errorf("annotations:\n%s", out)
			}
		}},
		{"markdown", func(t *testing.T, out string, failing bool) {
			head := "### ✅ PASS: "
			if failing {
				head = "### ❌ FAIL: "
			}
			if !strings.HasPrefix(out, head) || strings.Contains(out, "`lifecycle.ping` | error") != failing {
				t.Errorf("comment:\n%s", out)
			}
		}},
	}
	for _, tt := range tests {
		for _, srv := range []struct {
			url     string
			failing bool
		}{{badPing.URL + "/mcp", true}, {conformant.URL + "/mcp", false}} {
			t.Run(tt.format+map[bool]string{true: " failing", false: " passing"}[srv.failing], func(t *testing.T) {
				t.Parallel()
				code, stdout, stderr := runCLI(t, context.Background(), "check", "--format", tt.format, srv.url)
				want := exitOK
				if srv.failing {
					want = exitFailed
				}
				if code != want {
					t.Fatalf("exit %d, want %d\n%s", code, want, stderr)
				}
				tt.valid(t, stdout, srv.failing)
			})
		}
	}
}

func TestCheckBaselineGatesOnNewFailuresOnly(t *testing.T) {
	badPing := newHTTPFixture(t, &httpFixture{mcp: fixtureMCP{name: "x", version: "1", pingResult: `[]`}})
	conformant := newHTTPFixture(t, &httpFixture{mcp: fixtureMCP{name: "x", version: "1"}})
	dir := t.TempDir()
	baseline := filepath.Join(dir, "mcp-baseline.yaml")

	// Writing the baseline accepts today's failure: the run that wrote it passes.
	code, stdout, stderr := runCLI(t, context.Background(), "check", "--write-baseline", baseline, badPing.URL+"/mcp")
	if code != exitOK {
		t.Fatalf("--write-baseline: exit %d\n%s\n%s", code, stdout, stderr)
	}
	written, err := os.ReadFile(baseline)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(written), "- check: lifecycle.ping") || !strings.Contains(stdout, "accepted by the baseline") {
		t.Fatalf("baseline:\n%s\nstdout:\n%s", written, stdout)
	}

	// A reason added by hand survives a rewrite.
	edited := strings.Replace(string(written), "- check: lifecycle.ping", "- check: lifecycle.ping\n  reason: the SDK answers ping with []", 1)
	if err := os.WriteFile(baseline, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}

	// Gated with it, the same failure passes, marked baselined with its reason.
	code, stdout, stderr = runCLI(t, context.Background(), "check", "--format", "json", "--baseline", baseline, badPing.URL+"/mcp")
	if code != exitOK {
		t.Fatalf("--baseline: exit %d\n%s", code, stderr)
	}
	var doc struct {
		Verdict string `json:"verdict"`
		Checks  []struct {
			ID, Status, BaselineReason string
			Baselined                  bool
		} `json:"checks"`
		Baseline struct {
			Stale []struct{ Check string } `json:"stale"`
		} `json:"baseline"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	for _, c := range doc.Checks {
		if c.ID == "lifecycle.ping" && (c.Status != "fail" || !c.Baselined || c.BaselineReason != "the SDK answers ping with []") {
			t.Errorf("lifecycle.ping = %+v", c)
		}
	}
	if doc.Verdict != "pass" || len(doc.Baseline.Stale) != 0 {
		t.Errorf("verdict %s, stale %v", doc.Verdict, doc.Baseline.Stale)
	}

	// A new failure still fails: --fail-on advice makes the tool without description one.
	code, _, _ = runCLI(t, context.Background(), "check", "--baseline", baseline, "--fail-on", "advice",
		newHTTPFixture(t, &httpFixture{mcp: fixtureMCP{name: "x", version: "1", pingResult: `[]`, noToolDescription: true}}).URL+"/mcp")
	if code != exitFailed {
		t.Errorf("a failure outside the baseline: exit %d, want %d", code, exitFailed)
	}

	// Once fixed, the entry is stale: a warning line, and the run passes.
	code, stdout, _ = runCLI(t, context.Background(), "check", "--baseline", baseline, conformant.URL+"/mcp")
	if code != exitOK || !strings.Contains(stdout, "warning: baseline entry lifecycle.ping at "+baseline+":") ||
		!strings.Contains(stdout, "no longer fails: remove it") {
		t.Errorf("stale entry: exit %d\n%s", code, stdout)
	}

	// Rewriting keeps the reason of an entry that still fails.
	code, _, stderr = runCLI(t, context.Background(), "check", "--baseline", baseline, "--write-baseline", baseline, badPing.URL+"/mcp")
	rewritten, _ := os.ReadFile(baseline)
	if code != exitOK || !strings.Contains(string(rewritten), "reason: the SDK answers ping with []") {
		t.Errorf("rewrite: exit %d %s\n%s", code, stderr, rewritten)
	}
}

func TestCheckCIFlagUsageErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("- check: lifecycle.ping\n- check: lifecycle.pong\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"missing baseline", []string{"--baseline", filepath.Join(dir, "none.yaml")}, "--baseline: baseline: open"},
		{"unknown check in the baseline", []string{"--baseline", bad}, `bad.yaml:2: entry 2: no check has the id "lifecycle.pong"`},
		{"baseline to stdout", []string{"--write-baseline", "-"}, "--write-baseline needs a file path"},
		{"baseline onto a directory", []string{"--write-baseline", dir}, "is a directory"},
		{"baseline in a missing folder", []string{"--write-baseline", filepath.Join(dir, "no", "b.yaml")}, "cannot be written: no folder"},
		{"artifact without sarif", []string{"--sarif-artifact", "mcp.json"}, "--sarif-artifact applies to the sarif format"},
		{"write without a file", []string{"--write", "sarif"}, `--write "sarif": want FORMAT=FILE`},
		{"write of an unknown format", []string{"--write", "pdf=r.pdf"}, `format "pdf" is not one of text, json`},
		{"write to stdout", []string{"--write", "json=-"}, "needs a file"},
		{"write onto a directory", []string{"--write", "json=" + dir}, "is a directory"},
		{"schemas that are not there", []string{"--official-schemas", filepath.Join(dir, "nope")}, "--official-schemas: " + filepath.Join(dir, "nope") + ": not a directory of official MCP schemas"},
		{"a directory without revisions", []string{"--official-schemas", dir}, "no <revision>/schema.json in it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append(append([]string{"check"}, tt.args...), "http://127.0.0.1:1/mcp")
			code, stdout, stderr := runCLI(t, context.Background(), args...)
			if code != exitUsage || !strings.Contains(stderr, tt.want) || stdout != "" {
				t.Errorf("exit %d, stderr:\n%s\nwant exit %d saying %q", code, stderr, exitUsage, tt.want)
			}
		})
	}
}

func TestCheckWritesMoreFormatsFromOneProbe(t *testing.T) {
	badPing := newHTTPFixture(t, &httpFixture{mcp: fixtureMCP{name: "x", version: "1", pingResult: `[]`}})
	dir := t.TempDir()
	sarif, md, js := filepath.Join(dir, "r.sarif"), filepath.Join(dir, "r.md"), filepath.Join(dir, "r.json")
	code, stdout, stderr := runCLI(t, context.Background(), "check", "--format", "github", "--write", "sarif="+sarif,
		"--write", "markdown="+md, "--write", "json="+js, "--sarif-artifact", "mcp.json", badPing.URL+"/mcp")
	if code != exitFailed || !strings.Contains(stdout, "::error title=mcpwatch lifecycle.ping") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	var rep struct {
		Verdict string `json:"verdict"`
	}
	data, err := os.ReadFile(js)
	if err != nil || json.Unmarshal(data, &rep) != nil || rep.Verdict != "fail" {
		t.Fatalf("json report: %v %+v", err, rep)
	}
	for path, want := range map[string]string{sarif: `"uri": "mcp.json"`, md: "### ❌ FAIL: "} {
		data, err := os.ReadFile(path)
		if err != nil || !strings.Contains(string(data), want) {
			t.Errorf("%s: %v, lacks %q", path, err, want)
		}
	}
}

func TestCheckSARIFArtifactNamesTheResultsLocation(t *testing.T) {
	badPing := newHTTPFixture(t, &httpFixture{mcp: fixtureMCP{name: "x", version: "1", pingResult: `[]`}})
	_, stdout, stderr := runCLI(t, context.Background(), "check", "--format", "sarif", "--sarif-artifact", "./server/mcp.json", badPing.URL+"/mcp")
	if !strings.Contains(stdout, `"uri": "server/mcp.json"`) {
		t.Errorf("artifact not used:\n%s\n%s", stdout, stderr)
	}
}

func TestCheckValidatesWithTheOfficialSchemasToo(t *testing.T) {
	dir := officialschemas.Dir(t)
	srv := newHTTPFixture(t, &httpFixture{mcp: fixtureMCP{name: "x", version: "1"}})
	code, stdout, stderr := runCLI(t, context.Background(), "check", "--format", "json", "--official-schemas", dir, srv.URL+"/mcp")
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	// The fixture is conformant by both: the official files add nothing.
	if strings.Contains(stdout, "official schema") {
		t.Errorf("the official schemas disagree on a conformant server:\n%s", stdout)
	}
	// A revision the directory lacks is said on the checks that could not be cross-checked.
	partial := t.TempDir()
	if err := os.MkdirAll(filepath.Join(partial, "2024-11-05"), 0o755); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "2024-11-05", "schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(partial, "2024-11-05", "schema.json"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ = runCLI(t, context.Background(), "check", "--format", "json", "--official-schemas", partial, srv.URL+"/mcp")
	if code != exitOK || !strings.Contains(stdout, "not checked with the official schemas") {
		t.Errorf("exit %d, no note for the missing revision:\n%s", code, stdout)
	}
}
