package checks

import (
	"testing"

	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// headReply answers a POST with a head whose body is no message.
func headReply(status int, contentType, body string) reply {
	return func(w *wireScript, conn int, id string) int {
		w.head(conn, status, contentType, body)
		return -1
	}
}

// bodyReply answers a POST with a message body under another status or content type.
func bodyReply(status int, contentType, raw string) reply {
	return func(w *wireScript, conn int, id string) int {
		return w.inBody(conn, status, contentType, `{"jsonrpc":"2.0","id":`+id+`,`+raw+`}`)
	}
}

func notifyHead(step string, status int, contentType, body string) func(p *sessionPlan) {
	return func(p *sessionPlan) {
		p.notifyAnswer[step] = func(w *wireScript, conn int) int {
			w.inBody(conn, status, contentType, body)
			return w.exchangeHead(conn)
		}
	}
}

// TestHTTPStatusFailsOnlyAnswersNoRuleAllows: no revision says a POSTed request gets HTTP
// 200. 2025-11-25 basic/transports, "Sending Messages to the Server": "If the input is a
// JSON-RPC request, the server MUST either return Content-Type: text/event-stream, to
// initiate an SSE stream, or Content-Type: application/json, to return one JSON object."
// A 4xx answer is judged by the rule the request tests (an unknown method's -32601, a
// content type, a 401's challenge); only a redirect or a server error to a well-formed
// request is answered by no rule at all.
func TestHTTPStatusFailsOnlyAnswersNoRuleAllows(t *testing.T) {
	http := protocol.TransportHTTP
	everyRequest := func(status int) func(p *sessionPlan) {
		return func(p *sessionPlan) {
			p.initialize = headReply(status, "text/plain", "Unauthorized")
			p.bogus = nil
			p.stopAfterInitialize = true
		}
	}
	runCheckRows(t, "http.status", []checkRow{
		{name: "200 everywhere passes", res: scriptedSession(http), want: StatusPass, msg: "requests, none redirected nor answered with a server error"},
		{name: "event streams pass", res: scriptedSession(http, answer(probe.StepPing, sseReply(`{"jsonrpc":"2.0","id":ID,"result":{}}`))), want: StatusPass},
		{name: "a 500 to a well-formed request fails with the status and body",
			res:  scriptedSession(http, answer(probe.StepToolsList, headReply(500, "text/plain", "internal error"))),
			want: StatusFail, msg: `POST "tools/list" (id 2): expected a result or a JSON-RPC error, got a server error: HTTP 500 and body "internal error"`},
		{name: "a redirect fails",
			res:  scriptedSession(http, answer(probe.StepPing, headReply(307, "", ""))),
			want: StatusFail, msg: `POST "ping" (id "mcpwatch-ping"): expected the answer (a result or a JSON-RPC error), got a redirect: HTTP 307`},
		// go-sdk's Streamable HTTP handler: lifecycle.unknown-method's evidence, not this check's.
		{name: "a 400 text/plain to the unknown method passes",
			res:  scriptedSession(http, answer(probe.StepUnknownMethod, headReply(400, "text/plain; charset=utf-8", "JSON RPC not handled"))),
			want: StatusPass},
		{name: "a 500 to the unknown method is the unknown-method check's",
			res:  scriptedSession(http, answer(probe.StepUnknownMethod, headReply(500, "text/plain", "panic"))),
			want: StatusPass},
		{name: "a 404 carrying -32601 passes",
			res:  scriptedSession(http, answer(probe.StepUnknownMethod, bodyReply(404, "application/json", `"error":{"code":-32601,"message":"nope"}`))),
			want: StatusPass},
		{name: "a 202 to a request is http.content-type's",
			res:  scriptedSession(http, answer(probe.StepPing, headReply(202, "", ""))),
			want: StatusPass},
		{name: "a 400 to the bogus initialize passes",
			res: scriptedSession(http, func(p *sessionPlan) {
				p.bogus = bodyReply(400, "application/json", `"error":{"code":-32602,"message":"bad"}`)
			}),
			want: StatusPass},
		{name: "a 401 to one request says the server needs credentials",
			res:  scriptedSession(http, answer(probe.StepToolsList, headReply(401, "text/plain", "Unauthorized"))),
			want: StatusPass, msg: "1 got HTTP 401 or 403: the server needs credentials, pass them with --bearer-token TOKEN"},
		{name: "401 to every request is no failure and names the flag",
			res:  scriptedSession(http, everyRequest(401)),
			want: StatusUntested, msg: "the server needs credentials: every request got HTTP 401 or 403; pass them with --bearer-token TOKEN"},
		{name: "403 to every request is no failure either",
			res:  scriptedSession(http, everyRequest(403)),
			want: StatusUntested, msg: "the server needs credentials"},
		{name: "requests that got no response are untested", res: scriptedSession(http, initFails), want: StatusUntested, msg: "no request"},
		{name: "stdio is a skip", res: scriptedSession(protocol.TransportStdio), want: StatusSkip, msg: "http transport only"},
	})
}

// TestHTTPContentTypeIsJSONOrEventStreamWhateverTheStatus: 2025-11-25 basic/transports,
// "Sending Messages to the Server": "If the input is a JSON-RPC request, the server MUST
// either return Content-Type: text/event-stream ... or Content-Type: application/json"; the
// sentence holds for every answer to a request, whatever its status.
//
// One answer, one finding: go-sdk answers an unknown method with 400 text/plain and no
// JSON-RPC message. That frame breaks both -32601 and the content type, but it is one fault
// (the server's router refuses the method before any JSON-RPC layer speaks), and
// lifecycle.unknown-method already fails it naming the status and the Content-Type. So an
// answer to a request that asks for an error on purpose is its own check's whenever no
// JSON-RPC message could be read from it; when a message was read, that check judges the
// code and this one the Content-Type. Likewise a 401/403 is the authorization checks', and a
// redirect or a server error http.status's.
func TestHTTPContentTypeIsJSONOrEventStreamWhateverTheStatus(t *testing.T) {
	http := protocol.TransportHTTP
	runCheckRows(t, "http.content-type", []checkRow{
		{name: "application/json passes", res: scriptedSession(http), want: StatusPass},
		{name: "parameters and case are ignored",
			res:  scriptedSession(http, answer(probe.StepPing, bodyReply(200, "Application/JSON; charset=utf-8", `"result":{}`))),
			want: StatusPass},
		{name: "text/event-stream passes", res: scriptedSession(http, answer(probe.StepPing, sseReply(`{"jsonrpc":"2.0","id":ID,"result":{}}`))), want: StatusPass},
		{name: "text/html fails",
			res:  scriptedSession(http, answer(probe.StepToolsList, headReply(200, "text/html; charset=utf-8", "<html>login</html>"))),
			want: StatusFail, msg: `POST "tools/list" (id 2): expected Content-Type application/json or text/event-stream, got "text/html; charset=utf-8"`},
		{name: "no content type fails",
			res:  scriptedSession(http, answer(probe.StepPing, bodyReply(200, "", `"result":{}`))),
			want: StatusFail, msg: "got none"},
		{name: "a 202 without a body to a request fails",
			res:  scriptedSession(http, answer(probe.StepPing, headReply(202, "", ""))),
			want: StatusFail, msg: `POST "ping" (id "mcpwatch-ping"): expected Content-Type application/json or text/event-stream, got none (HTTP 202)`},
		{name: "a 400 text/plain to a well-formed request fails",
			res:  scriptedSession(http, answer(probe.StepToolsList, headReply(400, "text/plain", "bad request"))),
			want: StatusFail, msg: `POST "tools/list" (id 2): expected Content-Type application/json or text/event-stream, got "text/plain" (HTTP 400)`},
		{name: "a 4xx with an id-less JSON-RPC error in application/json passes",
			res:  scriptedSession(http, answer(probe.StepToolsList, headReply(400, "application/json", `{"jsonrpc":"2.0","error":{"code":-32600,"message":"bad"}}`))),
			want: StatusPass},
		{name: "go-sdk's 400 text/plain to the unknown method is lifecycle.unknown-method's",
			res:  scriptedSession(http, answer(probe.StepUnknownMethod, headReply(400, "text/plain; charset=utf-8", "JSON RPC not handled"))),
			want: StatusPass},
		// The transport reads no message from a text/plain body, so lifecycle.unknown-method
		// fails this frame already.
		{name: "a -32601 labelled text/plain is lifecycle.unknown-method's",
			res:  scriptedSession(http, answer(probe.StepUnknownMethod, bodyReply(200, "text/plain", `"error":{"code":-32601,"message":"nope"}`))),
			want: StatusPass},
		{name: "a 401 is the authorization checks'",
			res:  scriptedSession(http, answer(probe.StepToolsList, headReply(401, "text/html", "<h1>login</h1>"))),
			want: StatusPass},
		{name: "a server error is http.status's",
			res:  scriptedSession(http, answer(probe.StepToolsList, headReply(500, "text/html", "<h1>oops</h1>"))),
			want: StatusPass},
		{name: "no answer is untested", res: scriptedSession(http, initFails), want: StatusUntested},
		{name: "stdio is a skip", res: scriptedSession(protocol.TransportStdio), want: StatusSkip},
	})
}

// TestNotificationAcceptedIs202OrARefusal: 2025-11-25 basic/transports, "Sending Messages to
// the Server": "If the server accepts the input, the server MUST return HTTP status code 202
// Accepted with no body. If the server cannot accept the input, it MUST return an HTTP error
// status code (e.g., 400 Bad Request)." A 4xx is a refusal the rule allows; a 200, a 202
// with a body, a redirect or a server error is not.
func TestNotificationAcceptedIs202OrARefusal(t *testing.T) {
	http := protocol.TransportHTTP
	runCheckRows(t, "http.notification-accepted", []checkRow{
		{name: "202 with no body passes", res: scriptedSession(http), want: StatusPass, msg: "2 notifications"},
		{name: "200 for initialized fails",
			res:  scriptedSession(http, notifyHead(probe.StepInitialized, 200, "", "")),
			want: StatusFail, msg: `POST of notification "notifications/initialized": expected 202 Accepted with no body (or a 4xx refusal), got HTTP 200`},
		{name: "202 with a body fails",
			res:  scriptedSession(http, notifyHead(probe.StepInitialized, 202, "application/json", `{"ok":true}`)),
			want: StatusFail, msg: `got 202 with a body of 11 bytes and body {"ok":true}`},
		{name: "400 for initialized is a refusal and passes",
			res:  scriptedSession(http, notifyHead(probe.StepInitialized, 400, "text/plain", "session required")),
			want: StatusPass},
		// go-sdk answers the probe's unknown notification with 400 text/plain.
		{name: "400 for the unknown notification passes",
			res:  scriptedSession(http, notifyHead(probe.StepUnknownNotification, 400, "text/plain; charset=utf-8", "JSON RPC not handled")),
			want: StatusPass},
		{name: "a 500 fails",
			res:  scriptedSession(http, notifyHead(probe.StepUnknownNotification, 500, "text/plain", "boom")),
			want: StatusFail, msg: `got HTTP 500 and body "boom"`},
		{name: "a redirect fails",
			res:  scriptedSession(http, notifyHead(probe.StepUnknownNotification, 302, "", "")),
			want: StatusFail, msg: "got HTTP 302"},
		{name: "an event stream answering a notification fails",
			res: scriptedSession(http, func(p *sessionPlan) {
				p.notifyAnswer[probe.StepUnknownNotification] = func(w *wireScript, conn int) int {
					head := w.head(conn, 200, "text/event-stream", "")
					w.sse(conn, `{"jsonrpc":"2.0","method":"notifications/message","params":{}}`, "")
					w.note(conn, probe.NoteStreamEnded, "")
					return head
				}
			}),
			want: StatusFail, msg: "got HTTP 200"},
		{name: "no notification sent is untested", res: scriptedSession(http, initFails), want: StatusUntested},
		{name: "stdio is a skip", res: scriptedSession(protocol.TransportStdio), want: StatusSkip},
	})
}

func TestSSEFramingCarriesTheResponse(t *testing.T) {
	http := protocol.TransportHTTP
	// A stream that ends before its response without any event id: after an event id
	// 2025-11-25 lets the server close it ("MAY close the connection (without terminating
	// the SSE stream) at any time"), which http.sse-priming judges (see the last rows).
	streamEnds := func(note probe.NoteCode, gaveUpFirst bool) reply {
		return func(w *wireScript, conn int, id string) int {
			w.head(conn, 200, "text/event-stream", "")
			if gaveUpFirst {
				w.note(conn, probe.NoteTimeout, "no answer within 10s")
			}
			w.note(conn, note, "stream closed after 1 event")
			return -1
		}
	}
	runCheckRows(t, "http.sse-framing", []checkRow{
		{name: "a stream with priming event and response passes",
			res:  scriptedSession(http, answer(probe.StepToolsList, sseReply(`{"jsonrpc":"2.0","id":ID,"result":{"tools":[]}}`))),
			want: StatusPass, msg: "1 event streams"},
		{name: "a malformed event fails",
			res: scriptedSession(http, answer(probe.StepPing, func(w *wireScript, conn int, id string) int {
				w.head(conn, 200, "text/event-stream", "")
				seq := w.sse(conn, `{"jsonrpc":"2.0","id":"mcpwatch-ping","result":{}}`, `a line without a colon: "garbage"`)
				w.note(conn, probe.NoteStreamEnded, "")
				return seq
			})),
			want: StatusFail, msg: `POST "ping" (id "mcpwatch-ping"): expected a well-formed event stream, got "a line without a colon: \"garbage\""`},
		{name: "a stream that ends without the response fails",
			res:  scriptedSession(http, answer(probe.StepPing, streamEnds(probe.NoteStreamEnded, false))),
			want: StatusFail, msg: `expected the stream to carry the response, got the stream ended without it ("stream closed after 1 event")`},
		{name: "a stream the transport saw end unanswered fails",
			res:  scriptedSession(http, answer(probe.StepPing, streamEnds(probe.NoteStreamNoAnswer, false))),
			want: StatusFail, msg: "got the stream ended without it"},
		{name: "a stream cut after the probe gave up passes",
			res:  scriptedSession(http, answer(probe.StepPing, streamEnds(probe.NoteStreamEnded, true))),
			want: StatusPass},
		{name: "a malformed event on a notification's stream fails",
			res: scriptedSession(http, func(p *sessionPlan) {
				p.notifyAnswer[probe.StepUnknownNotification] = func(w *wireScript, conn int) int {
					head := w.head(conn, 200, "text/event-stream", "")
					w.add(probe.Frame{Conn: conn, Dir: probe.In, Kind: probe.KindSSEEvent, Exchange: w.exchange[conn],
						SSE: &probe.SSEInfo{Retry: "", Malformed: `retry "soon" is not a number`}})
					return head
				}
			}),
			want: StatusFail, msg: `expected a well-formed event stream, got "retry \"soon\" is not a number"`},
		{name: "JSON answers only are a skip", res: scriptedSession(http), want: StatusSkip, msg: "no request with an event stream"},
		{name: "stdio is a skip", res: scriptedSession(protocol.TransportStdio), want: StatusSkip},
		{name: "a 2025-11-25 stream closed after a priming event is not this check's",
			res: scriptedSession(http, answer(probe.StepPing, func(w *wireScript, conn int, id string) int {
				w.head(conn, 200, "text/event-stream", "")
				w.sse(conn, "", "")
				w.note(conn, probe.NoteStreamEnded, "stream closed after 1 event")
				return -1
			})),
			want: StatusPass},
	})
}

// 2026-07-28 basic/transports/streamable-http: "If the server does not implement the requested
// RPC method, it MUST respond with 404 Not Found and a JSON-RPC error with code -32601". The
// -32601 itself is lifecycle.unknown-method's; its status is http.status'.
func TestHTTPStatusHoldsAnUnknownMethodTo404UnderTheStatelessRevision(t *testing.T) {
	h := protocol.TransportHTTP
	runCheckRows(t, "http.status", []checkRow{
		statelessRow("-32601 with 404 passes", h, StatusPass, "none redirected", func(p *statelessPlan) {
			p.unknown = asStatus(404, errorReply(-32601, "method not found"))
		}),
		statelessRow("-32601 with 200 fails", h, StatusFail, "expected HTTP 404 with error -32601 (2026-07-28), got HTTP 200", func(p *statelessPlan) {
			p.unknown = errorReply(-32601, "method not found")
		}),
	})
}
