package checks

import (
	"testing"

	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

const (
	unknownToolParams = `{"name":"mcpwatch-no-such-tool-0123456789abcdef","arguments":{}}`
	noToolsInit       = `{"protocolVersion":"2025-11-25","capabilities":{"logging":{}},"serverInfo":{"name":"fixture","version":"1.0.0"}}`
)

// unknownToolSession scripts the conformant session with its tools/list answered by list
// and, when that lists, a tools/call of an unknown tool at its end answered by call.
func unknownToolSession(transport string, list, call reply, edits ...func(p *sessionPlan)) *probe.Result {
	edits = append(edits, func(p *sessionPlan) {
		p.answers[probe.StepToolsList] = list
		p.atEnd = func(w *wireScript, next func() string) {
			for _, st := range w.res.Steps {
				if st.Name == probe.StepToolsList && st.Outcome != probe.OutcomeOK {
					return
				}
			}
			w.call(probe.ConnMain, probe.StepUnknownTool, "tools/call", next(), unknownToolParams, call)
		}
	})
	return scriptedSession(transport, edits...)
}

func TestUnknownToolWantsAJSONRPCError(t *testing.T) {
	tools := resultReply(`{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}`)
	rows := []checkRow{
		{name: "-32602, the spec's example", want: StatusPass,
			msg: `tools/call of "mcpwatch-no-such-tool-0123456789abcdef", which the server does not list, got JSON-RPC error -32602`,
			res: unknownToolSession(protocol.TransportStdio, tools, errorReply(-32602, "Unknown tool"))},
		{name: "another code is an error all the same", want: StatusPass, msg: "got JSON-RPC error -32601",
			res: unknownToolSession(protocol.TransportHTTP, tools, errorReply(-32601, "Method not found"))},
		{name: "an isError result", want: StatusWarn,
			msg: `which the server does not list: expected a JSON-RPC error (the spec's example is -32602), got a result {"content":[{"type":"text","text":"no such tool"}],"isError":true}`,
			res: unknownToolSession(protocol.TransportStdio, tools, resultReply(`{"content":[{"type":"text","text":"no such tool"}],"isError":true}`))},
		{name: "no answer", want: StatusWarn, msg: "got no answer within the timeout",
			res: unknownToolSession(protocol.TransportStdio, tools, noReply())},
		{name: "the listing failed, so nothing was called", want: StatusUntested, msg: "no tool was called: tools/list failed (JSON-RPC error -32603)",
			res: unknownToolSession(protocol.TransportStdio, errorReply(-32603, "busy"), nil)},
		{name: "no tools capability", want: StatusSkip, msg: "server declares no tools capability",
			res: scriptedSession(protocol.TransportStdio, func(p *sessionPlan) { p.initResult = noToolsInit })},
		{name: "never sent", want: StatusUntested, msg: "tools/call of an unknown tool was not sent",
			res: scriptedSession(protocol.TransportStdio)},
	}
	runCheckRows(t, "tools.unknown-tool", rows)
}

func TestUnknownToolRecordsTheErrorCode(t *testing.T) {
	tools := resultReply(`{"tools":[]}`)
	f := evaluateCheck(t, "tools.unknown-tool", unknownToolSession(protocol.TransportStdio, tools, errorReply(-32602, "Unknown tool")))
	if code, _ := f.Data["code"].(int64); code != -32602 {
		t.Errorf("data %v, want code -32602", f.Data)
	}
}

func invalidCursorSession(transport string, answer reply) *probe.Result {
	return scriptedSession(transport, func(p *sessionPlan) {
		p.atEnd = func(w *wireScript, next func() string) {
			w.call(probe.ConnMain, probe.StepInvalidCursor, "tools/list", next(), `{"cursor":"mcpwatch-invalid-cursor-0123456789abcdef"}`, answer)
		}
	})
}

func TestInvalidCursorWantsMinus32602(t *testing.T) {
	rows := []checkRow{
		{name: "-32602", want: StatusPass, msg: "a cursor the server never issued got JSON-RPC error -32602",
			res: invalidCursorSession(protocol.TransportHTTP, errorReply(-32602, "Invalid cursor"))},
		{name: "the first page instead", want: StatusWarn,
			msg: `tools/list with a cursor the server never issued: expected error -32602, got a page {"tools":[]}`,
			res: invalidCursorSession(protocol.TransportStdio, resultReply(`{"tools":[]}`))},
		{name: "another code", want: StatusWarn, msg: "expected error -32602, got JSON-RPC error -32603",
			res: invalidCursorSession(protocol.TransportStdio, errorReply(-32603, "Internal error"))},
		{name: "an HTTP error status", want: StatusWarn, msg: "expected error -32602, got HTTP status 500",
			res: invalidCursorSession(protocol.TransportHTTP, statusReply(500, "text/plain", "oops"))},
		{name: "no tools capability", want: StatusSkip, msg: "server declares no tools capability",
			res: scriptedSession(protocol.TransportHTTP, func(p *sessionPlan) { p.initResult = noToolsInit })},
		{name: "never sent", want: StatusUntested, msg: "tools/list with an invalid cursor was not sent",
			res: scriptedSession(protocol.TransportStdio)},
	}
	runCheckRows(t, "tools.invalid-cursor", rows)
}
