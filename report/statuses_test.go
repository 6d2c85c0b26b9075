package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpwatch/mcpwatch/checks"
)

// untestedReason is the message of the fixture's untested check.
const untestedReason = "no list method was sent: the probe stopped early (the server exited)"

// statusFindings are the stdio fixture's findings with a check the probe could not judge and
// tools.description as advice (no normative keyword: the field is optional), besides its
// failures, its skip and its fact.
func statusFindings() []checks.Finding {
	var out []checks.Finding
	for _, f := range stdioFindings() {
		if f.ID == "tools.description" {
			f.Severity = checks.SeverityAdvice
			f.Evidence = []checks.Evidence{{Severity: checks.SeverityAdvice, Message: f.Message, Frames: []int{5}, Tool: "echo"}}
		}
		out = append(out, f)
	}
	return append(out,
		checks.Finding{ID: "lifecycle.capabilities", Status: checks.StatusUntested, Area: "lifecycle", Rule: "C5, E5", Message: untestedReason},
		checks.Finding{ID: "tools.name-format", Status: checks.StatusWarn, Severity: checks.SeverityWarning, Area: "tools", Rule: "E4",
			Message:  `tool name "a b" has a space`,
			Evidence: []checks.Evidence{{Severity: checks.SeverityWarning, Message: `tool name "a b" has a space`, Tool: "a b"}}},
	)
}

// passingWithUntested has nothing wrong, one untested check and one skip.
func passingWithUntested() []checks.Finding {
	return []checks.Finding{
		{ID: "jsonrpc.parse", Status: checks.StatusPass, Area: "jsonrpc", Message: "ok"},
		{ID: "lifecycle.capabilities", Status: checks.StatusUntested, Area: "lifecycle", Message: untestedReason},
		{ID: "http.status", Status: checks.StatusSkip, Area: "http", Message: "applies to the http transport only"},
	}
}

func TestBuildCountsUntestedAndAdviceApartAndNeverAsPasses(t *testing.T) {
	r := Build(stdioResult(), statusFindings(), BuildOptions{})
	s := r.Summary
	if s.Untested != 1 || s.Skip != 1 || s.Pass != 2 || s.Warn != 2 || s.Advice != 1 || s.Total != 9 {
		t.Errorf("summary %+v: want 1 untested apart from 1 skip and 2 passes, 2 warn of which 1 advice", s)
	}
	for _, tt := range []struct {
		failOn  checks.Severity
		failing int
	}{{checks.SeverityError, 2}, {checks.SeverityWarning, 3}, {checks.SeverityAdvice, 4}} {
		r := Build(stdioResult(), statusFindings(), BuildOptions{FailOn: tt.failOn})
		if r.Summary.Failing != tt.failing {
			t.Errorf("fail-on %s: %d failing, want %d (advice gates only at advice, untested never)", tt.failOn, r.Summary.Failing, tt.failing)
		}
	}
	for _, failOn := range []checks.Severity{checks.SeverityError, checks.SeverityWarning, checks.SeverityAdvice} {
		r := Build(stdioResult(), passingWithUntested(), BuildOptions{FailOn: failOn})
		if r.Verdict != VerdictPass || r.Summary.Failing != 0 || r.Summary.Pass != 1 || r.Summary.Untested != 1 {
			t.Errorf("fail-on %s: verdict %s, summary %+v; an untested check neither fails the gate by itself nor passes", failOn, r.Verdict, r.Summary)
		}
	}
}

func TestJSONCountsUntestedAndAdvice(t *testing.T) {
	doc := decodeJSON(t, Build(stdioResult(), statusFindings(), BuildOptions{FailOn: checks.SeverityAdvice}))
	sum := doc["summary"].(map[string]any)
	if sum["untested"] != json.Number("1") || sum["skip"] != json.Number("1") || sum["advice"] != json.Number("1") || sum["failing"] != json.Number("4") {
		t.Errorf("summary %v: want untested 1, skip 1, advice 1, failing 4", sum)
	}
	if doc["failOn"] != "advice" {
		t.Errorf("failOn %v", doc["failOn"])
	}
	byID := map[string]map[string]any{}
	for _, c := range asList(doc["checks"]) {
		m := c.(map[string]any)
		byID[m["id"].(string)] = m
	}
	if c := byID["lifecycle.capabilities"]; c["status"] != "untested" || c["severity"] != nil || c["message"] != untestedReason {
		t.Errorf("untested check %v", c)
	}
	if c := byID["tools.description"]; c["status"] != "warn" || c["severity"] != "advice" {
		t.Errorf("advice check %v", c)
	}
}

