package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpwatch/mcpwatch/checks"
	"github.com/mcpwatch/mcpwatch/probe"
)

// gitHubCommentLimit is the most characters GitHub accepts in a comment body.
const gitHubCommentLimit = 65536

func renderMarkdown(t *testing.T, r *Report) string {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteMarkdown(&buf, r); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func TestMarkdownCommentHasVerdictTableAndCollapsedSections(t *testing.T) {
	out := renderMarkdown(t, Build(stdioResult(), stdioFindings(), BuildOptions{Catalog: testCatalog(t), Generator: Generator{Name: "prober", Version: "v1.0.0"}}))
	inOrder(t, out,
		"### ❌ FAIL: 2 checks fail at severity error or above\n",
		"MCP conformance of `node server.js --stdio` · stdio · revision `2025-06-18` (requested 2025-11-25) · server `demo-server 1.2.3`",
		"2 passed, **2 failed**, 1 warned, 1 skipped, 1 info · fails on error",
		"| | Check | Severity | What happened | Rule |",
		"| ❌ | `lifecycle.ping` | error | `ping: expected an empty result {}, got {\"pong\":true}` | [C6](https://modelcontextprotocol.io/specification/2025-06-18/basic/utilities/ping) |",
		"| ❌ | `stdio.stdout-purity` | error |",
		"| ⚠️ | `tools.description` | warning |",
		"<details><summary>Evidence of <code>lifecycle.ping</code> fail</summary>",
		"the lifecycle.ping rule holds", "```text\nerror: ping:", "#7 ←", "```", "</details>",
		"<details><summary>Evidence of <code>stdio.stdout-purity</code> fail</summary>", "</details>",
		"<details><summary>Evidence of <code>tools.description</code> warn</summary>", "</details>",
		"<details><summary>Passed (2)</summary>", "`jsonrpc.parse`, `jsonrpc.version`", "</details>",
		"<details><summary>Skipped and facts (2)</summary>", "| `http.status` | skip |", "</details>",
		"<details><summary>Steps (5)</summary>", "| 1 | `ping` | 0.75ms | ok |", "</details>",
		"<sub>prober v1.0.0</sub>")
	if strings.Contains(out, "Left out") {
		t.Errorf("a small report left something out:\n%s", out)
	}
	pass := renderMarkdown(t, Build(stdioResult(), stdioFindings()[:2], BuildOptions{}))
	if !strings.HasPrefix(pass, "### ✅ PASS: no check fails at severity error or above\n") || strings.Contains(pass, "| | Check |") {
		t.Errorf("passing report:\n%s", pass)
	}
}

func TestMarkdownServerTextIsInertInCodeSpans(t *testing.T) {
	findings := stdioFindings()
	hostile := "a|b ``tick`` @octocat <img src=x onerror=alert(1)> [link](https://evil.example) **bold**\n# heading"
	findings[2].Message = hostile
	findings[2].Evidence[0].Message = hostile + " ```\n</details>"
	out := renderMarkdown(t, Build(stdioResult(), findings, BuildOptions{}))
	row := ""
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "`lifecycle.ping`") && strings.HasPrefix(line, "| ❌") {
			row = line
		}
	}
	if row == "" {
		t.Fatalf("no row for lifecycle.ping:\n%s", out)
	}
	// The cell is one code span: fenced by a backtick run longer than any inside, the pipe
	// escaped, the newline shown as \n; GFM renders nothing inside a code span.
	want := "```a\\|b ``tick`` @octocat <img src=x onerror=alert(1)> [link](https://evil.example) **bold**\\n# heading```"
	if !strings.Contains(row, want) {
		t.Errorf("row %q\nlacks the code span %q", row, want)
	}
	if cells := strings.Count(strings.ReplaceAll(row, `\|`, ""), "|"); cells != 6 {
		t.Errorf("row has %d cell separators, want 6: %q", cells, row)
	}
	// The evidence block's fence outlasts the backticks the server sent.
	if !strings.Contains(out, "````text\n") || strings.Count(out, "\n</details>") != 6 {
		t.Errorf("evidence fence or details broken:\n%s", out)
	}
}

// hugeReport is a report that would make a comment far beyond GitHub's limit: many failing
// checks with long evidence and many steps.
func hugeReport() *Report {
	res := stdioResult()
	var findings []checks.Finding
	long := strings.Repeat("x", 400)
	for i := range 300 {
		f := checks.Finding{ID: fmt.Sprintf("tools.check-%03d", i), Status: checks.StatusFail, Severity: checks.SeverityError,
			Area: "tools", Rule: "E1", Spec: "https://modelcontextprotocol.io/specification/2025-11-25/server/tools",
			Message: "tool schema broken: " + long}
		for j := range 20 {
			f.Evidence = append(f.Evidence, checks.Evidence{Severity: checks.SeverityError, Message: fmt.Sprintf("tool %d: %s", j, long), Frames: []int{5, 7}})
		}
		findings = append(findings, f)
	}
	for i := range 200 {
		findings = append(findings, checks.Finding{ID: fmt.Sprintf("pass.%03d", i), Status: checks.StatusPass, Area: "p", Message: "ok"})
	}
	for i := range 2000 {
		res.Steps = append(res.Steps, probe.Step{Name: probe.StepToolsList, Method: "tools/list", Conn: 1, Page: i + 2,
			Request: 4, Response: 5, Latency: ms(1), Outcome: probe.OutcomeError, Err: long})
	}
	return Build(res, findings, BuildOptions{})
}

func TestMarkdownStaysUnderTheCommentLimit(t *testing.T) {
	out := renderMarkdown(t, hugeReport())
	if n := utf8.RuneCountInString(out); n >= gitHubCommentLimit {
		t.Fatalf("%d characters, GitHub accepts %d", n, gitHubCommentLimit)
	}
	if len(out) > maxMarkdownBytes {
		t.Errorf("%d bytes, over the %d budget", len(out), maxMarkdownBytes)
	}
	inOrder(t, out, "### ❌ FAIL: 300 checks fail", "| ❌ | `tools.check-000`", "_Left out to stay under GitHub's comment size limit:", "The json format has everything._", "<sub>")
	// Every <details> opened is closed, so the rest of the page still renders.
	if open, closed := strings.Count(out, "<details>"), strings.Count(out, "</details>"); open != closed {
		t.Errorf("%d <details> but %d </details>", open, closed)
	}
	if strings.Count(out, "```")%2 != 0 {
		t.Error("an unclosed code fence")
	}
}

func TestMarkdownShowsBaselinedFailuresAndStaleEntries(t *testing.T) {
	r := Build(stdioResult(), stdioFindings(), BuildOptions{Baseline: &Baseline{File: "b.yaml", Entries: []BaselineEntry{
		{Check: "lifecycle.ping", Reason: "upstream bug", Line: 2},
		{Check: "jsonrpc.parse", Line: 5},
	}}})
	out := renderMarkdown(t, r)
	inOrder(t, out,
		`### ❌ FAIL: 1 check fails at severity error or above \(1 more accepted by the baseline\)`,
		"1 accepted by the baseline, 1 skipped, 1 info · fails on error",
		"| ❌ | `stdio.stdout-purity`",
		"| ⚠️ | `tools.description`",
		`| ☑️ | `+"`lifecycle.ping`"+`<br>accepted by the baseline \(upstream bug\) |`,
		"> ⚠️ `baseline entry jsonrpc.parse at b.yaml:5 no longer fails: remove it`")
}
