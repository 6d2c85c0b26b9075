package calls

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

func env(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

// The form of issue 23 is accepted as written.
func TestParseAcceptsTheIssuesForm(t *testing.T) {
	set, err := Parse("calls.yaml", []byte(`calls:
  - tool: echo
    arguments: {message: hello}
    expect: {isError: false, textContains: hello}
`), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Calls) != 1 {
		t.Fatalf("calls = %d, want 1", len(set.Calls))
	}
	c := set.Calls[0]
	if c.Tool != "echo" || string(c.Arguments) != `{"message":"hello"}` {
		t.Errorf("call = %s %s", c.Tool, c.Arguments)
	}
	if c.Expect == nil || c.Expect.IsError == nil || *c.Expect.IsError || c.Expect.TextContains != "hello" {
		t.Errorf("expect = %+v", c.Expect)
	}
}

func TestParseReadsEveryField(t *testing.T) {
	set, err := Parse("calls.yaml", []byte(`calls:
  - tool: add
    arguments: {a: 1, b: 2.5, tags: [x, y], token: {from-env: TOKEN}, nested: {key: {fromEnv: OTHER}}}
    timeout: 1m30s
    invalid-arguments: true
    expect: {is-error: false, pointer: /sum, equals: 3.5}
  - tool: echo
    invalidArguments: true
    expect: {pointer: /text, matches: "^h"}
`), env(map[string]string{"TOKEN": "s3cret-token", "OTHER": "other-secret"}))
	if err != nil {
		t.Fatal(err)
	}
	a := set.Calls[0]
	if want := `{"a":1,"b":2.5,"nested":{"key":"other-secret"},"tags":["x","y"],"token":"s3cret-token"}`; string(a.Arguments) != want {
		t.Errorf("arguments = %s, want %s", a.Arguments, want)
	}
	if a.Timeout != 90*time.Second || !a.InvalidArguments || string(a.Expect.Equals) != "3.5" {
		t.Errorf("call = %+v, expect %+v", a, a.Expect)
	}
	// The order of the secrets is the redactor's business, not the file's: compare them sorted.
	if slices.Sort(set.Secrets); strings.Join(set.Secrets, ",") != "other-secret,s3cret-token" {
		t.Errorf("secrets = %q", set.Secrets)
	}
	if b := set.Calls[1]; string(b.Arguments) != "{}" || !b.InvalidArguments || b.Expect.Matches != "^h" {
		t.Errorf("second call = %+v", b)
	}
}

func TestParseNamesEveryProblemByLine(t *testing.T) {
	for _, tc := range []struct{ name, file, want string }{
		{"unknown key", "calls:\n  - tool: echo\n    argumens: {}\n", "line 3, column 5: calls[0].argumens: unknown key (known: arguments, expect, invalid-arguments, timeout, tool); did you mean arguments?"},
		{"no tool", "calls:\n  - arguments: {}\n", "calls[0].tool: want the name of a tool"},
		{"empty list", "calls: []\n", "want a list of at least one call"},
		{"bad timeout", "calls:\n  - tool: echo\n    timeout: soon\n", "line 3, column 14"},
		{"unset variable", "calls:\n  - tool: echo\n    arguments: {t: {fromEnv: NOPE}}\n", "NOPE is not set"},
		{"arguments not a mapping", "calls:\n  - tool: echo\n    arguments: [1]\n", "want a mapping"},
		{"equals without pointer", "calls:\n  - tool: echo\n    expect: {equals: 3}\n", "need a pointer"},
		{"bad pointer", "calls:\n  - tool: echo\n    expect: {pointer: sum, equals: 3}\n", "want a JSON Pointer"},
		{"bad regexp", "calls:\n  - tool: echo\n    expect: {pointer: /a, matches: \"(\"}\n", "not a regular expression"},
		{"empty expect", "calls:\n  - tool: echo\n    expect: {}\n", "want at least one of"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("calls.yaml", []byte(tc.file), env(nil))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

// A file that is not YAML is placed where the parser stopped, with its column: the library
// alone would name the line where the unfinished construct began.
func TestParsePlacesASyntaxErrorByLineAndColumn(t *testing.T) {
	data := "calls:\n  - tool: echo\n    arguments: {message: hello\n  - tool: add\n"
	_, err := Parse("calls.yaml", []byte(data), func(string) (string, bool) { return "", false })
	var p Problems
	if !errors.As(err, &p) || len(p) != 1 {
		t.Fatalf("error %v, want one problem", err)
	}
	if !strings.HasPrefix(p[0], "calls.yaml: line ") || !strings.Contains(p[0], ", column ") || !strings.Contains(p[0], "not valid YAML") {
		t.Errorf("problem %q, want the file, a line, a column and \"not valid YAML\"", p[0])
	}
}
