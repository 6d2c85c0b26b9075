package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwatch/mcpwatch/checks"
	"github.com/mcpwatch/mcpwatch/internal/redact"
	"github.com/mcpwatch/mcpwatch/internal/testkit/modroot"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

func renderSARIF(t *testing.T, r *Report, artifact string) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteSARIF(&buf, r, artifact); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// sarifSchema compiles the SARIF 2.1.0 schema that .ci/sarif-schema installs in .cache/sarif
// (or the file named by MCPWATCH_SARIF_SCHEMA). The schema is not part of the repository:
// without it the test skips, except in CI, where .ci/run installs it.
func sarifSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	file := os.Getenv("MCPWATCH_SARIF_SCHEMA")
	if file == "" {
		file = filepath.Join(modroot.Of(t), ".cache", "sarif", "sarif-schema-2.1.0.json")
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		msg := "SARIF 2.1.0 schema not found at " + file + " (run .ci/sarif-schema to install it): " + err.Error()
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat = true
	c.LoadURL = func(u string) (io.ReadCloser, error) { return nil, errors.New("no network in tests: " + u) }
	const url = "https://sarif.invalid/sarif-schema-2.1.0.json"
	if err := c.AddResource(url, bytes.NewReader(raw)); err != nil {
		t.Fatalf("SARIF schema %s: %v", file, err)
	}
	s, err := c.Compile(url)
	if err != nil {
		t.Fatalf("SARIF schema %s: %v", file, err)
	}
	return s
}

// sarifReports are reports of every shape a SARIF log has to carry: failures with frames,
// a probe that did not finish, an empty run, and baselined failures with a stale entry.
func sarifReports(t *testing.T) map[string]*Report {
	catalog := testCatalog(t)
	baselined := Build(stdioResult(), stdioFindings(), BuildOptions{
		Catalog: catalog,
		Baseline: &Baseline{File: "mcp-baseline.yaml", Entries: []BaselineEntry{
			{Check: "lifecycle.ping", Reason: "upstream SDK bug", Line: 1},
			{Check: "jsonrpc.parse", Line: 3},
		}},
	})
	return map[string]*Report{
		"stdio failures":         Build(stdioResult(), stdioFindings(), BuildOptions{Catalog: catalog, Generator: Generator{Name: "prober", Version: "v1.2.3"}}),
		"http probe error":       Build(httpInitFailedResult(), httpInitFailedFindings(), BuildOptions{Redactor: redact.New(fixtureSecret)}),
		"no findings":            Build(stdioResult(), nil, BuildOptions{}),
		"baselined with a stale": baselined,
	}
}