func TestTextListsUntestedAndAdviceUnderTheirOwnHeadings(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteText(&buf, Build(stdioResult(), statusFindings(), BuildOptions{}), TextOptions{Width: 200}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	sections := textSections(out)
	if s := sections["Untested"]; !strings.Contains(s, "lifecycle.capabilities") || !strings.Contains(s, untestedReason) {
		t.Errorf("no Untested section naming the check and why:\n%s", out)
	}
	for _, other := range []string{"Skipped", "Passed", "Failures and warnings"} {
		if strings.Contains(sections[other], "lifecycle.capabilities") {
			t.Errorf("the untested check is listed under %q:\n%s", other, out)
		}
	}
	if s := sections["Advice"]; !strings.Contains(s, "tools.description") || !strings.Contains(s, "advice") {
		t.Errorf("no Advice section with tools.description:\n%s", out)
	}
	if s := sections["Failures and warnings"]; strings.Contains(s, "tools.description") || !strings.Contains(out, "Failures and warnings (2 failed, 1 warned)") {
		t.Errorf("advice among the failures and warnings, or wrong counts:\n%s", out)
	}
	if !strings.Contains(out, "2 failed · 1 warned · 1 advice · 1 untested · 1 skipped · 1 info") {
		t.Errorf("verdict line does not count advice and untested apart:\n%s", out)
	}

	buf.Reset()
	if err := WriteText(&buf, Build(stdioResult(), passingWithUntested(), BuildOptions{}), TextOptions{Width: 200}); err != nil {
		t.Fatal(err)
	}
	last := lastLine(buf.String())
	if !strings.HasPrefix(last, "PASS") || !strings.Contains(last, "1 check untested, not passed") {
		t.Errorf("a pass with an untested check must say so: %q", last)
	}
}

// textSections splits a text report at its section titles (lines starting a word at column
// 0), keyed by the title's first words up to " (".
func textSections(out string) map[string]string {
	sections := map[string]string{}
	title := ""
	for _, line := range strings.Split(out, "\n") {
		if line != "" && line[0] != ' ' && !strings.HasPrefix(line, "─") {
			title, _, _ = strings.Cut(line, " (")
			continue
		}
		sections[title] += line + "\n"
	}
	return sections
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

func TestMarkdownListsUntestedAndAdviceUnderTheirOwnHeadings(t *testing.T) {
	out := renderMarkdown(t, Build(stdioResult(), statusFindings(), BuildOptions{}))
	advice := between(out, "#### Advice", "\n\n|")
	untested := between(out, "#### Untested (1)", "<details>")
	skipped := between(out, "Skipped and facts", "</details>")
	problems := between(out, "| | Check | Severity |", "\n\n")
	if !strings.Contains(out, "2 passed, **2 failed**, 1 warned, 1 advice, 1 untested, 1 skipped, 1 info") {
		t.Errorf("header counts:\n%s", out)
	}
	if advice == "" || !strings.Contains(out[strings.Index(out, "#### Advice"):], "| 💡 | `tools.description` |") {
		t.Errorf("no Advice table with tools.description:\n%s", out)
	}
	if strings.Contains(problems, "tools.description") || !strings.Contains(problems, "tools.name-format") {
		t.Errorf("the failures table holds advice or lacks the warning:\n%s", problems)
	}
	if !strings.Contains(untested, "| `lifecycle.capabilities` | `"+untestedReason+"` |") {
		t.Errorf("no Untested table with the check and why:\n%s", out)
	}
	if strings.Contains(skipped, "lifecycle.capabilities") || !strings.Contains(skipped, "http.status") {
		t.Errorf("the untested check is among the skipped:\n%s", skipped)
	}
}

// between is the part of s after the first from and before the next to ("" without from).
func between(s, from, to string) string {
	i := strings.Index(s, from)
	if i < 0 {
		return ""
	}
	rest := s[i+len(from):]
	if j := strings.Index(rest, to); j >= 0 {
		return rest[:j]
	}
	return rest
}

func TestJUnitMarksUntestedApartFromSkipsAndAdviceBelowTheThreshold(t *testing.T) {
	doc, _ := parseJUnit(t, Build(stdioResult(), statusFindings(), BuildOptions{}))
	s := doc.Suites[0]
	untested := caseNamed(t, s, "lifecycle.capabilities")
	if untested.Skipped == nil || untested.Skipped.Type != "untested" || untested.Skipped.Message != "untested: "+untestedReason || untested.Failure != nil {
		t.Errorf("untested case %+v: want <skipped type=untested> with the reason", untested)
	}
	skipped := caseNamed(t, s, "http.status")
	if skipped.Skipped == nil || skipped.Skipped.Type != "" {
		t.Errorf("skipped case %+v: a skip carries no type, so it reads apart from untested", skipped)
	}
	advice := caseNamed(t, s, "tools.description")
	if advice.Failure != nil || !strings.HasPrefix(advice.SystemOut, "advice below the --fail-on threshold (error)") {
		t.Errorf("advice case %+v", advice)
	}
	if s.Failures != 2 || s.Skipped != 2 {
		t.Errorf("suite failures %d skipped %d, want 2 and 2", s.Failures, s.Skipped)
	}
	doc, _ = parseJUnit(t, Build(stdioResult(), statusFindings(), BuildOptions{FailOn: checks.SeverityAdvice}))
	if c := caseNamed(t, doc.Suites[0], "tools.description"); c.Failure == nil || c.Failure.Type != "advice" {
		t.Errorf("at --fail-on advice, advice is a failure of type advice: %+v", c)
	}
}

func TestSARIFResultsOfUntestedAreOpenAndAdviceIsANote(t *testing.T) {
	r := Build(stdioResult(), statusFindings(), BuildOptions{Catalog: testCatalog(t),
		Baseline: &Baseline{File: "b.yaml", Entries: []BaselineEntry{{Check: "lifecycle.ping"}}}})
	var doc map[string]any
	if err := json.Unmarshal(renderSARIF(t, r, ""), &doc); err != nil {
		t.Fatal(err)
	}
	byRule := map[string]map[string]any{}
	for _, res := range asList(doc["runs"].([]any)[0].(map[string]any)["results"]) {
		m := res.(map[string]any)
		byRule[m["ruleId"].(string)] = m
	}
	if u := byRule["lifecycle.capabilities"]; u == nil || u["kind"] != "open" || u["level"] != "none" || u["baselineState"] != nil ||
		!strings.Contains(u["message"].(map[string]any)["text"].(string), untestedReason) {
		t.Errorf("untested result %v: want kind open, level none, no baseline state, the reason", u)
	}
	if a := byRule["tools.description"]; a == nil || a["kind"] != "fail" || a["level"] != "note" {
		t.Errorf("advice result %v: want level note", a)
	}
	if _, ok := byRule["http.status"]; ok {
		t.Error("a skipped check has a result")
	}
}

func TestSARIFWithUntestedAndAdviceValidates(t *testing.T) {
	schema := sarifSchema(t)
	out := renderSARIF(t, Build(stdioResult(), statusFindings(), BuildOptions{Catalog: testCatalog(t)}), "")
	var doc any
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	if err := schema.Validate(doc); err != nil {
		t.Fatalf("SARIF does not validate: %#v\n%s", err, out)
	}
}

func TestGitHubAdviceIsANoticeAndUntestedChecksShareOne(t *testing.T) {
	out := renderGitHub(t, Build(stdioResult(), statusFindings(), BuildOptions{}))
	var notices []command
	for _, c := range parseCommands(t, out) {
		if c.name == "notice" {
			notices = append(notices, c)
		}
		if c.name != "notice" && strings.Contains(c.props["title"], "tools.description") {
			t.Errorf("advice annotated as %s", c.name)
		}
	}
	var sawAdvice, sawUntested bool
	for _, n := range notices {
		switch {
		case strings.Contains(n.props["title"], "tools.description"):
			sawAdvice = strings.Contains(n.data, "advice: ")
		case n.props["title"] == "mcpwatch: 1 check untested":
			sawUntested = strings.Contains(n.data, "lifecycle.capabilities: "+untestedReason) && !strings.Contains(n.data, "http.status")
		}
	}
	if !sawAdvice || !sawUntested {
		t.Errorf("notices %+v: want one for the advice and one naming the untested check", notices)
	}
	if !strings.Contains(out, "(2 passed, 2 failed, 1 warned, 1 advice, 1 untested, 1 skipped, 1 info)") {
		t.Errorf("log group header does not count untested and advice apart:\n%s", out)
	}
	if !strings.Contains(out, "check      UNTESTED ") {
		t.Errorf("the log group does not list the untested check by its status:\n%s", out)
	}
}

func TestBaselineNeitherForgetsNorStalesNorFailsOnUntested(t *testing.T) {
	b := &Baseline{File: "b.yaml", Entries: []BaselineEntry{
		{Check: "lifecycle.capabilities", Reason: "lists fail on the staging server", Line: 1},
		{Check: "lifecycle.ping", Line: 3},
	}}
	r := Build(stdioResult(), statusFindings(), BuildOptions{Baseline: b})
	for _, e := range r.Baseline.Stale {
		if e.Check == "lifecycle.capabilities" {
			t.Error("an entry of an untested check is stale: untested is not a pass")
		}
	}
	nb := NewBaseline(r, b)
	kept := false
	for _, e := range nb.Entries {
		if e.Check == "lifecycle.capabilities" {
			kept = e.Reason == "lists fail on the staging server"
		}
	}
	if !kept {
		t.Errorf("rewritten baseline %+v forgets the entry of the untested check", nb.Entries)
	}
	fresh := NewBaseline(Build(stdioResult(), passingWithUntested(), BuildOptions{FailOn: checks.SeverityAdvice}), nil)
	if len(fresh.Entries) != 0 {
		t.Errorf("a baseline written from a run with an untested check accepts %+v: untested is no failure", fresh.Entries)
	}
}

func TestBaselineAcceptsAdviceByToolAtFailOnAdvice(t *testing.T) {
	r := Build(stdioResult(), statusFindings(), BuildOptions{FailOn: checks.SeverityAdvice})
	nb := NewBaseline(r, nil)
	var entry *BaselineEntry
	for i, e := range nb.Entries {
		if e.Check == "tools.description" {
			entry = &nb.Entries[i]
		}
	}
	if entry == nil || entry.Tool != "echo" {
		t.Fatalf("entries %+v: want tools.description for tool echo", nb.Entries)
	}
	again := Build(stdioResult(), statusFindings(), BuildOptions{FailOn: checks.SeverityAdvice, Baseline: nb})
	if again.Verdict != VerdictPass || again.Summary.Baselined != 4 {
		t.Errorf("judged by its own baseline: verdict %s, summary %+v", again.Verdict, again.Summary)
	}
}

func TestRevisionsCountUntestedAndListItAsADifference(t *testing.T) {
	main := []checks.Finding{finding("lifecycle.capabilities", checks.StatusPass)}
	other := []checks.Finding{finding("lifecycle.capabilities", checks.StatusUntested)}
	r := Build(revisionResult("2025-11-25", true), main, BuildOptions{})
	AddRevisions(r, []RevisionRun{{Result: revisionResult("2025-11-25", true)}, {Result: revisionResult("2025-06-18", true), Findings: other}}, 0, BuildOptions{})
	rev := r.Revisions[1]
	if rev.Summary.Untested != 1 || len(rev.Differences) != 1 || rev.Differences[0].Status != "untested" {
		t.Errorf("revision %+v: an untested check where the main revision passes is a difference", rev)
	}
	var buf bytes.Buffer
	if err := WriteText(&buf, r, TextOptions{Width: 200}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), " 1 untested ") || !strings.Contains(buf.String(), "lifecycle.capabilities untested") {
		t.Errorf("revisions table:\n%s", buf.String())
	}
}
