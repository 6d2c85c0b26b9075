package report

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/mcpwatch/mcpwatch/checks"
	"github.com/mcpwatch/mcpwatch/internal/redact"
)

// The JUnit output is read back with types of the test's own, as a CI system would read it.
type parsedSuites struct {
	XMLName  xml.Name      `xml:"testsuites"`
	Tests    int           `xml:"tests,attr"`
	Failures int           `xml:"failures,attr"`
	Errors   int           `xml:"errors,attr"`
	Skipped  int           `xml:"skipped,attr"`
	Suites   []parsedSuite `xml:"testsuite"`
}

type parsedSuite struct {
	Name       string `xml:"name,attr"`
	Tests      int    `xml:"tests,attr"`
	Failures   int    `xml:"failures,attr"`
	Errors     int    `xml:"errors,attr"`
	Skipped    int    `xml:"skipped,attr"`
	Timestamp  string `xml:"timestamp,attr"`
	Properties []struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	} `xml:"properties>property"`
	Cases []parsedCase `xml:"testcase"`
}

type parsedCase struct {
	Name      string `xml:"name,attr"`
	Classname string `xml:"classname,attr"`
	Failure   *struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Body    string `xml:",chardata"`
	} `xml:"failure"`
	Error *struct {
		Message string `xml:"message,attr"`
		Body    string `xml:",chardata"`
	} `xml:"error"`
	Skipped *struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
	} `xml:"skipped"`
	SystemOut string `xml:"system-out"`
}

func parseJUnit(t *testing.T, r *Report) (parsedSuites, string) {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteJUnit(&buf, r); err != nil {
		t.Fatal(err)
	}
	var doc parsedSuites
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("JUnit output does not parse: %v\n%s", err, buf.String())
	}
	if len(doc.Suites) != 1 {
		t.Fatalf("%d suites, want 1", len(doc.Suites))
	}
	return doc, buf.String()
}

func caseNamed(t *testing.T, s parsedSuite, name string) parsedCase {
	t.Helper()
	for _, c := range s.Cases {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no test case %q", name)
	return parsedCase{}
}

func TestJUnitHasOneTestCasePerCheckClassedByArea(t *testing.T) {
	r := Build(stdioResult(), stdioFindings(), BuildOptions{Catalog: testCatalog(t)})
	doc, _ := parseJUnit(t, r)
	s := doc.Suites[0]
	if len(s.Cases) != len(r.Checks) || s.Tests != len(r.Checks) || doc.Tests != len(r.Checks) {
		t.Fatalf("%d cases (tests=%d/%d) for %d checks", len(s.Cases), s.Tests, doc.Tests, len(r.Checks))
	}
	for i, c := range r.Checks {
		if s.Cases[i].Name != c.ID || s.Cases[i].Classname != "mcpwatch."+c.Area {
			t.Errorf("case %d = %s / %s, want %s / mcpwatch.%s", i, s.Cases[i].Name, s.Cases[i].Classname, c.ID, c.Area)
		}
	}
	if s.Failures != 2 || doc.Failures != 2 || s.Skipped != 1 || s.Errors != 0 {
		t.Errorf("counts failures=%d/%d skipped=%d errors=%d, want 2, 1, 0", s.Failures, doc.Failures, s.Skipped, s.Errors)
	}
	if s.Timestamp != "2026-11-22T06:50:00" || !strings.Contains(s.Name, "node server.js --stdio") {
		t.Errorf("suite %q timestamp %q", s.Name, s.Timestamp)
	}
	props := map[string]string{}
	for _, p := range s.Properties {
		props[p.Name] = p.Value
	}
	if props["transport"] != "stdio" || props["protocolVersion"] != "2025-06-18" || props["server"] != "demo-server 1.2.3" {
		t.Errorf("properties = %v", props)
	}
}

func TestJUnitFailureCarriesTheEvidenceAndFrames(t *testing.T) {
	r := Build(stdioResult(), stdioFindings(), BuildOptions{Catalog: testCatalog(t)})
	doc, _ := parseJUnit(t, r)
	ping := caseNamed(t, doc.Suites[0], "lifecycle.ping")
	if ping.Failure == nil {
		t.Fatal("lifecycle.ping has no <failure>")
	}
	if ping.Failure.Type != "error" || !strings.Contains(ping.Failure.Message, `got {"pong":true}`) {
		t.Errorf("failure type %q message %q", ping.Failure.Type, ping.Failure.Message)
	}
	inOrder(t, ping.Failure.Body,
		"rule: the lifecycle.ping rule holds", "rule letters: C6",
		`error: ping: expected an empty result {}, got {"pong":true}  [frames #6 #7]`,
		"#6 →", `"method":"ping"`, "#7 ←", `"result":{"pong":true}`,
		"spec: https://modelcontextprotocol.io/specification/2025-06-18/basic/utilities/ping")
	purity := caseNamed(t, doc.Suites[0], "stdio.stdout-purity")
	if purity.Failure == nil {
		t.Fatal("stdio.stdout-purity has no <failure>")
	}
	// The terminal escapes the server printed are shown escaped, not sent to the CI log.
	if strings.Contains(purity.Failure.Body, "\x1b") || !strings.Contains(purity.Failure.Body, `\x1b[2J`) {
		t.Errorf("escape bytes not neutralised:\n%q", purity.Failure.Body)
	}
	if !strings.Contains(purity.Failure.Body, "… and 3 more occurrences not shown") {
		t.Errorf("overflow not said:\n%s", purity.Failure.Body)
	}
}

func TestJUnitMirrorsTheVerdictForWarningsSkipsAndFacts(t *testing.T) {
	tests := []struct {
		name   string
		failOn checks.Severity
		// the element that tools.description gets
		descFails bool
	}{
		{"warning below the threshold passes", checks.SeverityError, false},
		{"warning at the threshold fails", checks.SeverityWarning, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, _ := parseJUnit(t, Build(stdioResult(), stdioFindings(), BuildOptions{FailOn: tt.failOn}))
			desc := caseNamed(t, doc.Suites[0], "tools.description")
			if (desc.Failure != nil) != tt.descFails {
				t.Fatalf("tools.description failure = %+v, want failing %v", desc.Failure, tt.descFails)
			}
			if tt.descFails && desc.Failure.Type != "warning" {
				t.Errorf("failure type %q, want warning", desc.Failure.Type)
			}
			if !tt.descFails && !strings.Contains(desc.SystemOut, `tool echo: tool "echo" has no description`) {
				t.Errorf("warning evidence not in system-out: %q", desc.SystemOut)
			}
			skip := caseNamed(t, doc.Suites[0], "http.status")
			if skip.Skipped == nil || skip.Skipped.Message != "applies to the http transport only" || skip.Failure != nil {
				t.Errorf("http.status = %+v", skip)
			}
			info := caseNamed(t, doc.Suites[0], "tools.fingerprint")
			if info.Failure != nil || info.Skipped != nil || !strings.Contains(info.SystemOut, "sha256:9f86d081884c") {
				t.Errorf("tools.fingerprint = %+v", info)
			}
			pass := caseNamed(t, doc.Suites[0], "jsonrpc.parse")
			if pass.Failure != nil || pass.Skipped != nil || pass.Error != nil {
				t.Errorf("jsonrpc.parse = %+v", pass)
			}
		})
	}
}

