package checks

import (
	"testing"

	"github.com/mcpwatch/mcpwatch/probe"
)

const (
	parseErrorAnswer     = `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`
	invalidRequestAnswer = `{"jsonrpc":"2.0","id":"mcpwatch-invalid-request","error":{"code":-32600,"message":"Invalid Request"}}`
)

// robustnessSession scripts the conformant session plus a robustness probe's connection:
// its handshake, the raw message with its answer, then the fence ping with its answer.
func robustnessSession(transport string, conn int, step, raw, id string, answer reply, pingStep string, ping reply) *probe.Result {
	return withRules(transport, func(w *wireScript) {
		w.ruleHandshake(conn, plainInitResult, "")
		w.raw(conn, step, raw, id, answer)
		if ping != nil {
			w.call(conn, pingStep, "ping", `"`+pingStep+`"`, "", ping)
		}
	})
}

// dies records the end of the connection's server process instead of an answer.
func dies(w *wireScript, conn int, _ string) int {
	w.note(conn, probe.NoteStdoutClosed, "")
	w.note(conn, probe.NoteProcessExit, "exit status 1")
	w.res.Processes = append(w.res.Processes, probe.ProcessInfo{Conn: conn, PID: 4300 + conn, Started: true,
		Exited: true, ExitCode: 1, EndedBy: "exit", Stderr: []byte("panic: unexpected character\n")})
	return -1
}

func TestParseErrorWantsMinus32700AndAServerThatGoesOn(t *testing.T) {
	const conn = probe.ConnRobustness
	parse := func(transport string, answer reply, ping reply) *probe.Result {
		return robustnessSession(transport, conn, probe.StepParseError, probe.MalformedJSON, "", answer, probe.StepParseErrorPing, ping)
	}
	rows := []checkRow{
		{name: "stdio: -32700 with a null id, then ping answered", want: StatusPass, msg: "malformed JSON got JSON-RPC error -32700",
			res: parse(probe.TransportStdio, jsonReply(parseErrorAnswer), pingReply)},
		{name: "http: 400 with a -32700 body", want: StatusPass, msg: "-32700",
			res: parse(probe.TransportHTTP, statusReply(400, "application/json", parseErrorAnswer), pingReply)},
		{name: "stdio: nothing, though the ping after it is answered", want: StatusWarn,
			msg: "malformed JSON: expected error -32700, got no answer (the server answered the ping sent after it",
			res: parse(probe.TransportStdio, noReply(), pingReply)},
		{name: "stdio: the wrong code", want: StatusWarn, msg: "expected error -32700, got JSON-RPC error -32600",
			res: parse(probe.TransportStdio, jsonReply(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}`), pingReply)},
		{name: "http: a plain-text 400", want: StatusWarn, msg: `expected error -32700, got HTTP status 400 of type "text/plain" with body "bad request"`,
			res: parse(probe.TransportHTTP, statusReply(400, "text/plain", "bad request"), pingReply)},
		{name: "stdio: the server exits on it", want: StatusWarn, msg: "expected error -32700, got no answer: the server process ended by itself (exit status 1",
			res: parse(probe.TransportStdio, dies, noReply())},
		{name: "stdio: answered, but the server stops answering afterwards", want: StatusWarn,
			msg: "after malformed JSON, expected the server to go on answering, got no answer within the timeout",
			res: parse(probe.TransportStdio, jsonReply(parseErrorAnswer), noReply())},
		{name: "the probe's initialize on its connection failed", want: StatusUntested, msg: "initialize on the probe's own connection did not succeed (JSON-RPC error -32603",
			res: withRules(probe.TransportStdio, func(w *wireScript) {
				w.call(conn, probe.StepRuleInitialize, "initialize", "1", ruleInitParams, errorReply(-32603, "busy"))
			})},
		{name: "never sent", want: StatusUntested, msg: "the malformed JSON was not sent",
			res: scriptedSession(probe.TransportStdio)},
	}
	runCheckRows(t, "lifecycle.parse-error", rows)
}

func TestInvalidRequestWantsMinus32600(t *testing.T) {
	const conn = probe.ConnRobustness
	invalid := func(transport string, answer reply) *probe.Result {
		return robustnessSession(transport, conn, probe.StepInvalidRequest, probe.MethodlessRequest, `"mcpwatch-invalid-request"`,
			answer, probe.StepInvalidRequestPing, pingReply)
	}
	rows := []checkRow{
		{name: "stdio: -32600 echoing the id", want: StatusPass, msg: "a request without a method got JSON-RPC error -32600",
			res: invalid(probe.TransportStdio, jsonReply(invalidRequestAnswer))},
		{name: "stdio: -32600 with a null id", want: StatusPass, msg: "-32600",
			res: invalid(probe.TransportStdio, jsonReply(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}`))},
		{name: "http: 400 with the -32600 body", want: StatusPass, msg: "-32600",
			res: invalid(probe.TransportHTTP, statusReply(400, "application/json", invalidRequestAnswer))},
		{name: "stdio: method not found instead", want: StatusWarn, msg: "a request without a method: expected error -32600, got JSON-RPC error -32601",
			res: invalid(probe.TransportStdio, errorReply(-32601, "Method not found"))},
		{name: "http: -32601 in a 400", want: StatusWarn, msg: "got JSON-RPC error -32601 \"Method not found\" (HTTP 400)",
			res: invalid(probe.TransportHTTP, statusReply(400, "application/json", `{"jsonrpc":"2.0","id":"mcpwatch-invalid-request","error":{"code":-32601,"message":"Method not found"}}`))},
		{name: "stdio: ignored", want: StatusWarn, msg: "got no answer",
			res: invalid(probe.TransportStdio, noReply())},
		{name: "never sent", want: StatusUntested, msg: "the request without a method was not sent",
			res: scriptedSession(probe.TransportHTTP)},
	}
	runCheckRows(t, "lifecycle.invalid-request", rows)
}

