package checks

import (
	"testing"

	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
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

// legacyRobustness is a legacy HTTP+SSE run whose robustness connection POSTs raw, answered
// with postStatus; answer ("" for none) comes in the POST's body when it is an error status,
// otherwise as a message event of the connection's stream. The fence ping is answered.
func legacyRobustness(step, raw, id string, postStatus int, answer string) *probe.Result {
	w := newWireScript(protocol.TransportSSE)
	w.res.Requested, w.res.Negotiated, w.res.ProtocolVersion = protocol.Revision20241105, protocol.Revision20241105, protocol.Revision20241105
	const conn = probe.ConnRobustness
	streamInfo := func() *probe.HTTPInfo { return &probe.HTTPInfo{Status: 200, ContentType: "text/event-stream"} }
	w.exchange[conn]++
	stream := w.exchange[conn]
	w.add(probe.Frame{Conn: conn, Dir: probe.Out, Kind: probe.KindHTTPRequest, Exchange: stream, HTTP: &probe.HTTPInfo{Method: "GET", URL: "http://127.0.0.1:8000/sse"}})
	w.add(probe.Frame{Conn: conn, Dir: probe.In, Kind: probe.KindHTTPResponse, Exchange: stream, HTTP: streamInfo()})
	w.add(probe.Frame{Conn: conn, Dir: probe.In, Kind: probe.KindSSEEvent, Exchange: stream, Raw: []byte("/message?sessionId=1"),
		SSE: &probe.SSEInfo{Event: "endpoint"}, HTTP: streamInfo()})
	post := func(name, raw, id string, status int, answer string) {
		w.exchange[conn]++
		x := w.exchange[conn]
		st := probe.Step{Name: name, Conn: conn, ID: id, Response: -1, Outcome: probe.OutcomeNoAnswer}
		st.Request = w.add(probe.Frame{Conn: conn, Dir: probe.Out, Kind: probe.KindMessage, Exchange: x, Raw: []byte(raw),
			HTTP: &probe.HTTPInfo{Method: "POST", URL: "http://127.0.0.1:8000/message?sessionId=1"}})
		if status >= 400 {
			st.Response = w.inBody(conn, status, "application/json", answer)
			st.HTTPStatus = status
		} else {
			w.add(probe.Frame{Conn: conn, Dir: probe.In, Kind: probe.KindHTTPResponse, Exchange: x, Raw: []byte("Accepted"),
				HTTP: &probe.HTTPInfo{Status: status, ContentType: "text/plain"}})
			if answer != "" {
				st.Response = w.add(probe.Frame{Conn: conn, Dir: probe.In, Kind: probe.KindMessage, Exchange: stream, Raw: []byte(answer),
					SSE: &probe.SSEInfo{Event: "message"}, HTTP: streamInfo()})
				st.HTTPStatus = 200
			}
		}
		if st.Response >= 0 {
			st.Outcome = probe.OutcomeError
		}
		w.res.Steps = append(w.res.Steps, st)
	}
	post(step, raw, id, postStatus, answer)
	fence := fenceOf(step)
	post(fence, `{"jsonrpc":"2.0","id":"`+fence+`","method":"ping"}`, `"`+fence+`"`, 202, `{"jsonrpc":"2.0","id":"`+fence+`","result":{}}`)
	return w.res
}

func TestParseErrorWantsMinus32700AndAServerThatGoesOn(t *testing.T) {
	const conn = probe.ConnRobustness
	parse := func(transport string, answer reply, ping reply) *probe.Result {
		return robustnessSession(transport, conn, probe.StepParseError, probe.MalformedJSON, "", answer, probe.StepParseErrorPing, ping)
	}
	rows := []checkRow{
		{name: "stdio: -32700 with a null id, then ping answered", want: StatusPass, msg: "malformed JSON got JSON-RPC error -32700",
			res: parse(protocol.TransportStdio, jsonReply(parseErrorAnswer), pingReply)},
		{name: "http: 400 with a -32700 body", want: StatusPass, msg: "-32700",
			res: parse(protocol.TransportHTTP, statusReply(400, "application/json", parseErrorAnswer), pingReply)},
		{name: "stdio: nothing, though the ping after it is answered", want: StatusWarn,
			msg: "malformed JSON: expected error -32700, got no answer (the server answered the ping sent after it",
			res: parse(protocol.TransportStdio, noReply(), pingReply)},
		{name: "stdio: the wrong code", want: StatusWarn, msg: "expected error -32700, got JSON-RPC error -32600",
			res: parse(protocol.TransportStdio, jsonReply(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}`), pingReply)},
		// The probe broke "The body of the POST request MUST be a single JSON-RPC request,
		// notification, or response" (2025-11-25 basic/transports) on purpose; a 4xx refuses
		// it, as "If the server cannot accept the input, it MUST return an HTTP error status
		// code (e.g., 400 Bad Request)" asks, whatever the body (go-sdk: 400 text/plain).
		{name: "http: a plain-text 400 is a refusal", want: StatusPass,
			msg: "malformed JSON got HTTP 400 (the probe broke a client rule on purpose; an HTTP 4xx refuses it)",
			res: parse(protocol.TransportHTTP, statusReply(400, "text/plain", "bad request"), pingReply)},
		{name: "http: a 200 without -32700 still warns", want: StatusWarn, msg: "expected error -32700, got a result",
			res: parse(protocol.TransportHTTP, jsonReply(`{"jsonrpc":"2.0","id":null,"result":{}}`), pingReply)},
		{name: "legacy sse: -32700 on the stream after a 202 passes", want: StatusPass, msg: "malformed JSON got JSON-RPC error -32700",
			res: legacyRobustness(probe.StepParseError, probe.MalformedJSON, "", 202, parseErrorAnswer)},
		// mcp-grafana answers a malformed POST with 400 and an id-less -32700 in the body.
		{name: "legacy sse: a 400 refusal of the POST passes", want: StatusPass, msg: "malformed JSON got HTTP 400 with JSON-RPC error -32700",
			res: legacyRobustness(probe.StepParseError, probe.MalformedJSON, "", 400, parseErrorAnswer)},
		{name: "legacy sse: the 202 is no answer", want: StatusWarn, msg: "expected error -32700, got no answer",
			res: legacyRobustness(probe.StepParseError, probe.MalformedJSON, "", 202, "")},
		{name: "stdio: the server exits on it", want: StatusWarn, msg: "expected error -32700, got no answer: the server process ended by itself (exit status 1",
			res: parse(protocol.TransportStdio, dies, noReply())},
		{name: "stdio: answered, but the server stops answering afterwards", want: StatusWarn,
			msg: "after malformed JSON, expected the server to go on answering, got no answer within the timeout",
			res: parse(protocol.TransportStdio, jsonReply(parseErrorAnswer), noReply())},
		{name: "the probe's initialize on its connection failed", want: StatusUntested, msg: "initialize on the probe's own connection did not succeed (JSON-RPC error -32603",
			res: withRules(protocol.TransportStdio, func(w *wireScript) {
				w.call(conn, probe.StepRuleInitialize, "initialize", "1", ruleInitParams, errorReply(-32603, "busy"))
			})},
		{name: "never sent", want: StatusUntested, msg: "the malformed JSON was not sent",
			res: scriptedSession(protocol.TransportStdio)},
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
			res: invalid(protocol.TransportStdio, jsonReply(invalidRequestAnswer))},
		{name: "stdio: -32600 with a null id", want: StatusPass, msg: "-32600",
			res: invalid(protocol.TransportStdio, jsonReply(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}`))},
		{name: "http: 400 with the -32600 body", want: StatusPass, msg: "-32600",
			res: invalid(protocol.TransportHTTP, statusReply(400, "application/json", invalidRequestAnswer))},
		{name: "stdio: method not found instead", want: StatusWarn, msg: "a request without a method: expected error -32600, got JSON-RPC error -32601",
			res: invalid(protocol.TransportStdio, errorReply(-32601, "Method not found"))},
		{name: "http: -32601 in a 400 is a refusal", want: StatusPass, msg: "a request without a method got HTTP 400 with JSON-RPC error -32601 \"Method not found\" (the probe broke a client rule on purpose",
			res: invalid(protocol.TransportHTTP, statusReply(400, "application/json", `{"jsonrpc":"2.0","id":"mcpwatch-invalid-request","error":{"code":-32601,"message":"Method not found"}}`))},
		{name: "stdio: ignored", want: StatusWarn, msg: "got no answer",
			res: invalid(protocol.TransportStdio, noReply())},
		{name: "http: -32601 in a 200 warns", want: StatusWarn, msg: "expected error -32600, got JSON-RPC error -32601",
			res: invalid(protocol.TransportHTTP, errorReply(-32601, "Method not found"))},
		// The POST's 202 says the message was taken: the answer is the stream's.
		{name: "legacy sse: -32600 on the stream after a 202 passes", want: StatusPass, msg: "a request without a method got JSON-RPC error -32600",
			res: legacyRobustness(probe.StepInvalidRequest, probe.MethodlessRequest, `"mcpwatch-invalid-request"`, 202, invalidRequestAnswer)},
		{name: "legacy sse: -32601 on the stream warns", want: StatusWarn, msg: "expected error -32600, got JSON-RPC error -32601",
			res: legacyRobustness(probe.StepInvalidRequest, probe.MethodlessRequest, `"mcpwatch-invalid-request"`, 202,
				`{"jsonrpc":"2.0","id":"mcpwatch-invalid-request","error":{"code":-32601,"message":"Method not found"}}`)},
		{name: "never sent", want: StatusUntested, msg: "the request without a method was not sent",
			res: scriptedSession(protocol.TransportHTTP)},
	}
	runCheckRows(t, "lifecycle.invalid-request", rows)
}

// A -32600 that echoes the id of the methodless request answers a request the probe sent:
// jsonrpc.id-echo must not call it a response to an id never sent.
func TestIDEchoCountsTheMethodlessRequestAsSent(t *testing.T) {
	res := robustnessSession(protocol.TransportStdio, probe.ConnRobustness, probe.StepInvalidRequest, probe.MethodlessRequest,
		`"mcpwatch-invalid-request"`, jsonReply(invalidRequestAnswer), probe.StepInvalidRequestPing, pingReply)
	if f := evaluateCheck(t, "jsonrpc.id-echo", res); f.Status != StatusPass {
		t.Errorf("jsonrpc.id-echo: %s %q", f.Status, f.Message)
	}
}

// The robustness probes ride the negotiation connection when the server answered its bogus
// initialize: their checks find them there, and a server request on that connection after
// its initialized is not early.
func TestRobustnessProbesOnTheNegotiationConnection(t *testing.T) {
	res := withRules(protocol.TransportStdio, func(w *wireScript) {
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
