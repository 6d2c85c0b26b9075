package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwatch/mcpwatch/checks"
)

func knownIDs(ids ...string) func(string) bool {
	return func(id string) bool {
		for _, k := range ids {
			if k == id {
				return true
			}
		}
		return false
	}
}

var fixtureIDs = knownIDs("lifecycle.ping", "tools.description", "stdio.stdout-purity", "jsonrpc.parse",
	"jsonrpc.version", "http.status", "tools.fingerprint", "tools.name-format")

func TestParseBaselineReadsEntries(t *testing.T) {
	src := `# accepted for now
- check: lifecycle.ping
  reason: "the SDK answers {\"ok\":true}; fixed in 1.4"
- check: tools.name-format
  tool: legacy tool
- jsonrpc.parse   # a bare id
`
	b, err := ParseBaseline("b.yaml", []byte(src), fixtureIDs)
	if err != nil {
		t.Fatal(err)
	}
	want := []BaselineEntry{
		{Check: "lifecycle.ping", Reason: `the SDK answers {"ok":true}; fixed in 1.4`, Line: 2},
		{Check: "tools.name-format", Tool: "legacy tool", Line: 4},
		{Check: "jsonrpc.parse", Line: 6},
	}
	if len(b.Entries) != len(want) {
		t.Fatalf("entries = %+v", b.Entries)
	}
	for i := range want {
		if b.Entries[i] != want[i] {
			t.Errorf("entry %d = %+v, want %+v", i, b.Entries[i], want[i])
		}
	}
	for _, empty := range []string{"", "# nothing accepted yet\n", "~\n", "[]\n"} {
		b, err := ParseBaseline("b.yaml", []byte(empty), fixtureIDs)
		if err != nil || len(b.Entries) != 0 {
			t.Errorf("%q: %v, %d entries; want an empty baseline", empty, err, len(b.Entries))
		}
	}
}

func TestParseBaselineErrorsNameTheLine(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"unknown check", "- check: lifecycle.ping\n- check: lifecycle.pong\n", `b.yaml:2: entry 2: no check has the id "lifecycle.pong"`},
		{"unknown key", "- check: lifecycle.ping\n  tol: x\n", `b.yaml:1: entry 1: line 2: unknown key "tol" (want check, tool or reason)`},
		{"no check", "- tool: x\n", "b.yaml:1: entry 1: no check id"},
		{"pattern", "- check: http.*\n", `b.yaml:1: entry 1: check "http.*": a baseline accepts the failures of one check`},
		{"duplicate", "- lifecycle.ping\n- check: tools.description\n- check: lifecycle.ping\n", "b.yaml:3: entry 3 repeats the entry on line 1"},
		{"not a list", "check: lifecycle.ping\n", "b.yaml:1: want a list of entries (- check: ID), got a mapping"},
		{"list value", "- check: [a, b]\n", "b.yaml:1: entry 1: line 1: check must be a string, got a list"},
		{"null value", "- check: lifecycle.ping\n  reason:\n", "b.yaml:1: entry 1: line 2: reason must be a string, got nothing"},
		{"nested list", "- - lifecycle.ping\n", "b.yaml:1: entry 1: want a check id or a mapping"},
		{"syntax", "- check: lifecycle.ping\n  reason: [unclosed\n", "b.yaml: yaml: line "},
		{"two documents", "- lifecycle.ping\n---\n- tools.description\n", "b.yaml:2: a second YAML document"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseBaseline("b.yaml", []byte(tt.src), fixtureIDs)
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("error %v, want one starting %q", err, tt.want)
			}
		})
	}
}

func TestLoadBaselineRefusesAHugeFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "b.yaml")
	if err := os.WriteFile(path, bytes.Repeat([]byte("- lifecycle.ping\n"), maxBaselineBytes/8), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadBaseline(path, fixtureIDs); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("error = %v", err)
	}
	if _, err := LoadBaseline(filepath.Join(t.TempDir(), "missing.yaml"), fixtureIDs); err == nil {
		t.Fatal("a missing file is not an error")
	}
}