// A -32600 that echoes the id of the methodless request answers a request the probe sent:
// jsonrpc.id-echo must not call it a response to an id never sent.
func TestIDEchoCountsTheMethodlessRequestAsSent(t *testing.T) {
	res := robustnessSession(probe.TransportStdio, probe.ConnRobustness, probe.StepInvalidRequest, probe.MethodlessRequest,
		`"mcpwatch-invalid-request"`, jsonReply(invalidRequestAnswer), probe.StepInvalidRequestPing, pingReply)
	if f := evaluateCheck(t, "jsonrpc.id-echo", res); f.Status != StatusPass {
		t.Errorf("jsonrpc.id-echo: %s %q", f.Status, f.Message)
	}
}

// The robustness probes ride the negotiation connection when the server answered its bogus
// initialize: their checks find them there, and a server request on that connection after
// its initialized is not early.
func TestRobustnessProbesOnTheNegotiationConnection(t *testing.T) {
	res := withRules(probe.TransportStdio, func(w *wireScript) {
		w.notify(probe.ConnNegotiation, probe.StepRuleInitialized, "notifications/initialized", nil)
		w.raw(probe.ConnNegotiation, probe.StepInvalidRequest, probe.MethodlessRequest, `"mcpwatch-invalid-request"`, jsonReply(invalidRequestAnswer))
		w.call(probe.ConnNegotiation, probe.StepInvalidRequestPing, "ping", `"`+probe.StepInvalidRequestPing+`"`, "", pingReply)
		w.raw(probe.ConnNegotiation, probe.StepParseError, probe.MalformedJSON, "", jsonReply(parseErrorAnswer))
		w.call(probe.ConnNegotiation, probe.StepParseErrorPing, "ping", `"`+probe.StepParseErrorPing+`"`, "", pingReply)
		w.in(probe.ConnNegotiation, `{"jsonrpc":"2.0","id":"s1","method":"roots/list"}`)
	})
	runCheckRows(t, "lifecycle.invalid-request", []checkRow{{name: "invalid request", res: res, want: StatusPass, msg: "-32600"}})
	runCheckRows(t, "lifecycle.parse-error", []checkRow{{name: "parse error", res: res, want: StatusPass, msg: "-32700"}})
	runCheckRows(t, "lifecycle.early-messages", []checkRow{{name: "after initialized", res: res, want: StatusPass, msg: "no server request"}})
}
