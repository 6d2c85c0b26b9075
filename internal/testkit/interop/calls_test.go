//go:build linux

package interop

import (
	"encoding/json"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpwatch/mcpwatch/checks"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// Spec sentences the verdicts of the opt-in tool calls rest on.
const (
	specCallResult = `2025-11-25 server/tools, Tool Result: "Unstructured content is returned in the content ` +
		`field of a result, and can contain multiple content items of different types" (text, image, audio, ` +
		`resource links, embedded resources), the schema's CallToolResult with an optional boolean isError. ` +
		`Every answer is one.`
	specStructuredContent = `2025-11-25 server/tools, Output Schema: "Servers MUST provide structured results ` +
		`that conform to this schema"; Structured Content: "a tool that returns structured content SHOULD also ` +
		`return the serialized JSON in a TextContent block". Each structuredContent validates and is mirrored.`
	specInvalidArguments = `2025-11-25 server/tools, Error Handling: "Tool Execution Errors: Reported in tool ` +
		`results with isError: true: ... Input validation errors"; Security Considerations: "Servers MUST: ` +
		`Validate all tool inputs". Each call with a required property left out gets isError: true.`
	specCallExpectations = `No spec keyword: the calls file's own expectations (isError, text, a JSON Pointer ` +
		`into structuredContent), which the results meet.`
	specNotListed = `The calls file is opt-in and names what may run; a tool the server does not list is never ` +
		`sent and the call checks say untested with the reason (CHECKS.md: untested "is never counted as a ` +
		`pass"). 2025-11-25 server/tools, Listing Tools: "To discover available tools, clients send a tools/list ` +
		`request"; the reference server lists its sampling tools only to a client that declares sampling.`
)

// exampleCalls is a calls file of examples/calls, the ones docs/calls.md runs.
func exampleCalls(name string) string { return filepath.Join(built.root, "examples", "calls", name) }

// testdataCalls is a calls file of this package's testdata/calls.
func testdataCalls(name string) string {
	return filepath.Join(built.root, "internal", "testkit", "interop", "testdata", "calls", name)
}

// The steps each example calls file makes (call:<tool>, #2 for a tool called again, and the
// calls with invalid arguments the file allows).
var (
	everythingCallSteps = []string{
		"call:echo", "call:echo:invalid-arguments", "call:get-sum", "call:get-sum:invalid-arguments",
		"call:get-structured-content", "call:get-structured-content:invalid-arguments",
		"call:get-structured-content#2", "call:get-tiny-image", "call:get-annotated-message",
		"call:get-resource-links", "call:get-resource-reference", "call:trigger-long-running-operation",
	}
	goSDKCallSteps = []string{
		"call:greet", "call:greet:invalid-arguments", "call:greet (structured)",
		"call:greet (structured):invalid-arguments", "call:greet (with Icons)",
		"call:greet (content with ResourceLink)", "call:log", "call:roots", "call:sample", "call:elicit (form)",
	}
)

// callsPass are the verdicts of a calls file whose every call the server answers as it should.
func callsPass() []verdict {
	return []verdict{
		{id: "tools.call-result", is: checks.StatusPass, spec: specCallResult},
		{id: "tools.structured-content", is: checks.StatusPass, spec: specStructuredContent},
		{id: "tools.invalid-arguments", is: checks.StatusPass, spec: specInvalidArguments},
		{id: "tools.call-expectations", is: checks.StatusPass, spec: specCallExpectations},
	}
}

// callVerdictCases run `prober check --calls` with the example calls files (and two of
// testdata) on the real servers they were written for: the reference server from npm and the
// go-sdk example server, over stdio and Streamable HTTP.
func callVerdictCases() []verdictCase {
	return []verdictCase{
		{
			name:      "server-everything/stdio --calls",
			target:    serverEverythingStdio,
			flags:     []string{"--calls", exampleCalls("everything.yaml"), "--verbose"},
			exitsZero: true,
			verdicts:  callsPass(),
			more: func(t *testing.T, rep cliReport) {
				requireCallSteps(t, rep, everythingCallSteps)
				requireRevision(t, rep, protocol.Revision20251125)
			},
		},
		{
			name:     "server-everything/http --calls",
			target:   serverEverythingHTTP,
			flags:    []string{"--calls", exampleCalls("everything.yaml")},
			verdicts: callsPass(),
			more: func(t *testing.T, rep cliReport) {
				requireCallSteps(t, rep, everythingCallSteps)
				requireRevision(t, rep, protocol.Revision20251125)
			},
		},
		{
			// The same calls in a revision before structured content and before input
			// validation errors were tool execution errors.
			name:   "server-everything/stdio@2025-03-26 --calls",
			target: serverEverythingStdio,
			flags:  []string{"--protocol-version", protocol.Revision20250326, "--calls", exampleCalls("everything.yaml")},
			verdicts: []verdict{
				{id: "tools.call-result", not: checks.StatusPass, says: `content[1] has type "resource_link"`,
					spec: `2025-03-26 server/tools, Tool Result: "Tool results can contain multiple content ` +
						`items of different types:" Text, Image, Audio Content and Embedded Resources, the schema's ` +
						`CallToolResult content "(TextContent | ImageContent | AudioContent | EmbeddedResource)[]" ` +
						`(index: "This specification defines the authoritative protocol requirements, based on the ` +
						`TypeScript schema"); basic/lifecycle, Operation: "Both parties SHOULD: Respect the ` +
						`negotiated protocol version". get-resource-links answers a 2025-03-26 session with a ` +
						`resource_link block, which 2025-06-18 introduced.`},
				{id: "tools.structured-content", is: checks.StatusSkip, says: "2025-06-18's",
					spec: `2025-06-18 server/tools is the first revision with Structured Content and Output ` +
						`Schema ("Servers MUST provide structured results that conform to this schema"); ` +
						`2025-03-26's Tool has no outputSchema.`},
				{id: "tools.invalid-arguments", is: checks.StatusSkip, says: "2025-11-25's",
					spec: `2025-11-25 server/tools, Error Handling is the first to list "Input validation errors" ` +
						`among the "Tool Execution Errors: Reported in tool results with isError: true"; ` +
						`2025-03-26 names only "Invalid arguments" among the protocol errors' examples.`},
				{id: "tools.call-expectations", is: checks.StatusPass, spec: specCallExpectations},
			},
		},
		{
			// A tool the calls file names that the server does not list: the reference server
			// lists trigger-sampling-request only to a client that declares sampling.
			name:   "server-everything/stdio --calls of an unlisted tool",
			target: serverEverythingStdio,
			flags:  []string{"--calls", testdataCalls("everything-unlisted.yaml"), "--verbose"},
			verdicts: []verdict{
				{id: "tools.call-result", is: checks.StatusUntested,
					says: `"trigger-sampling-request": the server does not list the tool`, spec: specNotListed},
				{id: "tools.call-expectations", is: checks.StatusUntested,
					says: `"trigger-sampling-request": the server does not list the tool`, spec: specNotListed},
			},
			more: func(t *testing.T, rep cliReport) {
				requireCallSteps(t, rep, []string{"call:echo"})
				if n := toolCallsOf(rep, "trigger-sampling-request"); n != 0 {
					t.Errorf("%d tools/call of the unlisted tool trigger-sampling-request went out; want none", n)
				}
			},
		},
		{
			// stdio negotiates 2026-07-28 with the go-sdk: every call carries its _meta.
			name:      "go-sdk-everything/stdio --calls",
			target:    goSDKEverythingStdio,
			flags:     []string{"--calls", exampleCalls("go-sdk-everything.yaml"), "--verbose"},
			exitsZero: true,
			verdicts:  callsPass(),
			more: func(t *testing.T, rep cliReport) {
				requireCallSteps(t, rep, goSDKCallSteps)
				requireRevision(t, rep, protocol.Revision20260728)
				requireCallMeta(t, rep, protocol.Revision20260728)
			},
		},
		{
			// Over HTTP the go-sdk speaks 2025-11-25: its roots and sample tools ask the client,
			// which answers -32601 (it declared neither capability); the tools report isError.
			name:     "go-sdk-everything/http --calls",
			target:   goSDKEverythingHTTP,
			flags:    []string{"--calls", exampleCalls("go-sdk-everything.yaml"), "--verbose"},
			verdicts: callsPass(),
			more: func(t *testing.T, rep cliReport) {
				requireCallSteps(t, rep, goSDKCallSteps)
				requireRevision(t, rep, protocol.Revision20251125)
				requireRefused(t, rep, "roots/list", "sampling/createMessage")
			},
		},
		{
			// The go-sdk's ping tool pings the client from inside the call; on a 2026-07-28
			// stdio exchange that request is the server's fault, and the call never ends.
			name:   "go-sdk-everything/stdio --calls ping",
			target: goSDKEverythingStdio,
			flags:  []string{"--calls", testdataCalls("go-sdk-ping.yaml")},
			verdicts: []verdict{
				{id: "stateless.server-requests", is: checks.StatusFail, severity: checks.SeverityError,
					says: `got "ping"`,
					spec: `2026-07-28 basic/transports/stdio: "The server MUST NOT write JSON-RPC requests to ` +
						`stdout." The ping tool sends a ping request while serving the call.`},
				{id: "tools.call-result", is: checks.StatusUntested, says: `"ping": no answer`,
					spec: `CHECKS.md: untested is "applicable, but the probe could not judge it"; the server ` +
						`never answers the call (it waits for a pong the probe must not send: 2026-07-28 ` +
						`basic/transports/stdio, "The client MUST NOT write JSON-RPC responses").`},
				{id: "tools.call-expectations", is: checks.StatusPass, spec: specCallExpectations},
			},
		},
	}
}

// requireRevision holds the run to the revision its case is about.
func requireRevision(t *testing.T, rep cliReport, rev string) {
	t.Helper()
	if rep.ProtocolVersion != rev {
		t.Errorf("the run spoke %s, want %s", rep.ProtocolVersion, rev)
	}
}

// requireCallSteps holds the report to the call steps of its calls file, each answered, in
// the order of the file, and to no other call step.
func requireCallSteps(t *testing.T, rep cliReport, want []string) {
	t.Helper()
	var got []string
	for _, st := range rep.Steps {
		if !strings.HasPrefix(st.Name, "call:") {
			continue
		}
		got = append(got, st.Name)
		if st.Outcome != "ok" || st.Method != "tools/call" || st.Conn != 1 {
			t.Errorf("step %s: %s %s on connection %d (%s), want an answered tools/call on the main connection",
				st.Name, st.Method, st.Outcome, st.Conn, st.Err)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("call steps\n  %q\nwant\n  %q", got, want)
	}
}

// sentCall is a tools/call the probe sent, as the transcript shows it.
type sentCall struct {
	Method string `json:"method"`
	Params struct {
		Name string         `json:"name"`
		Meta map[string]any `json:"_meta"`
	} `json:"params"`
}

// toolCallsOf counts the tools/call requests of tool in the transcript (--verbose).
func toolCallsOf(rep cliReport, tool string) int {
	n := 0
	for _, c := range sentCalls(rep) {
		if c.Params.Name == tool {
			n++
		}
	}
	return n
}

func sentCalls(rep cliReport) []sentCall {
	var out []sentCall
	for _, f := range rep.Transcript {
		var m sentCall
		if f.Dir != "out" || f.Kind != "message" || json.Unmarshal([]byte(f.Raw), &m) != nil || m.Method != "tools/call" {
			continue
		}
		out = append(out, m)
	}
	return out
}

// requireCallMeta: under 2026-07-28 every request carries the request metadata (basic,
// Request metadata: "Every request supplies this metadata in its _meta field"), the calls too.
func requireCallMeta(t *testing.T, rep cliReport, rev string) {
	t.Helper()
	calls := sentCalls(rep)
	if len(calls) == 0 {
		t.Fatal("no tools/call in the transcript (was --verbose given?)")
	}
	for _, c := range calls {
		if v := c.Params.Meta["io.modelcontextprotocol/protocolVersion"]; v != rev {
			t.Errorf("tools/call of %q: _meta protocolVersion %v, want %s", c.Params.Name, v, rev)
		}
		if _, ok := c.Params.Meta["io.modelcontextprotocol/clientCapabilities"]; !ok {
			t.Errorf("tools/call of %q: no clientCapabilities in _meta", c.Params.Name)
		}
	}
}

// requireRefused: each server request of methods that came during the calls got the probe's
// -32601 (it declares no client capability), and nothing else answered it.
func requireRefused(t *testing.T, rep cliReport, methods ...string) {
	t.Helper()
	type message struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	asked := map[string]string{} // request id -> method
	answers := map[string][]message{}
	for _, f := range rep.Transcript {
		var m message
		if f.Kind != "message" || json.Unmarshal([]byte(f.Raw), &m) != nil || len(m.ID) == 0 {
			continue
		}
		switch {
		case f.Dir == "in" && slices.Contains(methods, m.Method):
			asked[string(m.ID)] = m.Method
		case f.Dir == "out" && m.Method == "":
			answers[string(m.ID)] = append(answers[string(m.ID)], m)
		}
	}
	for _, method := range methods {
		if !slices.Contains(slices.Collect(maps.Values(asked)), method) {
			t.Errorf("the server sent no %s during the calls", method)
		}
	}
	for id, method := range asked {
		a := answers[id]
		if len(a) != 1 || a[0].Error == nil || a[0].Error.Code != protocol.CodeMethodNotFound || len(a[0].Result) != 0 {
			t.Errorf("%s (id %s) was answered %d time(s), want once with error -32601: %+v", method, id, len(a), a)
		}
	}
}
