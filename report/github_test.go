package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpwatch/mcpwatch/checks"
)

func renderGitHub(t *testing.T, r *Report) string {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteGitHub(&buf, r); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// command is one workflow command line read back the way the runner reads it.
type command struct {
	name  string
	props map[string]string
	data  string
}

// parseCommands reads the lines that start with :: as the Actions runner does, undoing the
// escapes, and fails on a command line it cannot read.
func parseCommands(t *testing.T, out string) []command {
	t.Helper()
	unescapeData := strings.NewReplacer("%0D", "\r", "%0A", "\n", "%25", "%")
	unescapeProp := strings.NewReplacer("%0D", "\r", "%0A", "\n", "%3A", ":", "%2C", ",", "%25", "%")
	var cmds []command
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if !strings.HasPrefix(line, "::") {
			continue
		}
		head, data, ok := strings.Cut(line[2:], "::")
		if !ok {
			t.Fatalf("command without data separator: %q", line)
		}
		c := command{props: map[string]string{}, data: unescapeData.Replace(data)}
		name, props, _ := strings.Cut(head, " ")
		c.name = name
		if props != "" {
			for _, kv := range strings.Split(props, ",") {
				k, v, ok := strings.Cut(kv, "=")
				if !ok {
					t.Fatalf("property without '=' in %q", line)
				}
				c.props[k] = unescapeProp.Replace(v)
			}
		}
		cmds = append(cmds, c)
	}
	return cmds
}

func TestGitHubAnnotatesFailuresAndWarningsWithTheirEvidence(t *testing.T) {
	out := renderGitHub(t, Build(stdioResult(), stdioFindings(), BuildOptions{Catalog: testCatalog(t)}))
	cmds := parseCommands(t, out)
	var names []string
	for _, c := range cmds {
		names = append(names, c.name+" "+c.props["title"])
	}
	want := []string{
		"error mcpwatch lifecycle.ping (rule C6)",
		"error mcpwatch stdio.stdout-purity (rule F1, F2, F4)",
		"warning mcpwatch tools.description (rule E)",
		"group ", "endgroup ",
	}
	if strings.Join(names, "\n") != strings.Join(want, "\n") {
		t.Fatalf("commands:\n%s\nwant:\n%s", strings.Join(names, "\n"), strings.Join(want, "\n"))
	}
	inOrder(t, cmds[0].data, "the lifecycle.ping rule holds.", "\n",
		`error: ping: expected an empty result {}, got {"pong":true}  [frames #6 #7]`, "\n",
		"#6 →", "\n", "#7 ←", `"result":{"pong":true}`, "\nspec: https://")
	if !strings.Contains(cmds[3].data, "mcpwatch: FAIL node server.js --stdio (2 passed, 2 failed, 1 warned, 1 skipped, 1 info)") {
		t.Errorf("group title %q", cmds[3].data)
	}
	inOrder(t, out, "::group::", "transport  stdio", "check      FAIL", "lifecycle.ping", "verdict    FAIL 2 checks fail at severity error or above", "::endgroup::")
}

func TestGitHubEscapesWorkflowCommands(t *testing.T) {
	tests := []struct{ in, data, prop string }{
		{"plain", "plain", "plain"},
		{"100%", "100%25", "100%25"},
		{"a\nb\r\nc", "a%0Ab%0D%0Ac", "a%0Ab%0D%0Ac"},
		{"key: a, b", "key: a, b", "key%3A a%2C b"},
		{"%0A", "%250A", "%250A"},
	}
	for _, tt := range tests {
		if got := escapeData(tt.in); got != tt.data {
			t.Errorf("escapeData(%q) = %q, want %q", tt.in, got, tt.data)
		}
		if got := escapeProperty(tt.in); got != tt.prop {
			t.Errorf("escapeProperty(%q) = %q, want %q", tt.in, got, tt.prop)
		}
	}
}

func TestGitHubServerTextCannotIssueCommands(t *testing.T) {
	findings := stdioFindings()
	inject := "boom\n::add-mask::x\r\n::set-output name=verdict::pass\n::endgroup::%0A::error::forged"
	findings[2].Message = inject
	findings[2].Evidence[0].Message = inject
	findings[3].Evidence[0].Tool = "t\n::warning::forged,title=x"
	res := stdioResult()
	res.Initialize = []byte(`{"serverInfo":{"name":"evil\n::error::forged","version":"1"}}`)
	out := renderGitHub(t, Build(res, findings, BuildOptions{}))
	for _, line := range strings.Split(out, "\n") {
		if !strings.HasPrefix(line, "::") {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimPrefix(line, "::"), " ")
		name, _, _ = strings.Cut(name, "::")
		switch name {
		case "error", "warning", "notice", "group", "endgroup":
		default:
			t.Errorf("server text issued a %q command: %q", name, line)
		}
	}
	if n := strings.Count("\n"+out, "\n::endgroup::"); n != 1 {
		t.Errorf("%d endgroup commands, want 1", n)
	}
	for _, c := range parseCommands(t, out) {
		if c.name == "error" && strings.Contains(c.props["title"], "lifecycle.ping") && !strings.Contains(c.data, "::set-output name=verdict::pass") {
			t.Errorf("the server's text is not carried as data: %q", c.data)
		}
	}
}

func TestGitHubRollsUpBeyondTenAnnotationsOfALevel(t *testing.T) {
	var findings []checks.Finding
	for i := range 14 {
		findings = append(findings, checks.Finding{ID: fmt.Sprintf("x.fail-%02d", i), Status: checks.StatusFail,
			Severity: checks.SeverityError, Area: "x", Message: "broken"})
	}
	cmds := parseCommands(t, renderGitHub(t, Build(stdioResult(), findings, BuildOptions{})))
	var errs []command
	for _, c := range cmds {
		if c.name == "error" {
			errs = append(errs, c)
		}
	}
	if len(errs) != 10 {
		t.Fatalf("%d error annotations, want 10 (GitHub shows ten per step)", len(errs))
	}
	last := errs[9]
	if last.props["title"] != "mcpwatch: 5 more" || !strings.Contains(last.data, "x.fail-09: broken") || !strings.Contains(last.data, "x.fail-13: broken") {
		t.Errorf("roll-up = %+v", last)
	}
}

func TestGitHubBaselinedFailuresAreNoticesAndStaleEntriesWarn(t *testing.T) {
	r := Build(stdioResult(), stdioFindings(), BuildOptions{Baseline: &Baseline{File: "b.yaml", Entries: []BaselineEntry{
		{Check: "lifecycle.ping", Reason: "upstream", Line: 2},
		{Check: "jsonrpc.version", Line: 4},
	}}})
	out := renderGitHub(t, r)
	byTitle := map[string]command{}
	for _, c := range parseCommands(t, out) {
		byTitle[c.props["title"]] = c
	}
	if c, ok := byTitle["mcpwatch lifecycle.ping (rule C6) baselined"]; !ok || c.name != "notice" || !strings.Contains(c.data, "This check is accepted by the baseline (upstream).") {
		t.Errorf("baselined annotation = %+v (present %v)", c, ok)
	}
	if c := byTitle["mcpwatch: stale baseline entries"]; c.name != "warning" || !strings.Contains(c.data, "jsonrpc.version at b.yaml:4 no longer fails") {
		t.Errorf("stale annotation = %+v", c)
	}
	if !strings.Contains(out, "verdict    FAIL 1 check fails at severity error or above (1 more accepted by the baseline)") {
		t.Errorf("verdict line:\n%s", out)
	}
}