// toolFindings: tools.name-format fails for two tools, tools.description warns for one.
func toolFindings() []checks.Finding {
	return []checks.Finding{
		{ID: "tools.name-format", Status: checks.StatusFail, Severity: checks.SeverityError, Area: "tools", Message: "bad names",
			Evidence: []checks.Evidence{
				{Severity: checks.SeverityError, Message: "name has a space", Tool: "legacy tool"},
				{Severity: checks.SeverityError, Message: "name has a slash", Tool: "a/b"},
			}},
		{ID: "lifecycle.ping", Status: checks.StatusFail, Severity: checks.SeverityError, Area: "lifecycle", Message: "not empty",
			Evidence: []checks.Evidence{{Severity: checks.SeverityError, Message: "not empty"}}},
		{ID: "tools.description", Status: checks.StatusWarn, Severity: checks.SeverityWarning, Area: "tools", Message: "no description",
			Evidence: []checks.Evidence{{Severity: checks.SeverityWarning, Message: "no description", Tool: "x"}}},
		{ID: "jsonrpc.parse", Status: checks.StatusPass, Area: "jsonrpc", Message: "ok"},
		{ID: "http.status", Status: checks.StatusSkip, Area: "http", Message: "stdio"},
	}
}

func TestBaselineGatesOnNewFailuresOnly(t *testing.T) {
	tests := []struct {
		name      string
		failOn    checks.Severity
		entries   []BaselineEntry
		baselined []string
		verdict   string
		failing   int
	}{
		{"no baseline", checks.SeverityError, nil, nil, VerdictFail, 2},
		{"every failure accepted", checks.SeverityError,
			[]BaselineEntry{{Check: "tools.name-format"}, {Check: "lifecycle.ping"}},
			[]string{"tools.name-format", "lifecycle.ping"}, VerdictPass, 0},
		{"both tools accepted", checks.SeverityError,
			[]BaselineEntry{{Check: "tools.name-format", Tool: "legacy tool"}, {Check: "tools.name-format", Tool: "a/b"}, {Check: "lifecycle.ping"}},
			[]string{"tools.name-format", "lifecycle.ping"}, VerdictPass, 0},
		{"a new failing tool fails the run", checks.SeverityError,
			[]BaselineEntry{{Check: "tools.name-format", Tool: "legacy tool"}, {Check: "lifecycle.ping"}},
			[]string{"lifecycle.ping"}, VerdictFail, 1},
		{"a tool entry cannot accept a failure about no tool", checks.SeverityError,
			[]BaselineEntry{{Check: "lifecycle.ping", Tool: "x"}},
			nil, VerdictFail, 2},
		{"warnings at the threshold need entries too", checks.SeverityWarning,
			[]BaselineEntry{{Check: "tools.name-format"}, {Check: "lifecycle.ping"}},
			[]string{"tools.name-format", "lifecycle.ping"}, VerdictFail, 1},
		{"warning accepted by its tool", checks.SeverityWarning,
			[]BaselineEntry{{Check: "tools.name-format"}, {Check: "lifecycle.ping"}, {Check: "tools.description", Tool: "x"}},
			[]string{"tools.name-format", "lifecycle.ping", "tools.description"}, VerdictPass, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b *Baseline
			if tt.entries != nil {
				b = &Baseline{File: "b.yaml", Entries: tt.entries}
			}
			r := Build(stdioResult(), toolFindings(), BuildOptions{FailOn: tt.failOn, Baseline: b})
			var got []string
			for _, c := range r.Checks {
				if c.Baselined {
					got = append(got, c.ID)
					if c.Status != string(checks.StatusFail) && c.Status != string(checks.StatusWarn) {
						t.Errorf("%s: baselined with status %s", c.ID, c.Status)
					}
				}
			}
			if strings.Join(got, ",") != strings.Join(tt.baselined, ",") {
				t.Errorf("baselined %v, want %v", got, tt.baselined)
			}
			if r.Verdict != tt.verdict || r.Summary.Failing != tt.failing || r.Summary.Baselined != len(tt.baselined) {
				t.Errorf("verdict %s failing %d baselined %d; want %s %d %d", r.Verdict, r.Summary.Failing, r.Summary.Baselined,
					tt.verdict, tt.failing, len(tt.baselined))
			}
		})
	}
}