// testCatalog is a registry of the fixture's check ids with titles, as the CLI passes the
// real catalogue to Build.
func testCatalog(t *testing.T) *checks.Registry {
	t.Helper()
	var cs []checks.Check
	for _, f := range stdioFindings() {
		cs = append(cs, checks.Check{ID: f.ID, Area: f.Area, Rule: f.Rule, Spec: f.Spec,
			Title: "the " + f.ID + " rule holds", Evaluate: func(*checks.Capture, *checks.Finding) {}})
	}
	r, err := checks.NewRegistry(cs...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestSARIFValidatesAgainstTheSARIF210Schema(t *testing.T) {
	schema := sarifSchema(t)
	for name, r := range sarifReports(t) {
		for _, artifact := range []string{"", "server/mcp.json", "/abs/path/main.go"} {
			t.Run(name+" "+artifact, func(t *testing.T) {
				out := renderSARIF(t, r, artifact)
				var doc any
				if err := json.Unmarshal(out, &doc); err != nil {
					t.Fatalf("not JSON: %v", err)
				}
				if err := schema.Validate(doc); err != nil {
					t.Fatalf("SARIF does not validate: %#v\n%s", err, out)
				}
			})
		}
	}
}

// sarifDoc is the part of a SARIF log that GitHub code scanning requires, read back.
type sarifDoc struct {
	Schema  string `json:"$schema"`
	Version string `json:"version"`
	Runs    []struct {
		Tool struct {
			Driver struct {
				Name  string `json:"name"`
				Rules []struct {
					ID               string                          `json:"id"`
					ShortDescription struct{ Text string }           `json:"shortDescription"`
					FullDescription  struct{ Text string }           `json:"fullDescription"`
					Help             struct{ Text, Markdown string } `json:"help"`
					HelpURI          string                          `json:"helpUri"`
				} `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		Invocations []struct {
			ExecutionSuccessful bool `json:"executionSuccessful"`
			Notifications       []struct {
				Message struct{ Text string } `json:"message"`
			} `json:"toolExecutionNotifications"`
		} `json:"invocations"`
		Results []struct {
			RuleID    string                `json:"ruleId"`
			RuleIndex int                   `json:"ruleIndex"`
			Level     string                `json:"level"`
			Message   struct{ Text string } `json:"message"`
			Locations []struct {
				PhysicalLocation struct {
					ArtifactLocation struct {
						URI       string `json:"uri"`
						URIBaseID string `json:"uriBaseId"`
					} `json:"artifactLocation"`
					Region struct {
						StartLine, StartColumn, EndLine, EndColumn int
					} `json:"region"`
				} `json:"physicalLocation"`
			} `json:"locations"`
			PartialFingerprints map[string]string `json:"partialFingerprints"`
			BaselineState       string            `json:"baselineState"`
			Suppressions        []struct {
				Kind, Status, Justification string
			} `json:"suppressions"`
		} `json:"results"`
	} `json:"runs"`
}

func readSARIF(t *testing.T, out []byte) sarifDoc {
	t.Helper()
	var d sarifDoc
	if err := json.Unmarshal(out, &d); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if len(d.Runs) != 1 {
		t.Fatalf("%d runs, want 1", len(d.Runs))
	}
	return d
}

func TestSARIFHasWhatGitHubCodeScanningRequires(t *testing.T) {
	r := sarifReports(t)["stdio failures"]
	d := readSARIF(t, renderSARIF(t, r, "mcp.json"))
	if d.Version != "2.1.0" || d.Schema == "" {
		t.Errorf("version %q schema %q", d.Version, d.Schema)
	}
	run := d.Runs[0]
	if run.Tool.Driver.Name != "mcpwatch" {
		t.Errorf("driver name %q", run.Tool.Driver.Name)
	}
	if len(run.Tool.Driver.Rules) != len(r.Checks) {
		t.Fatalf("%d rules for %d checks: want one rule per check", len(run.Tool.Driver.Rules), len(r.Checks))
	}
	for i, rule := range run.Tool.Driver.Rules {
		if rule.ID != r.Checks[i].ID {
			t.Errorf("rule %d is %q, want %q", i, rule.ID, r.Checks[i].ID)
		}
		if rule.ShortDescription.Text == "" || rule.FullDescription.Text == "" || rule.Help.Text == "" {
			t.Errorf("rule %s lacks a description or help text: %+v", rule.ID, rule)
		}
		if !strings.Contains(rule.ShortDescription.Text, "rule holds") {
			t.Errorf("rule %s: short description %q is not the check's title", rule.ID, rule.ShortDescription.Text)
		}
		if spec := r.Checks[i].Spec; spec != "" && (rule.HelpURI != spec || !strings.Contains(rule.Help.Markdown, spec)) {
			t.Errorf("rule %s: helpUri %q, help markdown %q; want the spec link %s", rule.ID, rule.HelpURI, rule.Help.Markdown, spec)
		}
	}
	// One result per check that fails or warns, at its level, pointing at the artifact.
	want := map[string]string{"lifecycle.ping": "error", "stdio.stdout-purity": "error", "tools.description": "warning"}
	if len(run.Results) != len(want) {
		t.Fatalf("%d results, want %d", len(run.Results), len(want))
	}
	for _, res := range run.Results {
		if want[res.RuleID] != res.Level {
			t.Errorf("result %s level %q, want %q", res.RuleID, res.Level, want[res.RuleID])
		}
		if run.Tool.Driver.Rules[res.RuleIndex].ID != res.RuleID {
			t.Errorf("result %s: ruleIndex %d names another rule", res.RuleID, res.RuleIndex)
		}
		if len(res.Locations) != 1 {
			t.Fatalf("result %s: %d locations, want 1", res.RuleID, len(res.Locations))
		}
		pl := res.Locations[0].PhysicalLocation
		if pl.ArtifactLocation.URI != "mcp.json" || pl.ArtifactLocation.URIBaseID != "%SRCROOT%" || pl.Region.StartLine != 1 ||
			pl.Region.StartColumn != 1 || pl.Region.EndLine != 1 || pl.Region.EndColumn < 1 {
			t.Errorf("result %s: location %+v", res.RuleID, pl)
		}
		if h := res.PartialFingerprints["primaryLocationLineHash"]; len(h) != 18 || !strings.HasSuffix(h, ":1") {
			t.Errorf("result %s: primaryLocationLineHash %q", res.RuleID, h)
		}
		if !strings.HasPrefix(res.Message.Text, res.RuleID+": ") {
			t.Errorf("result %s: message %q does not start with the check id", res.RuleID, res.Message.Text)
		}
	}
	ping := run.Results[0]
	for _, part := range []string{`expected an empty result {}, got {"pong":true}`, "#7 ←", `"result":{"pong":true}`, "spec: https://"} {
		if !strings.Contains(ping.Message.Text, part) {
			t.Errorf("lifecycle.ping message lacks %q:\n%s", part, ping.Message.Text)
		}
	}
}

func TestSARIFFingerprintsAreStableAcrossRunsAndDistinctAcrossChecks(t *testing.T) {
	first := readSARIF(t, renderSARIF(t, Build(stdioResult(), stdioFindings(), BuildOptions{}), "mcp.json"))
	// The next run: other latencies, another message for the same fault.
	findings := stdioFindings()
	findings[2].Message = "ping: expected an empty result {}, got {\"pong\":false}"
	res := stdioResult()
	res.Duration = ms(20)
	second := readSARIF(t, renderSARIF(t, Build(res, findings, BuildOptions{}), "mcp.json"))
	other := readSARIF(t, renderSARIF(t, Build(stdioResult(), stdioFindings(), BuildOptions{}), "other/mcp.json"))
	seen := map[string]string{}
	for i, r := range first.Runs[0].Results {
		fp := r.PartialFingerprints["primaryLocationLineHash"]
		if got := second.Runs[0].Results[i].PartialFingerprints["primaryLocationLineHash"]; got != fp {
			t.Errorf("%s: fingerprint changed between runs: %s then %s", r.RuleID, fp, got)
		}
		if got := other.Runs[0].Results[i].PartialFingerprints["primaryLocationLineHash"]; got == fp {
			t.Errorf("%s: same fingerprint for another artifact", r.RuleID)
		}
		if prev, dup := seen[fp]; dup {
			t.Errorf("%s and %s share a fingerprint", prev, r.RuleID)
		}
		seen[fp] = r.RuleID
	}
}

func TestSARIFArtifactLocation(t *testing.T) {
	tests := []struct {
		name, artifact, target string
		uri, base              string
	}{
		{"relative file", "./server/mcp.json", "http://127.0.0.1:3901/mcp", "server/mcp.json", "%SRCROOT%"},
		{"relative file with a space", "my server/main.go", "x", "my%20server/main.go", "%SRCROOT%"},
		{"absolute path", "/work/repo/main.go", "x", "file:///work/repo/main.go", ""},
		{"file URI as given", "file:///work/repo/main.go", "x", "file:///work/repo/main.go", ""},
		{"URL target without artifact", "", "http://127.0.0.1:3901/mcp", "127.0.0.1%3A3901/mcp", "%SRCROOT%"},
		// Unescaped, localhost:3000/mcp would be a URI of scheme "localhost".
		{"host name with port", "", "http://localhost:3000/mcp", "localhost%3A3000/mcp", "%SRCROOT%"},
		{"credentials, query and fragment stay out", "", "https://user:[redacted]@mcp.example.com/v1/mcp?token=abc#x", "mcp.example.com/v1/mcp", "%SRCROOT%"},
		{"stdio command", "", "node server.js --stdio", "node%20server.js%20--stdio", "%SRCROOT%"},
		{"empty target", "", "", "mcp-server", "%SRCROOT%"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			loc := sarifArtifact(tt.artifact, tt.target)
			if loc.URI != tt.uri || loc.URIBaseID != tt.base {
				t.Fatalf("got uri %q base %q, want %q %q", loc.URI, loc.URIBaseID, tt.uri, tt.base)
			}
			u, err := url.Parse(loc.URI)
			if err != nil {
				t.Fatalf("not a URI reference: %v", err)
			}
			if (tt.base == "") != u.IsAbs() {
				t.Errorf("%q: absolute %v, but base id %q", loc.URI, u.IsAbs(), tt.base)
			}
		})
	}
}

func TestSARIFProbeErrorIsAToolNotification(t *testing.T) {
	d := readSARIF(t, renderSARIF(t, sarifReports(t)["http probe error"], ""))
	inv := d.Runs[0].Invocations
	if len(inv) != 1 || inv[0].ExecutionSuccessful || len(inv[0].Notifications) != 1 ||
		!strings.Contains(inv[0].Notifications[0].Message.Text, "initialize failed: HTTP status 500") {
		t.Fatalf("invocations = %+v", inv)
	}
	out := string(renderSARIF(t, sarifReports(t)["http probe error"], ""))
	if strings.Contains(out, "sk-live-0123456789abcdef") {
		t.Error("the secret echoed by the server is in the SARIF log")
	}
}

func TestSARIFMarksBaselinedResultsAsSuppressedAndUnchanged(t *testing.T) {
	d := readSARIF(t, renderSARIF(t, sarifReports(t)["baselined with a stale"], ""))
	states := map[string]string{}
	for _, r := range d.Runs[0].Results {
		states[r.RuleID] = r.BaselineState
		if r.RuleID == "lifecycle.ping" {
			if len(r.Suppressions) != 1 || r.Suppressions[0].Kind != "external" || r.Suppressions[0].Status != "accepted" ||
				!strings.Contains(r.Suppressions[0].Justification, "upstream SDK bug") {
				t.Errorf("suppressions = %+v", r.Suppressions)
			}
		} else if len(r.Suppressions) != 0 {
			t.Errorf("%s suppressed: %+v", r.RuleID, r.Suppressions)
		}
	}
	if states["lifecycle.ping"] != "unchanged" || states["stdio.stdout-purity"] != "new" {
		t.Errorf("baseline states = %v", states)
	}
}

// The schema test above could pass vacuously with a schema that accepts anything: the same
// schema must reject a log that breaks SARIF in the ways a writer bug would.
func TestSARIFSchemaRejectsBrokenLogs(t *testing.T) {
	schema := sarifSchema(t)
	out := renderSARIF(t, sarifReports(t)["stdio failures"], "")
	breaks := map[string]func(doc map[string]any){
		"wrong version": func(doc map[string]any) { doc["version"] = "2.0.0" },
		"result without message": func(doc map[string]any) {
			delete(firstResult(doc), "message")
		},
		"unknown level": func(doc map[string]any) { firstResult(doc)["level"] = "fatal" },
		"region line 0": func(doc map[string]any) {
			loc := firstResult(doc)["locations"].([]any)[0].(map[string]any)
			loc["physicalLocation"].(map[string]any)["region"].(map[string]any)["startLine"] = 0
		},
	}
	for name, mutate := range breaks {
		t.Run(name, func(t *testing.T) {
			var doc map[string]any
			if err := json.Unmarshal(out, &doc); err != nil {
				t.Fatal(err)
			}
			mutate(doc)
			if err := schema.Validate(doc); err == nil {
				t.Fatal("the schema accepted a broken log")
			}
		})
	}
}

func firstResult(doc map[string]any) map[string]any {
	run := doc["runs"].([]any)[0].(map[string]any)
	return run["results"].([]any)[0].(map[string]any)
}

func TestSARIFToolVersionStartsWithANumber(t *testing.T) {
	tests := []struct{ generator, version, semantic string }{
		{"1.4.0", "1.4.0", "1.4.0"},
		{"v1.4.0", "1.4.0", "1.4.0"},
		{"v1.5.0-rc.1", "1.5.0-rc.1", "1.5.0-rc.1"},
		{"v0.0.0-20261126181700-0123456789ab", "0.0.0-20261126181700-0123456789ab", "0.0.0-20261126181700-0123456789ab"},
		{"2026.11", "2026.11", ""},
		{"dev", "0.0.0-dev", "0.0.0-dev"},
		{"dev+0123456789ab-dirty", "0.0.0-dev+0123456789ab-dirty", "0.0.0-dev+0123456789ab-dirty"},
		{"", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.generator, func(t *testing.T) {
			d := sarifDriverOf(Generator{Name: "mcpwatch prober", Version: tt.generator})
			if d.Version != tt.version || d.SemanticVersion != tt.semantic {
				t.Errorf("version %q semanticVersion %q, want %q %q", d.Version, d.SemanticVersion, tt.version, tt.semantic)
			}
		})
	}
}
