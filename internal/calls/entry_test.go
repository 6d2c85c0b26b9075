package calls

import (
	"fmt"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/mcpwatch/mcpwatch/internal/yamlstrict"
)

// decodeEntries is Entries over a document, as the monitor's configuration decodes it.
func decodeEntries(t *testing.T, doc string) ([]Entry, []string) {
	t.Helper()
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(doc), &n); err != nil {
		t.Fatal(err)
	}
	var f File
	places, problems := yamlstrict.Decode(&n, &f, "")
	if len(problems) > 0 {
		t.Fatalf("decode: %v", problems)
	}
	var msgs []string
	entries := Entries(f.Calls, "calls", func(path, format string, args ...any) {
		pl := places.Of(path)
		msgs = append(msgs, pl.Written+" "+yamlPos(pl.Value)+": "+strings.TrimSpace(fmt.Sprintf(format, args...)))
	})
	return entries, msgs
}

// An entry keeps each fromEnv argument as a reference to its variable: the value is read by
// Resolve only, and never held in what the monitor stores.
func TestEntriesKeepFromEnvAsAReference(t *testing.T) {
	entries, problems := decodeEntries(t, `calls:
  - tool: echo
    arguments: {message: hello, auth: {token: {fromEnv: ECHO_TOKEN}}, list: [{from-env: OTHER}]}
    timeout: 2s
    expect: {isError: false, textContains: hello}
`)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	raw, err := Encode(entries)
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"tool":"echo","arguments":{"auth":{"token":{"fromEnv":"ECHO_TOKEN"}},"list":[{"fromEnv":"OTHER"}],"message":"hello"},"timeoutMs":2000,"expect":{"isError":false,"textContains":"hello"}}]`
	if string(raw) != want {
		t.Errorf("stored form\n got %s\nwant %s", raw, want)
	}
	back, err := Decode(raw)
	if err != nil || len(back) != 1 {
		t.Fatalf("decode = %v, %v", back, err)
	}
	if got := strings.Join(back[0].Env(), ","); got != "ECHO_TOKEN,OTHER" {
		t.Errorf("Env = %s", got)
	}
	calls, secrets := Resolve(back, env(map[string]string{"ECHO_TOKEN": "tok-1234", "OTHER": "other-5678"}))
	if len(calls) != 1 || calls[0].NotSent != "" {
		t.Fatalf("calls = %+v", calls)
	}
	if got := string(calls[0].Arguments); got != `{"auth":{"token":"tok-1234"},"list":["other-5678"],"message":"hello"}` {
		t.Errorf("resolved arguments = %s", got)
	}
	if calls[0].Timeout.Seconds() != 2 || calls[0].Expect == nil || calls[0].Expect.TextContains != "hello" {
		t.Errorf("call = %+v", calls[0])
	}
	if strings.Join(secrets, ",") != "tok-1234,other-5678" {
		t.Errorf("secrets = %q", secrets)
	}
}

// A variable missing at probe time leaves the call not sent, with the reason, and the calls
// around it as they are.
func TestResolveLeavesACallWithAMissingVariableNotSent(t *testing.T) {
	entries, problems := decodeEntries(t, `calls:
  - tool: first
    arguments: {token: {fromEnv: MISSING_TOKEN}}
  - tool: second
    arguments: {n: 12345678901234567890}
`)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	calls, secrets := Resolve(entries, env(map[string]string{"MISSING_TOKEN": ""}))
	if len(calls) != 2 || len(secrets) != 0 {
		t.Fatalf("calls = %+v, secrets %q", calls, secrets)
	}
	if !strings.Contains(calls[0].NotSent, "MISSING_TOKEN is not set or empty") || len(calls[0].Arguments) != 0 {
		t.Errorf("first call = %+v, want it not sent because of MISSING_TOKEN", calls[0])
	}
	if calls[1].NotSent != "" || string(calls[1].Arguments) != `{"n":12345678901234567890}` {
		t.Errorf("second call = %+v (a large integer must stay exact)", calls[1])
	}
}

func TestEntriesPlaceEachProblem(t *testing.T) {
	for _, tc := range []struct{ name, doc, want string }{
		{"bad variable name", "calls:\n  - tool: a\n    arguments: {t: {fromEnv: 'MY-TOKEN'}}\n", "calls[0].arguments 3:16: line 3: fromEnv wants the name of an environment variable"},
		{"sub-millisecond timeout", "calls:\n  - tool: a\n    timeout: 10us\n", "calls[0].timeout 3:14: 10µs is shorter than a millisecond"},
		{"no tool", "calls:\n  - tool: ''\n", "calls[0].tool 2:11: want the name of a tool"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			entries, problems := decodeEntries(t, tc.doc)
			if len(entries) != 0 || len(problems) != 1 || !strings.HasPrefix(problems[0], tc.want) {
				t.Errorf("entries %v, problems %q, want one starting %q", entries, problems, tc.want)
			}
		})
	}
}

func yamlPos(p yamlstrict.Pos) string { return fmt.Sprintf("%d:%d", p.Line, p.Column) }