func TestBaselineCannotAcceptByToolWhatTheCheckDidNotKeep(t *testing.T) {
	fs := toolFindings()
	fs[0].Data = map[string]any{"moreEvidence": 4, "moreErrors": true}
	r := Build(stdioResult(), fs, BuildOptions{Baseline: &Baseline{Entries: []BaselineEntry{
		{Check: "tools.name-format", Tool: "legacy tool"}, {Check: "tools.name-format", Tool: "a/b"}, {Check: "lifecycle.ping"},
	}}})
	if r.Checks[0].Baselined || r.Verdict != VerdictFail {
		t.Fatalf("tools.name-format with 4 unkept failures accepted by tool entries (verdict %s)", r.Verdict)
	}
}

func TestBaselineReportsStaleEntries(t *testing.T) {
	b := &Baseline{File: "b.yaml", Entries: []BaselineEntry{
		{Check: "lifecycle.ping", Line: 1},                      // still fails
		{Check: "jsonrpc.parse", Reason: "was broken", Line: 2}, // passes now: stale
		{Check: "tools.name-format", Tool: "gone", Line: 4},     // fails, but not for this tool: stale
		{Check: "tools.name-format", Tool: "a/b", Line: 6},      // still fails
		{Check: "tools.description", Line: 8},                   // warns (below the threshold): not stale
		{Check: "http.status", Line: 9},                         // skipped: cannot tell
		{Check: "stdio.stdout-purity", Line: 10},                // not run (deselected): cannot tell
	}}
	r := Build(stdioResult(), toolFindings(), BuildOptions{Baseline: b})
	var stale []string
	for _, e := range r.Baseline.Stale {
		stale = append(stale, e.Check+"/"+e.Tool)
	}
	if strings.Join(stale, ",") != "jsonrpc.parse/,tools.name-format/gone" {
		t.Fatalf("stale = %v", stale)
	}
	out := renderText(t, r, TextOptions{})
	inOrder(t, out,
		"warning: baseline entry jsonrpc.parse at b.yaml:2 no longer fails: remove it",
		"warning: baseline entry tools.name-format (tool gone) at b.yaml:4 no longer fails: remove it",
		"FAIL ")
}

