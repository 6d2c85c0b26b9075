package checks

import (
	"testing"

	"github.com/mcpwatch/mcpwatch/probe"
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

func TestHTTPStatusIs200ForRequests(t *testing.T) {
	http := probe.TransportHTTP
	runCheckRows(t, "http.status", []checkRow{
		{name: "200 everywhere passes", res: scriptedSession(http), want: StatusPass, msg: "requests, each answered with HTTP 200"},
		{name: "event streams pass", res: scriptedSession(http, answer(probe.StepPing, sseReply(`{"jsonrpc":"2.0","id":ID,"result":{}}`))), want: StatusPass},
		{name: "a 500 fails with the status and body",
			res:  scriptedSession(http, answer(probe.StepToolsList, headReply(500, "text/plain", "internal error"))),
			want: StatusFail, msg: `POST "tools/list" (id 2): expected HTTP 200, got HTTP 500 and body "internal error"`},
		{name: "a 404 carrying -32601 fails",
			res:  scriptedSession(http, answer(probe.StepUnknownMethod, bodyReply(404, "application/json", `"error":{"code":-32601,"message":"nope"}`))),
			want: StatusFail, msg: `POST "mcpwatch/unknown-method" (id 6): expected HTTP 200, got HTTP 404`},
		{name: "a 202 to a request fails",
			res:  scriptedSession(http, answer(probe.StepPing, headReply(202, "", ""))),
			want: StatusFail, msg: `POST "ping" (id "mcpwatch-ping"): expected HTTP 200, got HTTP 202`},
		{name: "a 400 to the bogus initialize fails",
			res: scriptedSession(http, func(p *sessionPlan) {
				p.bogus = bodyReply(400, "application/json", `"error":{"code":-32602,"message":"bad"}`)
			}),
			want: StatusFail, msg: `POST "initialize" (id 1): expected HTTP 200, got HTTP 400`},
		{name: "requests that got no response are untested", res: scriptedSession(http, initFails), want: StatusUntested, msg: "no request"},
		{name: "stdio is a skip", res: scriptedSession(probe.TransportStdio), want: StatusSkip, msg: "http transport only"},
	})
}

func TestHTTPContentTypeIsJSONOrEventStream(t *testing.T) {
	http := probe.TransportHTTP
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
		{name: "an error status is http.status's",
			res:  scriptedSession(http, answer(probe.StepToolsList, headReply(500, "text/html", "<h1>oops</h1>"))),
			want: StatusPass},
		{name: "no 200 answer is untested", res: scriptedSession(http, initFails), want: StatusUntested},
		{name: "stdio is a skip", res: scriptedSession(probe.TransportStdio), want: StatusSkip},
	})
}

func TestNotificationAcceptedIs202WithoutBody(t *testing.T) {
	http := probe.TransportHTTP
	runCheckRows(t, "http.notification-accepted", []checkRow{
		{name: "202 with no body passes", res: scriptedSession(http), want: StatusPass, msg: "2 notifications"},
		{name: "200 for initialized fails",
			res:  scriptedSession(http, notifyHead(probe.StepInitialized, 200, "", "")),
			want: StatusFail, msg: `POST of notification "notifications/initialized": expected 202 Accepted with no body, got HTTP 200`},
		{name: "202 with a body fails",
			res:  scriptedSession(http, notifyHead(probe.StepInitialized, 202, "application/json", `{"ok":true}`)),
			want: StatusFail, msg: `got 202 with a body of 11 bytes and body {"ok":true}`},
		{name: "400 for initialized fails",
			res:  scriptedSession(http, notifyHead(probe.StepInitialized, 400, "text/plain", "session required")),
			want: StatusFail, msg: `got HTTP 400 and body "session required"`},
		{name: "400 for the unknown notification warns",
			res:  scriptedSession(http, notifyHead(probe.StepUnknownNotification, 400, "application/json", `{"jsonrpc":"2.0","error":{"code":-32601,"message":"unknown"}}`)),
			want: StatusWarn, msg: "expected 202 Accepted (an unknown notification is ignored), got HTTP 400"},
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
		{name: "stdio is a skip", res: scriptedSession(probe.TransportStdio), want: StatusSkip},
	})
}

func TestSSEFramingCarriesTheResponse(t *testing.T) {
	http := probe.TransportHTTP
	streamEnds := func(note probe.NoteCode, gaveUpFirst bool) reply {
		return func(w *wireScript, conn int, id string) int {
			w.head(conn, 200, "text/event-stream", "")
			w.sse(conn, "", "")
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
		{name: "stdio is a skip", res: scriptedSession(probe.TransportStdio), want: StatusSkip},
	})
}
