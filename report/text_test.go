package report

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpwatch/mcpwatch/checks"
	"github.com/mcpwatch/mcpwatch/internal/redact"
	"github.com/mcpwatch/mcpwatch/probe"
)

// renderText renders the text report, 200 columns wide unless o says otherwise: the tests of
// what the report shows then find each phrase on one line; the tests of wrapping set a width.
func renderText(t *testing.T, r *Report, o TextOptions) string {
	t.Helper()
	if o.Width == 0 {
		o.Width = 200
	}
	var buf bytes.Buffer
	if err := WriteText(&buf, r, o); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// inOrder asserts that each string occurs in out, each after the one before.
func inOrder(t *testing.T, out string, parts ...string) {
	t.Helper()
	at := 0
	for _, p := range parts {
		i := strings.Index(out[at:], p)
		if i < 0 {
			t.Errorf("%q missing (or out of order) in:\n%s", p, out)
			return
		}
		at += i + len(p)
	}
}

func TestTextHeaderNamesTargetRevisionServerAndDuration(t *testing.T) {
	out := renderText(t, Build(stdioResult(), stdioFindings(), BuildOptions{Generator: Generator{Name: "prober", Version: "v1.0.0"}}), TextOptions{})
	inOrder(t, out,
		"MCP conformance report", "prober v1.0.0",
		"target", "node server.js --stdio",
		"transport", "stdio",
		"revision", "2025-06-18 (requested 2025-11-25)",
		"server", "demo-server 1.2.3",
		"process", "pid 4242", "exit 0", "ended by stdin-eof after 12.0ms",
		"duration", "10.10s")
}

func TestTextGroupsProblemsByAreaFailuresFirst(t *testing.T) {
	out := renderText(t, Build(stdioResult(), stdioFindings(), BuildOptions{}), TextOptions{})
	inOrder(t, out,
		"Failures and warnings (2 failed, 1 warned)",
		"\nlifecycle\n", "FAIL lifecycle.ping", "error · rule C6",
		`expected an empty result {}, got {"pong":true}`, "[frames #6 #7]",
		"#6 →", `"id":"mcpwatch-ping","method":"ping"`,
		"#7 ←", `"result":{"pong":true}`,
		"spec: https://modelcontextprotocol.io/specification/2025-06-18/basic/utilities/ping",
		"\nstdio\n", "FAIL stdio.stdout-purity", "[frame #1]", "#1 ←", "Server starting",
		"stdout line is not valid UTF-8", "[frame #9]", "(not UTF-8)",
		"and 3 more occurrences not shown",
		"\ntools\n", "WARN tools.description", "tool echo:", `tool "echo" has no description`,
		"Passed (2)", "jsonrpc.parse, jsonrpc.version",
		"Facts (1)", "tools.fingerprint", "sha256:9f86d081884c (1 tool)",
		"Skipped (1)", "http.status", "applies to the http transport only",
	)
}

func TestTextStepsTableShowsLatencyOutcomeAndCode(t *testing.T) {
	res := stdioResult()
	code := int64(-32601)
	res.Steps = append(res.Steps, res.Steps[4])
	res.Steps[5].Outcome, res.Steps[5].ErrorCode, res.Steps[5].Err, res.Steps[5].Response, res.Steps[5].Latency = "error", &code, "", 9, ms(1.5)
	out := renderText(t, Build(res, nil, BuildOptions{}), TextOptions{})
	inOrder(t, out, "Steps", "conn", "method", "latency", "outcome", "code/status")
	for _, row := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^  1 +initialize +40\.5ms +ok *$`),
		regexp.MustCompile(`(?m)^  1 +notifications/initialized +- +sent *$`),
		regexp.MustCompile(`(?m)^  1 +ping +0\.75ms +ok *$`),
		regexp.MustCompile(`(?m)^  1 +mcpwatch/unknown-method \(unknown-method\) +- +no-answer +timed out waiting for an answer$`),
		regexp.MustCompile(`(?m)^  1 +mcpwatch/unknown-method \(unknown-method\) +1\.50ms +error +-32601$`),
	} {
		if !row.MatchString(out) {
			t.Errorf("no row matching %s in:\n%s", row, out)
		}
	}
	http := renderText(t, Build(httpInitFailedResult(), nil, BuildOptions{}), TextOptions{})
	if !regexp.MustCompile(`(?m)^  1 +initialize +3\.25ms +transport +HTTP 500 · the exchange ended without an answer$`).MatchString(http) {
		t.Errorf("http step row missing in:\n%s", http)
	}
}

func TestTextShowsStderrOnlyWhenTheProbeFailed(t *testing.T) {
	failing := renderText(t, Build(stdioResult(), stdioFindings(), BuildOptions{}), TextOptions{})
	inOrder(t, failing, "Stderr of the server (conn 1)", "│ listening on stdio", "│ warning: config file missing")

	passing := renderText(t, Build(stdioResult(), stdioFindings()[:2], BuildOptions{}), TextOptions{})
	if strings.Contains(passing, "Stderr") {
		t.Errorf("stderr shown for a passing probe:\n%s", passing)
	}
}

func TestTextStderrKeepsTheLastLines(t *testing.T) {
	res := stdioResult()
	var b strings.Builder
	for i := range 50 {
		b.WriteString("log line " + string(rune('A'+i%26)) + "\n")
	}
	b.WriteString("fatal: cannot bind\n")
	res.Processes[0].Stderr = []byte(b.String())
	out := renderText(t, Build(res, stdioFindings(), BuildOptions{}), TextOptions{})
	inOrder(t, out, "last 20 of 51 lines", "fatal: cannot bind")
	if got := strings.Count(out, "│ "); got != stderrLines {
		t.Errorf("%d stderr lines shown, want %d", got, stderrLines)
	}
}

func TestTextVerdictLines(t *testing.T) {
	tests := []struct {
		name    string
		report  *Report
		verdict string
		summary string
	}{
		{"failures", Build(stdioResult(), stdioFindings(), BuildOptions{}),
			"FAIL 2 checks fail at severity error or above",
			"2 passed · 2 failed · 1 warned · 1 skipped · 1 info  (7 checks, fail on error)"},
		{"warning below threshold", Build(stdioResult(), stdioFindings()[3:4], BuildOptions{}),
			"PASS no check fails at severity error or above (1 warning below the threshold)",
			"0 passed · 0 failed · 1 warned · 0 skipped · 0 info  (1 check, fail on error)"},
		{"warning at threshold", Build(stdioResult(), stdioFindings()[3:4], BuildOptions{FailOn: checks.SeverityWarning}),
			"FAIL 1 check fails at severity warning or above", "fail on warning"},
		{"probe error", Build(httpInitFailedResult(), httpInitFailedFindings(), BuildOptions{}),
			"FAIL 1 check fails at severity error or above; the probe did not finish", "1 failed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := renderText(t, tc.report, TextOptions{})
			lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
			if last := lines[len(lines)-1]; last != tc.verdict {
				t.Errorf("verdict line = %q, want %q", last, tc.verdict)
			}
			if !strings.Contains(lines[len(lines)-2], tc.summary) {
				t.Errorf("summary line = %q, want it to contain %q", lines[len(lines)-2], tc.summary)
			}
		})
	}
}

func TestTextProbeErrorAppearsInTheHeader(t *testing.T) {
	out := renderText(t, Build(httpInitFailedResult(), httpInitFailedFindings(), BuildOptions{}), TextOptions{})
	inOrder(t, out, "revision", "none negotiated (requested 2025-11-25)", "probe error: initialize failed: HTTP status 500", "Failures and warnings")
	if strings.Contains(out, "server ") {
		t.Errorf("server line without a server:\n%s", out)
	}
}

func TestTextUsesColourOnlyWhenAsked(t *testing.T) {
	r := Build(stdioResult(), stdioFindings(), BuildOptions{Verbose: true})
	plain := renderText(t, r, TextOptions{Verbose: true})
	if strings.Contains(plain, "\x1b") {
		t.Errorf("escape byte without Color:\n%q", plain)
	}
	coloured := renderText(t, r, TextOptions{Color: true, Verbose: true})
	if !strings.Contains(coloured, "\x1b[1;31mFAIL") || !strings.Contains(coloured, "\x1b[33mWARN") {
		t.Error("no coloured statuses with Color")
	}
	// Stripping the colours gives back the plain report: colour never changes content.
	if stripped := regexp.MustCompile("\x1b\\[[0-9;]*m").ReplaceAllString(coloured, ""); stripped != plain {
		t.Error("coloured report differs from the plain one beyond colours")
	}
}

func TestTextEscapesControlBytesFromTheServer(t *testing.T) {
	res := stdioResult()
	res.Initialize = []byte(`{"serverInfo":{"name":"evil\u001b]0;pwned\u0007\nPASS","version":"\u202e1.0"}}`)
	for _, color := range []bool{false, true} {
		out := renderText(t, Build(res, stdioFindings(), BuildOptions{Verbose: true}), TextOptions{Color: color, Verbose: true})
		stripped := regexp.MustCompile("\x1b\\[[0-9;]*m").ReplaceAllString(out, "")
		if strings.ContainsAny(stripped, "\x1b\x07\u202e") {
			t.Errorf("color=%v: raw control characters reached the output", color)
		}
		inOrder(t, stripped, `evil\x1b]0;pwned\x07\nPASS \u202e1.0`, `Server starting on stdio... \x1b[2J\x1b[31mPASS`)
	}
}

func TestTextVerboseShowsEveryFrame(t *testing.T) {
	res := stdioResult()
	res.Frames[5].Raw = []byte(`{"jsonrpc":"2.0","id":2,"result":{"tools":[` + strings.Repeat(`{"name":"t"},`, 200) + `{"name":"t"}]}}`)
	out := renderText(t, Build(res, stdioFindings(), BuildOptions{Verbose: true}), TextOptions{Verbose: true})
	inOrder(t, out, "Transcript (11 frames;",
		"#0 →", "+0.001s", "c1", `"method":"initialize"`,
		"#2 ←", "+0.041s", `"serverInfo":{"name":"demo-server"`,
		"#5 ←", fmt.Sprintf("(%d bytes)", len(res.Frames[5].Raw)),
		"#9 ←", `"\xff\xfe{not utf8}" (not UTF-8)`,
		"#10 ·", "+10.047s", "note timeout no answer to mcpwatch/unknown-method (id 3) within 10s",
		"FAIL 2 checks fail")
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "#") && utf8.RuneCountInString(l) > verboseRawWidth+60 {
			t.Errorf("frame line of %d runes: %s", utf8.RuneCountInString(l), l)
		}
	}
	if quiet := renderText(t, Build(res, stdioFindings(), BuildOptions{}), TextOptions{}); strings.Contains(quiet, "Transcript") {
		t.Error("transcript without verbose")
	}
}

func TestTextVerboseShowsHTTPHeadsAndHeaders(t *testing.T) {
	out := renderText(t, Build(httpInitFailedResult(), nil, BuildOptions{Verbose: true, Redactor: redact.New(fixtureSecret)}), TextOptions{Verbose: true})
	inOrder(t, out, "#0 →", "POST http://127.0.0.1:3901/mcp", `{"jsonrpc":"2.0","id":1,"method":"initialize"}`,
		"Authorization: [redacted]",
		"#1 ←", "HTTP 500 text/plain", "internal error: token [redacted] rejected",
		"Content-Type: text/plain · X-Echo: [redacted]")
}

func TestFormatsListTextFirstAndFindByName(t *testing.T) {
	names := FormatNames()
	if len(names) < 2 || names[0] != "text" {
		t.Fatalf("formats = %v, want text first", names)
	}
	for _, name := range names {
		f, ok := LookupFormat(name)
		if !ok || f.Write == nil || f.Description == "" {
			t.Errorf("format %q incomplete", name)
			continue
		}
		var buf bytes.Buffer
		if err := f.Write(&buf, Build(stdioResult(), stdioFindings(), BuildOptions{}), WriteOptions{}); err != nil || buf.Len() == 0 {
			t.Errorf("format %q wrote %d bytes, err %v", name, buf.Len(), err)
		}
	}
	if _, ok := LookupFormat("xml"); ok {
		t.Error("unknown format found")
	}
}

// A transcript at the probe's frame limit, for the cost of a verbose report.
func BenchmarkVerboseReportOfTenThousandFrames(b *testing.B) {
	res := stdioResult()
	raw := []byte(`{"jsonrpc":"2.0","id":1,"result":{"blob":"` + strings.Repeat("x", 1000) + `"}}`)
	res.Frames = res.Frames[:0]
	for i := range 10_000 {
		res.Frames = append(res.Frames, probe.Frame{Seq: i, Conn: 1, Dir: probe.In, Kind: probe.KindMessage, At: ms(float64(i)), Raw: raw})
	}
	var text, js bytes.Buffer
	for b.Loop() {
		text.Reset()
		js.Reset()
		r := Build(res, stdioFindings(), BuildOptions{Verbose: true, Redactor: redact.New(fixtureSecret)})
		if err := WriteText(&text, r, TextOptions{Verbose: true}); err != nil {
			b.Fatal(err)
		}
		if err := WriteJSON(&js, r); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(text.Len()), "text-bytes")
	b.ReportMetric(float64(js.Len()), "json-bytes")
}

func TestTextCitesAFrameOncePerFinding(t *testing.T) {
	f := checks.Finding{ID: "tools.name-format", Status: checks.StatusWarn, Severity: checks.SeverityWarning,
		Area: "tools", Message: "bad names", Evidence: []checks.Evidence{
			{Severity: checks.SeverityWarning, Message: `tool name "a b" is outside the pattern`, Frames: []int{5}, Tool: "a b"},
			{Severity: checks.SeverityWarning, Message: `tool name "c d" is outside the pattern`, Frames: []int{5}, Tool: "c d"},
		}}
	out := renderText(t, Build(stdioResult(), []checks.Finding{f}, BuildOptions{}), TextOptions{})
	if n := strings.Count(out, `"name":"echo"`); n != 1 {
		t.Fatalf("frame #5 cited %d times, want once:\n%s", n, out)
	}
	if n := strings.Count(out, "[frame #5]"); n != 2 {
		t.Fatalf("want both evidence lines to refer to frame #5, got %d:\n%s", n, out)
	}
}

// At any width from 40 columns up, prose lines fit it and wrap at spaces: every word of the
// report at 200 columns is still there, whole. Only frame bytes and words longer than the
// line (a URL) may pass the width.
func TestTextWrapsProseAtTheWidthNeverInsideAWord(t *testing.T) {
	r := Build(stdioResult(), stdioFindings(), BuildOptions{Catalog: testCatalog(t)})
	wide := renderText(t, r, TextOptions{Width: 200})
	for _, width := range []int{40, 60, 80, 100} {
		t.Run(strconv.Itoa(width), func(t *testing.T) {
			out := renderText(t, r, TextOptions{Width: width})
			// The findings, passes, facts and skips, and the verdict: the steps table and
			// the server's stderr are columns and quoted lines, not prose.
			start, end := strings.Index(out, "Failures and warnings"), strings.Index(out, "\nSteps")
			if start < 0 || end < start {
				t.Fatalf("no findings or steps section:\n%s", out)
			}
			lines := append(strings.Split(out[start:end], "\n"), strings.Split(out[strings.LastIndex(out, "FAIL "):], "\n")...)
			for _, line := range lines {
				n := utf8.RuneCountInString(line)
				if n > width && !strings.Contains(line, "#") && longestWord(line) < width/2 {
					t.Errorf("line of %d runes at width %d: %q", n, width, line)
				}
			}
			prose := func(s string) map[string]bool {
				words := map[string]bool{}
				for _, line := range strings.Split(s, "\n") {
					if strings.Contains(line, "#") || strings.Contains(line, "…") {
						continue // frames are clipped to the width, not wrapped
					}
					for _, w := range strings.Fields(line) {
						words[w] = true
					}
				}
				return words
			}
			got := prose(out)
			for w := range prose(wide) {
				if !got[w] {
					t.Errorf("the word %q of the wide report is missing or cut at width %d", w, width)
				}
			}
		})
	}
}

func longestWord(s string) int {
	best := 0
	for _, w := range strings.Fields(s) {
		best = max(best, utf8.RuneCountInString(w))
	}
	return best
}

func TestWrapWordsBreaksAtSpacesOnly(t *testing.T) {
	tests := []struct {
		in    string
		width int
		want  []string
	}{
		{"", 10, []string{""}},
		{"one two three", 7, []string{"one two", "three"}},
		{"one   two", 20, []string{"one two"}},
		{"a https://example.com/a/very/long/path b", 10, []string{"a", "https://example.com/a/very/long/path", "b"}},
		{"héllo wörld", 5, []string{"héllo", "wörld"}},
		{"see spec: https://example.com/spec ok", 20, []string{"see", "spec: https://example.com/spec", "ok"}},
		{"got 200 [frames #22 #36] now", 12, []string{"got 200", "[frames #22 #36]", "now"}},
	}
	for _, tt := range tests {
		if got := wrapWords(tt.in, tt.width); strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("wrapWords(%q, %d) = %q, want %q", tt.in, tt.width, got, tt.want)
		}
	}
}