func TestBaselineInTheJSONReport(t *testing.T) {
	b := &Baseline{File: "b.yaml", Entries: []BaselineEntry{{Check: "lifecycle.ping", Reason: "upstream", Line: 1}, {Check: "jsonrpc.parse", Line: 2}}}
	var buf bytes.Buffer
	if err := WriteJSON(&buf, Build(stdioResult(), toolFindings(), BuildOptions{Baseline: b})); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Verdict string `json:"verdict"`
		Summary struct {
			Fail, Failing, Baselined int
		} `json:"summary"`
		Checks []struct {
			ID             string `json:"id"`
			Status         string `json:"status"`
			Baselined      bool   `json:"baselined"`
			BaselineReason string `json:"baselineReason"`
		} `json:"checks"`
		Baseline struct {
			File    string          `json:"file"`
			Entries int             `json:"entries"`
			Stale   []BaselineEntry `json:"stale"`
		} `json:"baseline"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, c := range doc.Checks {
		if c.ID == "lifecycle.ping" && (c.Status != "fail" || !c.Baselined || c.BaselineReason != "upstream") {
			t.Errorf("lifecycle.ping = %+v, want status fail, baselined", c)
		}
		if c.ID != "lifecycle.ping" && c.Baselined {
			t.Errorf("%s baselined", c.ID)
		}
	}
	if doc.Summary.Fail != 2 || doc.Summary.Failing != 1 || doc.Summary.Baselined != 1 || doc.Verdict != "fail" {
		t.Errorf("summary %+v verdict %s", doc.Summary, doc.Verdict)
	}
	if doc.Baseline.File != "b.yaml" || doc.Baseline.Entries != 2 || len(doc.Baseline.Stale) != 1 || doc.Baseline.Stale[0].Check != "jsonrpc.parse" {
		t.Errorf("baseline = %+v", doc.Baseline)
	}
	// Without a baseline the report has no baseline member and no baselined marks.
	buf.Reset()
	_ = WriteJSON(&buf, Build(stdioResult(), toolFindings(), BuildOptions{}))
	if strings.Contains(buf.String(), "baseline") {
		t.Errorf("a report without a baseline mentions one:\n%s", buf.String())
	}
}

func TestTextMarksBaselinedFailures(t *testing.T) {
	b := &Baseline{File: "b.yaml", Entries: []BaselineEntry{{Check: "lifecycle.ping", Reason: "upstream"}, {Check: "tools.name-format"}}}
	out := renderText(t, Build(stdioResult(), toolFindings(), BuildOptions{Baseline: b}), TextOptions{})
	inOrder(t, out, "Failures and warnings (0 failed, 1 warned, 2 accepted by the baseline)",
		"FAIL tools.name-format", "accepted by the baseline (no reason given)",
		"FAIL lifecycle.ping", "accepted by the baseline (upstream)",
		"1 passed · 0 failed · 1 warned · 2 accepted by the baseline · ",
		"PASS every check that fails at severity error or above is accepted by the baseline: tools.name-format, lifecycle.ping (1 warning below the threshold)")
}

func TestWrittenBaselineAcceptsTheCurrentFailuresAndReadsBack(t *testing.T) {
	previous := &Baseline{File: "old.yaml", Entries: []BaselineEntry{
		{Check: "lifecycle.ping", Reason: "upstream SDK bug"},
		{Check: "jsonrpc.parse", Reason: "fixed since"},                     // passes now: dropped
		{Check: "stdio.stdout-purity", Reason: "banner; not run over HTTP"}, // not run: kept
	}}
	for _, failOn := range []checks.Severity{checks.SeverityError, checks.SeverityWarning} {
		t.Run(string(failOn), func(t *testing.T) {
			r := Build(stdioResult(), toolFindings(), BuildOptions{FailOn: failOn})
			nb := NewBaseline(r, previous)
			var buf bytes.Buffer
			if err := WriteBaseline(&buf, nb, r); err != nil {
				t.Fatal(err)
			}
			back, err := ParseBaseline("new.yaml", buf.Bytes(), fixtureIDs)
			if err != nil {
				t.Fatalf("written baseline does not parse: %v\n%s", err, buf.String())
			}
			var got []string
			for _, e := range back.Entries {
				got = append(got, e.Check+"/"+e.Tool+"/"+e.Reason)
			}
			want := []string{"tools.name-format/legacy tool/", "tools.name-format/a/b/", "lifecycle.ping//upstream SDK bug"}
			if failOn == checks.SeverityWarning {
				want = append(want, "tools.description/x/")
			}
			want = append(want, "stdio.stdout-purity//banner; not run over HTTP")
			if strings.Join(got, ",") != strings.Join(want, ",") {
				t.Fatalf("entries\n got %v\nwant %v\n%s", got, want, buf.String())
			}
			if !strings.Contains(buf.String(), "# now: not empty") || !strings.Contains(buf.String(), "# Failures accepted for now") {
				t.Errorf("comments missing:\n%s", buf.String())
			}
			// Each tool entry carries the message about its own tool, not the check's sum.
			inOrder(t, buf.String(), "# now: name has a space\n- check: tools.name-format\n  tool: legacy tool",
				"# now: name has a slash\n- check: tools.name-format\n  tool: a/b")
			if strings.Contains(buf.String(), "bad names") {
				t.Errorf("a tool entry carries the check's message:\n%s", buf.String())
			}
			// Judged with the baseline just written, the same run passes.
			again := Build(stdioResult(), toolFindings(), BuildOptions{FailOn: failOn, Baseline: back})
			if again.Verdict != VerdictPass || len(again.Baseline.Stale) != 0 {
				t.Errorf("verdict %s, stale %v with the written baseline", again.Verdict, again.Baseline.Stale)
			}
		})
	}
}

func TestWrittenBaselineCommentsCannotBreakTheYAML(t *testing.T) {
	fs := toolFindings()
	fs[1].Message = "line one\n- check: jsonrpc.parse\n# and more"
	r := Build(stdioResult(), fs, BuildOptions{})
	var buf bytes.Buffer
	if err := WriteBaseline(&buf, NewBaseline(r, nil), r); err != nil {
		t.Fatal(err)
	}
	back, err := ParseBaseline("b.yaml", buf.Bytes(), fixtureIDs)
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	for _, e := range back.Entries {
		if e.Check == "jsonrpc.parse" {
			t.Fatalf("a message in a comment became an entry:\n%s", buf.String())
		}
	}
}
