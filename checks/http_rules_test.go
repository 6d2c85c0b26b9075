package checks

import (
	"net/http"
	"testing"

	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

const (
	endpoint        = "http://127.0.0.1:1/mcp"
	sessionNotFound = `{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"Session not found"}}`
)

// sessionAnswers is how the server answers each request of the session probe.
type sessionAnswers struct {
	id               string // the session id initialize issues ("" for none)
	missing, unknown reply
	deleteStatus     int
	deleted          reply
}

func conformantSessions() sessionAnswers {
	return sessionAnswers{
		id:           "5f2b8c1d9e",
		missing:      statusReply(400, "application/json", `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Bad Request: no session"}}`),
		unknown:      statusReply(404, "application/json", sessionNotFound),
		deleteStatus: 200,
		deleted:      statusReply(404, "application/json", sessionNotFound),
	}
}

// sessionProbe scripts the conformant session plus the http.session probe's connection.
func sessionProbe(a sessionAnswers, edits ...func(p *sessionPlan)) *probe.Result {
	return withRules(protocol.TransportHTTP, func(w *wireScript) {
		const conn = probe.ConnSession
		w.ruleHandshake(conn, plainInitResult, a.id)
		if a.id == "" {
			return
		}
		w.call(conn, probe.StepSessionMissing, "tools/list", "2", "{}", a.missing)
		w.call(conn, probe.StepSessionUnknown, "ping", "3", "", a.unknown)
		if del := w.fetch(conn, probe.StepDeleteSession, "DELETE", endpoint, a.deleteStatus, "", "", nil); twoHundred(del.HTTPStatus) {
			w.call(conn, probe.StepSessionDeleted, "ping", "4", "", a.deleted)
		}
	}, edits...)
}

func TestHTTPSessionRules(t *testing.T) {
	with := func(edit func(a *sessionAnswers)) *probe.Result {
		a := conformantSessions()
		edit(&a)
		return sessionProbe(a)
	}
	rows := []checkRow{
		{name: "400, 404, and 404 once deleted", want: StatusPass,
			msg: "session ids are visible ASCII (1 seen); a missing id got 400, an unknown one 404; a deleted one got 404",
			res: sessionProbe(conformantSessions())},
		{name: "DELETE not allowed: the deleted id is not tried", want: StatusPass, msg: "it does not let clients end a session",
			res: with(func(a *sessionAnswers) { a.deleteStatus = 405 })},
		{name: "a missing id is served", want: StatusWarn, msg: "a request without Mcp-Session-Id: expected HTTP 400, got HTTP 200 with a result",
			res: with(func(a *sessionAnswers) { a.missing = pingReply })},
		{name: "a missing id gets 401", want: StatusWarn, msg: `expected HTTP 400, got HTTP 401 of type "text/plain" with body "login"`,
			res: with(func(a *sessionAnswers) { a.missing = statusReply(401, "text/plain", "login") })},
		// The 404 MUST names terminated sessions ("The server MAY terminate the session at
		// any time, after which it MUST respond to requests containing that session ID with
		// HTTP 404 Not Found"); an id never issued is held to it as a SHOULD only.
		{name: "an unknown id is served", want: StatusWarn, msg: "a request with a session id the server never issued: expected HTTP 404 (as for a terminated session), got HTTP 200 with a result",
			res: with(func(a *sessionAnswers) { a.unknown = pingReply })},
		{name: "an unknown id gets 400", want: StatusWarn, msg: "expected HTTP 404 (as for a terminated session), got HTTP 400 with JSON-RPC error -32000",
			res: with(func(a *sessionAnswers) {
				a.unknown = statusReply(400, "application/json", `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"bad"}}`)
			})},
		{name: "a deleted id is still served", want: StatusFail, msg: "a request with the session id ended by DELETE (HTTP 200): expected HTTP 404, got HTTP 200 with a result",
			res: with(func(a *sessionAnswers) { a.deleted = pingReply })},
		{name: "a session id with a space", want: StatusFail, msg: `expected a session id of visible ASCII (0x21-0x7E), got "session 1": byte 0x20 at offset 7`,
			res: with(func(a *sessionAnswers) { a.id = "session 1" })},
		{name: "a session id on the main connection with a control byte", want: StatusFail, msg: "byte 0x07 at offset 2",
			res: sessionProbe(conformantSessions(), func(p *sessionPlan) {
				p.initialize = withHeader(resultReply(plainInitResult), "Mcp-Session-Id", "ab\x07cd")
			})},
		{name: "no session ids at all", want: StatusSkip, msg: "the server issues no session ids",
			res: with(func(a *sessionAnswers) { a.id = "" })},
		{name: "the probe's initialize failed", want: StatusUntested, msg: "initialize on the probe's own connection did not succeed",
			res: withRules(protocol.TransportHTTP, func(w *wireScript) {
				w.call(probe.ConnSession, probe.StepRuleInitialize, "initialize", "1", ruleInitParams, statusReply(503, "text/plain", "busy"))
			})},
		{name: "stdio", want: StatusSkip, msg: "applies to the http transport only",
			res: scriptedSession(protocol.TransportStdio)},
	}
	runCheckRows(t, "http.session", rows)
}

func protocolHeaderProbe(answer reply, edits ...func(p *sessionPlan)) *probe.Result {
	return withRules(protocol.TransportHTTP, func(w *wireScript) {
		w.ruleHandshake(probe.ConnProtocolHeader, plainInitResult, "s1")
		w.call(probe.ConnProtocolHeader, probe.StepProtocolHeaderInvalid, "ping", "2", "", answer)
	}, edits...)
}

func TestProtocolVersionHeaderWants400(t *testing.T) {
	rows := []checkRow{
		{name: "400", want: StatusPass, msg: "MCP-Protocol-Version: 1900-01-01 got HTTP 400",
			res: protocolHeaderProbe(statusReply(400, "text/plain", "unsupported protocol version"))},
		{name: "served anyway", want: StatusFail, msg: "MCP-Protocol-Version: 1900-01-01: expected HTTP 400, got HTTP 200 with a result",
			res: protocolHeaderProbe(pingReply)},
		{name: "a JSON-RPC error in a 200", want: StatusFail, msg: "expected HTTP 400, got HTTP 200 with JSON-RPC error -32602",
			res: protocolHeaderProbe(errorReply(-32602, "bad version"))},
		{name: "before 2025-06-18 there is no such header", want: StatusSkip, msg: "MCP-Protocol-Version exists from 2025-06-18 on; the server speaks 2025-03-26",
			res: protocolHeaderProbe(pingReply, func(p *sessionPlan) {
				p.initResult = `{"protocolVersion":"2025-03-26","capabilities":{},"serverInfo":{"name":"fixture","version":"1.0.0"}}`
			})},
		{name: "never sent", want: StatusUntested, msg: "the request with an invalid MCP-Protocol-Version was not sent",
			res: scriptedSession(protocol.TransportHTTP)},
	}
	runCheckRows(t, "http.protocol-version-header", rows)
}

func getStreamProbe(status int, contentType, body string) *probe.Result {
	return withRules(protocol.TransportHTTP, func(w *wireScript) {
		w.ruleHandshake(probe.ConnGetStream, plainInitResult, "s1")
		w.fetch(probe.ConnGetStream, probe.StepGetStream, "GET", endpoint, status, contentType, body, nil)
	})
}

func TestGetStreamWantsAnEventStreamOr405(t *testing.T) {
	rows := []checkRow{
		{name: "405", want: StatusPass, msg: "GET got 405 Method Not Allowed", res: getStreamProbe(405, "text/plain", "method not allowed")},
		{name: "an event stream", want: StatusPass, msg: "GET got an event stream", res: getStreamProbe(200, "text/event-stream; charset=utf-8", "")},
		{name: "an HTML page", want: StatusFail,
			msg: `GET: expected text/event-stream or 405 Method Not Allowed, got HTTP 200 of type "text/html" with body "<p>hello</p>"`,
			res: getStreamProbe(200, "text/html", "<p>hello</p>")},
		{name: "404", want: StatusFail, msg: "got HTTP 404", res: getStreamProbe(404, "", "")},
		{name: "no response", want: StatusFail, msg: "got no response", res: getStreamProbe(0, "", "")},
		{name: "never sent", want: StatusUntested, msg: "the GET was not sent", res: scriptedSession(protocol.TransportHTTP)},
	}
	runCheckRows(t, "http.get-stream", rows)
}

func originProbe(answer reply) *probe.Result {
	return withRules(protocol.TransportHTTP, func(w *wireScript) {
		w.call(probe.ConnOrigin, probe.StepForeignOrigin, "initialize", "1", ruleInitParams, answer)
	})
}

// originAt is the Origin probe of a session server speaking revision rev.
func originAt(rev string, answer reply) *probe.Result {
	res := originProbe(answer)
	res.ProtocolVersion = rev
	return res
}

// statelessOrigin is the Origin probe of a stateless (2026-07-28) server: server/discover
// from a foreign Origin.
func statelessOrigin(answer reply) *probe.Result {
	w := newWireScript(protocol.TransportHTTP)
	w.res.Requested, w.res.Negotiated, w.res.ProtocolVersion = rev2026, rev2026, rev2026
	w.call(probe.ConnMain, probe.StepDiscover, "server/discover", "1", metaParams, resultReply(discoverOnly))
	w.call(probe.ConnOrigin, probe.StepForeignOrigin, "server/discover", "1", metaParams, answer)
	return w.res
}

// legacyOrigin is the Origin probe of a legacy HTTP+SSE server (2024-11-05): the GET of the
// event stream from a foreign Origin answered getStatus, then initialize POSTed to the
// endpoint from it answered postStatus; a 202 is followed by the answer on the connection's
// own stream.
func legacyOrigin(getStatus, postStatus int) *probe.Result {
	w := newWireScript(protocol.TransportSSE)
	w.res.Requested, w.res.Negotiated, w.res.ProtocolVersion = protocol.Revision20241105, protocol.Revision20241105, protocol.Revision20241105
	const conn = probe.ConnOrigin
	w.exchange[conn]++
	stream := w.exchange[conn]
	w.add(probe.Frame{Conn: conn, Dir: probe.Out, Kind: probe.KindHTTPRequest, Exchange: stream, HTTP: &probe.HTTPInfo{Method: "GET", URL: "http://127.0.0.1:8000/sse"}})
	w.add(probe.Frame{Conn: conn, Dir: probe.In, Kind: probe.KindHTTPResponse, Exchange: stream, HTTP: &probe.HTTPInfo{Status: 200, ContentType: "text/event-stream"}})
	w.add(probe.Frame{Conn: conn, Dir: probe.In, Kind: probe.KindSSEEvent, Exchange: stream, Raw: []byte("/message?sessionId=1"),
		SSE: &probe.SSEInfo{Event: "endpoint"}, HTTP: &probe.HTTPInfo{Status: 200, ContentType: "text/event-stream"}})
	contentType := "text/plain"
	if getStatus == 200 {
		contentType = "text/event-stream"
	}
	w.fetch(conn, probe.StepForeignOriginStream, "GET", "http://127.0.0.1:8000/sse", getStatus, contentType, "", nil)
	w.exchange[conn]++
	x := w.exchange[conn]
	st := probe.Step{Name: probe.StepForeignOrigin, Method: "initialize", Conn: conn, ID: "1", Response: -1, Outcome: probe.OutcomeTransport}
	st.Request = w.add(probe.Frame{Conn: conn, Dir: probe.Out, Kind: probe.KindMessage, Exchange: x, Raw: []byte(legacyInit),
		HTTP: &probe.HTTPInfo{Method: "POST", URL: "http://127.0.0.1:8000/message?sessionId=1"}})
	head := w.add(probe.Frame{Conn: conn, Dir: probe.In, Kind: probe.KindHTTPResponse, Exchange: x, Raw: []byte("Accepted"),
		HTTP: &probe.HTTPInfo{Status: postStatus, ContentType: "text/plain"}})
	st.Response, st.HTTPStatus = head, postStatus
	if postStatus == 202 {
		st.Response = w.add(probe.Frame{Conn: conn, Dir: probe.In, Kind: probe.KindMessage, Exchange: stream, Raw: []byte(legacyAnswer),
			SSE: &probe.SSEInfo{Event: "message"}, HTTP: &probe.HTTPInfo{Status: 200, ContentType: "text/event-stream"}})
		st.HTTPStatus, st.Outcome = 200, probe.OutcomeOK
	}
	w.res.Steps = append(w.res.Steps, st)
	return w.res
}

// TestForeignOriginIsRefused: 2025-11-25 basic/transports, Streamable HTTP, "Security
// Warning": "Servers MUST validate the Origin header on all incoming connections to prevent
// DNS rebinding attacks. If the Origin header is present and invalid, servers MUST respond
// with HTTP 403 Forbidden." 2026-07-28 basic/transports/streamable-http keeps both MUSTs;
// 2024-11-05 (HTTP with SSE), 2025-03-26 and 2025-06-18 have only the first: "Servers MUST
// validate the Origin header on all incoming connections", so there any refusal passes. A
// 4xx other than 403 still refuses the request: a warning where 403 is named.
func TestForeignOriginIsRefused(t *testing.T) {
	refusal400 := statusReply(400, "application/json", `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"bad host"}}`)
	rows := []checkRow{
		{name: "403", want: StatusPass, msg: "initialize got HTTP 403", res: originProbe(statusReply(403, "text/plain", "forbidden"))},
		{name: "another 4xx from 2025-11-25 warns", want: StatusWarn,
			msg: "initialize with Origin: https://mcpwatch-foreign-origin.invalid: expected HTTP 403 Forbidden (2025-11-25), got HTTP 400",
			res: originProbe(refusal400)},
		{name: "another 4xx before 2025-11-25 passes", want: StatusPass, msg: "initialize got HTTP 400",
			res: originAt(protocol.Revision20250618, refusal400)},
		{name: "accepted fails", want: StatusFail,
			msg: "initialize with Origin: https://mcpwatch-foreign-origin.invalid: expected HTTP 403 Forbidden, got HTTP 200 with a result",
			res: originProbe(resultReply(plainInitResult))},
		{name: "accepted before 2025-11-25 fails too: the Origin was not validated", want: StatusFail,
			msg: "expected HTTP 403 Forbidden, got HTTP 200 with a result",
			res: originAt(protocol.Revision20250326, resultReply(plainInitResult))},
		{name: "a server error is no refusal", want: StatusFail, msg: "expected HTTP 403 Forbidden, got HTTP 500", res: originProbe(statusReply(500, "text/plain", "boom"))},
		{name: "dropped by a server that answers others", want: StatusFail, msg: "expected HTTP 403 Forbidden, got no answer", res: originProbe(noReply())},
		{name: "a server that answers nobody tells nothing", want: StatusUntested, msg: "the server answered no HTTP request at all",
			res: unreachableServer(func(w *wireScript) {
				w.call(probe.ConnOrigin, probe.StepForeignOrigin, "initialize", "1", ruleInitParams, noReply())
			})},
		{name: "never sent", want: StatusUntested, msg: "the request from a foreign Origin was not sent", res: scriptedSession(protocol.TransportHTTP)},
		{name: "a 401 hides the Origin check", want: StatusUntested,
			msg: "initialize with Origin: https://mcpwatch-foreign-origin.invalid got HTTP 401: the server needs credentials, so its Origin check went unseen; pass them with --bearer-token",
			res: originProbe(statusReply(401, "text/plain", "unauthorized"))},
		{name: "stateless: server/discover refused with 403 passes", want: StatusPass, msg: "server/discover got HTTP 403",
			res: statelessOrigin(statusReply(403, "text/plain", "forbidden"))},
		{name: "stateless: server/discover served fails", want: StatusFail,
			msg: "server/discover with Origin: https://mcpwatch-foreign-origin.invalid: expected HTTP 403 Forbidden, got HTTP 200 with a result",
			res: statelessOrigin(resultReply(discoverOnly))},
		{name: "legacy SSE: stream and POST refused pass", want: StatusPass,
			msg: "GET of the event stream got HTTP 403, initialize got HTTP 403", res: legacyOrigin(403, 403)},
		{name: "legacy SSE: any refusal passes under 2024-11-05", want: StatusPass, msg: "initialize got HTTP 400", res: legacyOrigin(403, 400)},
		{name: "legacy SSE: a stream opened for a foreign Origin fails", want: StatusFail,
			msg: "GET of the event stream with Origin: https://mcpwatch-foreign-origin.invalid: expected HTTP 403 Forbidden, got HTTP 200", res: legacyOrigin(200, 403)},
		// The POST's 202 is the evidence, not the stream's 200 that carried the answer.
		{name: "legacy SSE: a POST accepted with 202 fails", want: StatusFail,
			msg: "initialize with Origin: https://mcpwatch-foreign-origin.invalid: expected HTTP 403 Forbidden, got HTTP 202, and the request was served", res: legacyOrigin(403, 202)},
		{name: "stdio is a skip", want: StatusSkip, msg: "applies to the http and sse transports only", res: scriptedSession(protocol.TransportStdio)},
	}
	runCheckRows(t, "http.origin", rows)
}

// unreachableServer is an HTTP probe of a server that answers no request: the main and the
// negotiation connections' initialize go unanswered, and so does what rules records.
func unreachableServer(rules func(w *wireScript)) *probe.Result {
	return scriptedSession(protocol.TransportHTTP, func(p *sessionPlan) {
		p.bogus, p.initialize = noReply(), noReply()
		p.onNegotiation = rules
	})
}

func deleteProbe(sessionID string, status int, contentType, body string) *probe.Result {
	return withRules(protocol.TransportHTTP, func(w *wireScript) {
		w.ruleHandshake(probe.ConnDeleteSession, plainInitResult, sessionID)
		if sessionID != "" {
			w.fetch(probe.ConnDeleteSession, probe.StepDeleteSession, "DELETE", endpoint, status, contentType, body, nil)
		}
	})
}

func TestDeleteSessionWants2xxOr405(t *testing.T) {
	rows := []checkRow{
		{name: "200", want: StatusPass, msg: "DELETE of the session got HTTP 200", res: deleteProbe("s1", 200, "", "")},
		{name: "204", want: StatusPass, msg: "got HTTP 204", res: deleteProbe("s1", 204, "", "")},
		{name: "405", want: StatusPass, msg: "got HTTP 405", res: deleteProbe("s1", 405, "text/plain", "not allowed")},
		{name: "500", want: StatusWarn,
			msg: `DELETE of the session: expected 2xx or 405 Method Not Allowed, got HTTP 500 of type "text/plain" with body "internal error"`,
			res: deleteProbe("s1", 500, "text/plain", "internal error")},
		{name: "no response", want: StatusWarn, msg: "got no response", res: deleteProbe("s1", 0, "", "")},
		{name: "no session", want: StatusSkip, msg: "the server issued no session id, so there is no session to end", res: deleteProbe("", 0, "", "")},
		{name: "never sent", want: StatusUntested, msg: "the DELETE was not sent", res: scriptedSession(protocol.TransportHTTP)},
	}
	runCheckRows(t, "http.delete-session", rows)
}

// The requests the probe bends on purpose are their rules' evidence, not http.status's.
func TestHTTPStatusIgnoresDeliberatelyBentRequests(t *testing.T) {
	res := sessionProbe(conformantSessions())
	if f := evaluateCheck(t, "http.status", res); f.Status != StatusPass {
		t.Errorf("http.status: %s %q", f.Status, f.Message)
	}
	if f := evaluateCheck(t, "http.content-type", res); f.Status != StatusPass {
		t.Errorf("http.content-type: %s %q", f.Status, f.Message)
	}
	// A request of a rule connection that is not bent is judged as any other.
	res = withRules(protocol.TransportHTTP, func(w *wireScript) {
		w.ruleHandshake(probe.ConnRobustness, plainInitResult, "")
		w.call(probe.ConnRobustness, probe.StepInvalidRequestPing, "ping", "2", "", statusReply(http.StatusBadGateway, "text/html", "<h1>502</h1>"))
	})
	if f := evaluateCheck(t, "http.status", res); f.Status != StatusFail {
		t.Errorf("http.status of a plain request on a rule connection: %s %q", f.Status, f.Message)
	}
}
