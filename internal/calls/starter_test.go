package calls

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/testkit/fixture"
	"github.com/mcpwatch/mcpwatch/probe"
)

// probeFixture probes the fixture server over HTTP on loopback.
func probeFixture(t *testing.T, cfg fixture.Config) *probe.Result {
	t.Helper()
	srv, err := fixture.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	res, err := probe.Run(context.Background(), probe.Target{URL: hs.URL + "/mcp"}, probe.Options{Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// starterText writes the starter file of a probe.
func starterText(t *testing.T, res *probe.Result) string {
	t.Helper()
	s, err := StarterFromResult(res)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteStarter(&b, s, nil); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// commented is a line commented out once: its indentation, "# ", the rest.
var commented = regexp.MustCompile(`^(\s*)# (.*)$`)

// uncomment removes the first "# " of every line after "calls:" that has one, as an
// editor's toggle-comment on an entry does; notes (##) never match.
func uncomment(text string) string {
	head, body, _ := strings.Cut(text, "\ncalls:\n")
	lines := strings.Split(body, "\n")
	for i, l := range lines {
		if m := commented.FindStringSubmatch(l); m != nil && !strings.HasPrefix(m[2], "#") {
			lines[i] = m[1] + m[2]
		}
	}
	return head + "\ncalls:\n" + strings.Join(lines, "\n")
}

// A starter file from the fixture's tools (three pages of them) parses once its entries
// are uncommented, with one call per tool in the listed order and each tool's required
// arguments; uncommented once more (optional arguments, invalidArguments, expect), it
// still parses.
func TestStarterFromTheFixtureRoundTrips(t *testing.T) {
	res := probeFixture(t, fixture.Config{PageSize: 5})
	if n := len(res.StepsNamed(probe.StepToolsList)); n < 3 {
		t.Fatalf("tools/list pages = %d, want several", n)
	}
	text := starterText(t, res)
	tools := fixture.DefaultTools()
	if got := strings.Count(text, "\n  # - tool: "); got != len(tools) {
		t.Errorf("entries = %d, want %d", got, len(tools))
	}
	_, err := Parse("starter.yaml", []byte(text), env(nil))
	if err == nil || !strings.Contains(err.Error(), "every call is commented out") {
		t.Errorf("as written: %v", err)
	}

	once := uncomment(text)
	set, err := Parse("starter.yaml", []byte(once), env(nil))
	if err != nil {
		t.Fatalf("%v\n%s", err, once)
	}
	if len(set.Calls) != len(tools) {
		t.Fatalf("calls = %d, want %d", len(set.Calls), len(tools))
	}
	for i, c := range set.Calls {
		if c.Tool != tools[i].Name {
			t.Errorf("call %d is %s, want %s", i, c.Tool, tools[i].Name)
		}
		var schema struct{ Required []string }
		var args map[string]any
		json.Unmarshal(tools[i].InputSchema, &schema)
		json.Unmarshal(c.Arguments, &args)
		for _, r := range schema.Required {
			if _, ok := args[r]; !ok {
				t.Errorf("%s: required argument %s missing from %s", c.Tool, r, c.Arguments)
			}
		}
		if len(args) != len(schema.Required) {
			t.Errorf("%s: arguments %s, want only the required %v", c.Tool, c.Arguments, schema.Required)
		}
		if c.InvalidArguments || c.Expect != nil {
			t.Errorf("%s: invalidArguments and expect are commented until asked for", c.Tool)
		}
	}

	twice := uncomment(once)
	set, err = Parse("starter.yaml", []byte(twice), env(nil))
	if err != nil {
		t.Fatalf("%v\n%s", err, twice)
	}
	for _, c := range set.Calls {
		if !c.InvalidArguments || c.Expect == nil || c.Expect.IsError == nil || *c.Expect.IsError {
			t.Errorf("%s: %+v", c.Tool, c)
		}
	}
	if got := string(set.Calls[slicesIndex(tools, "get_weather")].Arguments); got != `{"city":"","units":"celsius"}` {
		t.Errorf("get_weather arguments = %s", got)
	}
}

func slicesIndex(tools []fixture.Tool, name string) int {
	for i, t := range tools {
		if t.Name == name {
			return i
		}
	}
	return -1
}

// A server with no tool to call gets no starter file: the error says why.
func TestStarterNeedsTools(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  fixture.Config
		want string
	}{
		{"no tools capability", fixture.Config{Fault: fixture.CapabilityUndeclaredWorks}, "declares no tools capability"},
		{"an empty list", fixture.Config{Tools: []fixture.Tool{}}, "the server lists no tools"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := StarterFromResult(probeFixture(t, tc.cfg))
			if !errors.Is(err, ErrNoTools) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

// The header and notes are comments whatever the server's text holds, and clean (the
// run's redactor) reaches every text taken from the server.
func TestStarterKeepsServerTextInComments(t *testing.T) {
	res := probeFixture(t, fixture.Config{Tools: []fixture.Tool{{
		Name:        "leak\ncalls: [x]",
		Title:       "T\u2028itle",
		Description: "uses token s3cret-value\r\n- tool: injected",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"k":{"type":"string","default":"s3cret-value","description":"x\ny: z"}},"required":["k"]}`),
	}}})
	s, err := StarterFromResult(res)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteStarter(&b, s, func(v string) string { return strings.ReplaceAll(v, "s3cret-value", "[redacted]") }); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	if strings.Contains(text, "s3cret") {
		t.Errorf("a secret is in the file:\n%s", text)
	}
	for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if l != "calls:" && l != "" && !strings.HasPrefix(strings.TrimLeft(l, " "), "#") {
			t.Errorf("line %q is not a comment", l)
		}
	}
	set, err := Parse("starter.yaml", []byte(uncomment(text)), env(nil))
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	if len(set.Calls) != 1 || set.Calls[0].Tool != "leak\ncalls: [x]" || string(set.Calls[0].Arguments) != `{"k":"[redacted]"}` {
		t.Errorf("calls = %+v\n%s", set.Calls, text)
	}
}