func TestJUnitProbeErrorIsAnErrorCaseAndSecretsStayOut(t *testing.T) {
	r := Build(httpInitFailedResult(), httpInitFailedFindings(), BuildOptions{Redactor: redact.New(fixtureSecret)})
	doc, raw := parseJUnit(t, r)
	probeCase := caseNamed(t, doc.Suites[0], "probe")
	if probeCase.Error == nil || !strings.Contains(probeCase.Error.Message, "initialize failed: HTTP status 500") {
		t.Fatalf("probe case = %+v", probeCase)
	}
	if doc.Errors != 1 || doc.Suites[0].Tests != len(r.Checks)+1 {
		t.Errorf("errors %d tests %d", doc.Errors, doc.Suites[0].Tests)
	}
	if strings.Contains(raw, "sk-live-0123456789abcdef") {
		t.Error("the secret echoed by the server is in the JUnit output")
	}
}

func TestJUnitStaysWellFormedWithHostileBytes(t *testing.T) {
	findings := stdioFindings()
	hostile := "]]></failure><injected/>\x00\x07\uFFFE\uFFFF & <b>\"'"
	findings[2].Message = hostile
	findings[2].Evidence[0].Message = hostile
	findings[3].Evidence[0].Tool = hostile
	doc, raw := parseJUnit(t, Build(stdioResult(), findings, BuildOptions{FailOn: checks.SeverityWarning}))
	if strings.Contains(raw, "<injected/>") {
		t.Error("server text became XML markup")
	}
	ping := caseNamed(t, doc.Suites[0], "lifecycle.ping")
	if ping.Failure == nil || !strings.Contains(ping.Failure.Message, "]]></failure><injected/>") {
		t.Errorf("hostile message not carried as text: %+v", ping.Failure)
	}
}

func TestJUnitBaselinedFailureIsSkippedWithItsReason(t *testing.T) {
	r := Build(stdioResult(), stdioFindings(), BuildOptions{Baseline: &Baseline{File: "b.yaml",
		Entries: []BaselineEntry{{Check: "lifecycle.ping", Reason: "upstream SDK bug"}}}})
	doc, _ := parseJUnit(t, r)
	ping := caseNamed(t, doc.Suites[0], "lifecycle.ping")
	if ping.Failure != nil || ping.Skipped == nil || ping.Skipped.Type != "baselined" ||
		!strings.Contains(ping.Skipped.Message, "upstream SDK bug") {
		t.Fatalf("lifecycle.ping = %+v", ping)
	}
	if !strings.Contains(ping.SystemOut, `"result":{"pong":true}`) {
		t.Errorf("baselined evidence not in system-out: %q", ping.SystemOut)
	}
	if doc.Failures != 1 || doc.Skipped != 2 {
		t.Errorf("failures %d skipped %d, want 1 and 2", doc.Failures, doc.Skipped)
	}
}
