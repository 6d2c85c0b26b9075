package checks

import (
	"encoding/json"
	"testing"

	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

const callTools = `{"tools":[{"name":"echo","inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}},` +
	`{"name":"add","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"sum":{"type":"number"}},"required":["sum"]}}]}`

// callOf is one call of a scripted calls file, answered as given; invalid, when not nil,
// answers the call with invalid arguments.
type callOf struct {
	tool           string
	expect         *probe.CallExpect
	answer         reply
	invalid        reply
	notSent        string
	invalidNotSent string
}

// callSession scripts a session that lists echo and add and ends with the calls.
func callSession(cs ...callOf) *probe.Result {
	return scriptedSession(protocol.TransportStdio, func(p *sessionPlan) {
		p.toolsResult = callTools
		p.atEnd = func(w *wireScript, next func() string) {
			for _, c := range cs {
				rec := probe.CallRecord{Tool: c.tool, NotSent: c.notSent, InvalidNotSent: c.invalidNotSent,
					Call: probe.ToolCall{Tool: c.tool, Expect: c.expect, InvalidArguments: c.invalid != nil || c.invalidNotSent != ""}}
				if c.notSent == "" {
					rec.Step = probe.CallStepPrefix + c.tool
					w.call(probe.ConnMain, rec.Step, "tools/call", next(), `{"name":"`+c.tool+`","arguments":{}}`, c.answer)
				}
				if c.invalid != nil {
					rec.InvalidStep, rec.InvalidHow = rec.Step+probe.CallInvalidSuffix, `the required property "text" left out`
					w.call(probe.ConnMain, rec.InvalidStep, "tools/call", next(), `{"name":"`+c.tool+`","arguments":{}}`, c.invalid)
				}
				w.res.Calls = append(w.res.Calls, rec)
			}
		}
	})
}

func textResult(text string) reply {
	raw, _ := json.Marshal(text)
	return resultReply(`{"content":[{"type":"text","text":` + string(raw) + `}]}`)
}

// server/tools, Tool Result: "Unstructured content is returned in the content field of a
// result, and can contain multiple content items of different types"; Image Content: "The
// image data MUST be base64-encoded".
func TestCallResult(t *testing.T) {
	runCheckRows(t, "tools.call-result", []checkRow{
		{name: "no calls file", res: scriptedSession(protocol.TransportStdio), want: StatusSkip},
		{name: "a text result", res: callSession(callOf{tool: "echo", answer: textResult("hello")}), want: StatusPass, msg: `"echo"`},
		{name: "an error answer is no result to judge", res: callSession(callOf{tool: "echo", answer: errorReply(-32602, "bad")}), want: StatusPass, msg: "JSON-RPC error"},
		{name: "image data not base64", res: callSession(callOf{tool: "echo", answer: resultReply(`{"content":[{"type":"image","data":"not base64!","mimeType":"image/png"}]}`)}), want: StatusFail},
		{name: "no content", res: callSession(callOf{tool: "echo", answer: resultReply(`{"isError":false}`)}), want: StatusFail},
		{name: "isError a string", res: callSession(callOf{tool: "echo", answer: resultReply(`{"content":[],"isError":"no"}`)}), want: StatusFail},
		{name: "a tool not listed", res: callSession(callOf{tool: "gone", notSent: `the server does not list the tool "gone"`}), want: StatusUntested},
		{name: "no answer", res: callSession(callOf{tool: "echo", answer: noReply()}), want: StatusUntested},
		// Untested is never a pass, but the calls that passed are still named.
		{name: "one not listed, one passed", res: callSession(callOf{tool: "gone", notSent: `the server does not list the tool "gone"`}, callOf{tool: "echo", answer: textResult("hello")}),
			want: StatusUntested, msg: `passed: tools/call of "echo" answered`},
		// 2026-07-28 basic/patterns/mrtr: "Servers MUST NOT assume that clients will fulfill
		// the inputRequests or retry the original request": the probe, which declares no
		// client capability, ends the call there, and an InputRequiredResult is no
		// malformed CallToolResult.
		{name: "input_required", res: callSession(callOf{tool: "echo", answer: resultReply(`{"resultType":"input_required","requestState":"s"}`)}), want: StatusUntested, msg: "cannot fulfil input requests"},
	})
}

// server/tools, Output Schema: "Servers MUST provide structured results that conform to this
// schema"; Structured Content: "a tool that returns structured content SHOULD also return
// the serialized JSON in a TextContent block".
func TestStructuredContent(t *testing.T) {
	runCheckRows(t, "tools.structured-content", []checkRow{
		{name: "no calls file", res: scriptedSession(protocol.TransportStdio), want: StatusSkip},
		{name: "valid and mirrored", res: callSession(callOf{tool: "add", answer: resultReply(`{"content":[{"type":"text","text":"{\"sum\":3}"}],"structuredContent":{"sum":3}}`)}), want: StatusPass},
		{name: "missing", res: callSession(callOf{tool: "add", answer: textResult("3")}), want: StatusFail},
		{name: "against the schema", res: callSession(callOf{tool: "add", answer: resultReply(`{"content":[{"type":"text","text":"{\"sum\":\"3\"}"}],"structuredContent":{"sum":"3"}}`)}), want: StatusFail},
		{name: "no text mirror", res: callSession(callOf{tool: "add", answer: resultReply(`{"content":[{"type":"text","text":"the sum is 3"}],"structuredContent":{"sum":3}}`)}), want: StatusWarn},
		{name: "a tool error carries none", res: callSession(callOf{tool: "add", answer: resultReply(`{"content":[{"type":"text","text":"no"}],"isError":true}`)}), want: StatusSkip},
		{name: "no outputSchema", res: callSession(callOf{tool: "echo", answer: textResult("hello")}), want: StatusSkip},
	})
}

// server/tools, Error Handling (2025-11-25): "Tool Execution Errors: Reported in tool results
// with isError: true: ... Input validation errors (e.g., date in wrong format, value out of
// range)".
func TestInvalidArguments(t *testing.T) {
	ok := textResult("hello")
	runCheckRows(t, "tools.invalid-arguments", []checkRow{
		{name: "no calls file", res: scriptedSession(protocol.TransportStdio), want: StatusSkip},
		{name: "none marked", res: callSession(callOf{tool: "echo", answer: ok}), want: StatusSkip},
		{name: "isError true", res: callSession(callOf{tool: "echo", answer: ok, invalid: resultReply(`{"content":[{"type":"text","text":"text is required"}],"isError":true}`)}), want: StatusPass},
		{name: "-32602", res: callSession(callOf{tool: "echo", answer: ok, invalid: errorReply(-32602, "invalid params")}), want: StatusPass},
		{name: "the tool ran", res: callSession(callOf{tool: "echo", answer: ok, invalid: textResult("")}), want: StatusWarn},
		{name: "another error", res: callSession(callOf{tool: "echo", answer: ok, invalid: errorReply(-32603, "internal")}), want: StatusWarn},
		{name: "nothing to break", res: callSession(callOf{tool: "echo", answer: ok, invalidNotSent: "the tool's inputSchema requires nothing"}), want: StatusUntested},
	})
}

// The calls file's own expectations.
func TestCallExpectations(t *testing.T) {
	no := false
	hello := &probe.CallExpect{IsError: &no, TextContains: "hello"}
	sum := &probe.CallExpect{Pointer: "/sum", Equals: json.RawMessage(`3`)}
	structured := resultReply(`{"content":[{"type":"text","text":"{\"sum\":3}"}],"structuredContent":{"sum":3}}`)
	runCheckRows(t, "tools.call-expectations", []checkRow{
		{name: "no calls file", res: scriptedSession(protocol.TransportStdio), want: StatusSkip},
		{name: "nothing expected", res: callSession(callOf{tool: "echo", answer: textResult("hello")}), want: StatusSkip},
		{name: "text and isError", res: callSession(callOf{tool: "echo", expect: hello, answer: textResult("say hello")}), want: StatusPass},
		{name: "text missed", res: callSession(callOf{tool: "echo", expect: hello, answer: textResult("HELLO")}), want: StatusFail},
		{name: "isError missed", res: callSession(callOf{tool: "echo", expect: hello, answer: resultReply(`{"content":[{"type":"text","text":"hello"}],"isError":true}`)}), want: StatusFail},
		{name: "pointer equals", res: callSession(callOf{tool: "add", expect: sum, answer: structured}), want: StatusPass},
		{name: "pointer differs", res: callSession(callOf{tool: "add", expect: &probe.CallExpect{Pointer: "/sum", Equals: json.RawMessage(`4`)}, answer: structured}), want: StatusFail},
		{name: "pointer matches", res: callSession(callOf{tool: "add", expect: &probe.CallExpect{Pointer: "/sum", Matches: "^[0-9]+$"}, answer: structured}), want: StatusPass},
		{name: "pointer to nothing", res: callSession(callOf{tool: "add", expect: &probe.CallExpect{Pointer: "/total", Equals: json.RawMessage(`3`)}, answer: structured}), want: StatusFail},
		{name: "an error answer", res: callSession(callOf{tool: "echo", expect: hello, answer: errorReply(-32603, "boom")}), want: StatusFail},
		{name: "not sent", res: callSession(callOf{tool: "gone", expect: hello, notSent: "not listed"}), want: StatusUntested},
	})
}
