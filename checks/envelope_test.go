package checks

import (
	"testing"

	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// initFails is a session whose initialize gets no answer on either connection: the probe
// stops there, so almost nothing is left to judge.
func initFails(p *sessionPlan) {
	p.initialize = noReply()
	p.bogus = noReply()
}

func answer(step string, r reply) func(p *sessionPlan) {
	return func(p *sessionPlan) { p.answers[step] = r }
}

func afterNotifications(fn func(w *wireScript)) func(p *sessionPlan) {
	return func(p *sessionPlan) { p.afterNotifications = fn }
}

func TestParseJudgesEveryHTTPBodyAndEventData(t *testing.T) {
	http, stdio := protocol.TransportHTTP, protocol.TransportStdio
	runCheckRows(t, "jsonrpc.parse", []checkRow{
		{name: "json bodies pass", res: scriptedSession(http), want: StatusPass, msg: "each one JSON object"},
		{name: "event streams with a priming event pass",
			res:  scriptedSession(http, answer(probe.StepToolsList, sseReply(`{"jsonrpc":"2.0","id":ID,"result":{"tools":[]}}`))),
			want: StatusPass},
		{name: "a body that is not JSON fails",
			res:  scriptedSession(http, answer(probe.StepPing, jsonReply(`{"jsonrpc":"2.0","id":ID,"result":{}`))),
			want: StatusFail, msg: `HTTP body: expected one JSON object, got text that is not JSON`},
		{name: "a body in invalid UTF-8 fails",
			res:  scriptedSession(http, answer(probe.StepPing, jsonReply("{\"jsonrpc\":\"2.0\",\"id\":ID,\"result\":{\"x\":\"\xff\"}}"))),
			want: StatusFail, msg: "got invalid UTF-8"},
		{name: "event data that is not JSON fails",
			res:  scriptedSession(http, answer(probe.StepPing, sseReply(`event: ping`))),
			want: StatusFail, msg: `SSE event data: expected one JSON object`},
		{name: "a JSON array fails",
			res:  scriptedSession(http, answer(probe.StepPing, jsonReply(`[{"jsonrpc":"2.0","id":ID,"result":{}}]`))),
			want: StatusFail, msg: "got a JSON array"},
		{name: "a JSON string fails",
			res:  scriptedSession(http, answer(probe.StepPing, jsonReply(`"pong"`))),
			want: StatusFail, msg: `got a JSON string "pong"`},
		{name: "a batch under 2025-03-26 warns",
			res: scriptedSession(http,
				func(p *sessionPlan) {
					p.initResult = `{"protocolVersion":"2025-03-26","capabilities":{},"serverInfo":{"name":"f","version":"1"}}`
				},
				answer(probe.StepPing, jsonReply(`[{"jsonrpc":"2.0","id":ID,"result":{}}]`))),
			want: StatusWarn, msg: "a JSON-RPC batch"},
		{name: "stdio lines are stdout-purity's", res: scriptedSession(stdio), want: StatusSkip, msg: "stdio.stdout-purity"},
		{name: "no message to judge", res: scriptedSession(http, initFails), want: StatusUntested, msg: "no message"},
	})
}

// oauthBody answers a POST with status and a JSON body that is not the probe's answer.
func oauthBody(status int, body string) reply {
	return func(w *wireScript, conn int, _ string) int {
		w.inBody(conn, status, "application/json", body)
		return -1
	}
}

// oauthRefusal answers as an OAuth resource server refusing a request without a valid token.
func oauthRefusal(status int) reply {
	return oauthBody(status, `{"error":"invalid_token","error_description":"Missing Authorization header"}`)
}

func TestVersionRequiresTheString20(t *testing.T) {
	http, stdio := protocol.TransportHTTP, protocol.TransportStdio
	runCheckRows(t, "jsonrpc.version", []checkRow{
		{name: "2.0 everywhere passes", res: scriptedSession(stdio), want: StatusPass, msg: `"jsonrpc": "2.0"`},
		{name: "a missing member fails",
			res:  scriptedSession(http, answer(probe.StepPing, jsonReply(`{"id":ID,"result":{}}`))),
			want: StatusFail, msg: "got no jsonrpc member"},
		{name: "1.0 fails",
			res:  scriptedSession(stdio, answer(probe.StepPing, jsonReply(`{"jsonrpc":"1.0","id":ID,"result":{}}`))),
			want: StatusFail, msg: `got "jsonrpc": "1.0"`},
		{name: "the number 2.0 fails",
			res:  scriptedSession(stdio, answer(probe.StepPing, jsonReply(`{"jsonrpc":2.0,"id":ID,"result":{}}`))),
			want: StatusFail, msg: `got "jsonrpc": 2.0`},
		{name: "an escaped 2.0 is still 2.0",
			res:  scriptedSession(stdio, answer(probe.StepPing, jsonReply(`{"jsonrpc":"\u0032.0","id":ID,"result":{}}`))),
			want: StatusPass},
		// RFC 6750 §3 puts the error of a refused bearer token in WWW-Authenticate and leaves
		// the body to the server; the TypeScript SDK's servers answer {"error": "invalid_token"}.
		{name: "an OAuth error body of a 401 is no JSON-RPC message to judge",
			res:  scriptedSession(http, answer(probe.StepPing, oauthRefusal(401))),
			want: StatusPass},
		{name: "an OAuth error body of a 403 is no JSON-RPC message to judge",
			res:  scriptedSession(http, answer(probe.StepPing, oauthRefusal(403))),
			want: StatusPass},
		{name: "a 401 body that claims to be JSON-RPC is judged",
			res:  scriptedSession(http, answer(probe.StepPing, oauthBody(401, `{"jsonrpc":"1.0","id":null,"error":{"code":-32001,"message":"unauthorized"}}`))),
			want: StatusFail, msg: `got "jsonrpc": "1.0"`},
		{name: "a 400 body that is no JSON-RPC message fails",
			res:  scriptedSession(http, answer(probe.StepPing, oauthBody(400, `{"error":"bad_request"}`))),
			want: StatusFail, msg: "got no jsonrpc member"},
		{name: "a JSON log line on stdout is left to stdout-purity",
			res: scriptedSession(stdio, afterNotifications(func(w *wireScript) {
				w.in(probe.ConnMain, `{"level":"info","msg":"listening"}`)
			})),
			want: StatusPass},
		{name: "no message to judge", res: scriptedSession(stdio, initFails), want: StatusUntested},
	})
}

func TestMessageShapeRequiresRequestNotificationOrResponse(t *testing.T) {
	stdio := protocol.TransportStdio
	serverSends := func(raw string) *probe.Result {
		return scriptedSession(stdio, afterNotifications(func(w *wireScript) { w.in(probe.ConnMain, raw) }))
	}
	runCheckRows(t, "jsonrpc.message-shape", []checkRow{
		{name: "well-formed messages pass", res: scriptedSession(stdio), want: StatusPass, msg: "well-formed"},
		{name: "result and error together fail",
			res:  scriptedSession(stdio, answer(probe.StepPing, jsonReply(`{"jsonrpc":"2.0","id":ID,"result":{},"error":null}`))),
			want: StatusFail, msg: "got both result and error"},
		{name: "neither result nor error fails",
			res:  scriptedSession(stdio, answer(probe.StepPing, jsonReply(`{"jsonrpc":"2.0","id":ID}`))),
			want: StatusFail, msg: "got neither method, result nor error"},
		{name: "a numeric method fails", res: serverSends(`{"jsonrpc":"2.0","method":5}`),
			want: StatusFail, msg: "got a method that is a JSON number"},
		{name: "method with result fails", res: serverSends(`{"jsonrpc":"2.0","id":9,"method":"ping","result":{}}`),
			want: StatusFail, msg: "got both method and result"},
		{name: "method with error fails", res: serverSends(`{"jsonrpc":"2.0","method":"x","error":{"code":1,"message":"m"}}`),
			want: StatusFail, msg: "got both method and error"},
		{name: "a request id that is an object fails", res: serverSends(`{"jsonrpc":"2.0","id":{"n":1},"method":"sampling/createMessage"}`),
			want: StatusFail, msg: "a request id that is a JSON object"},
		{name: "a fractional request id fails", res: serverSends(`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`),
			want: StatusFail, msg: "a request id that is not an integer"},
		{name: "string params fail", res: serverSends(`{"jsonrpc":"2.0","method":"notifications/message","params":"hello"}`),
			want: StatusFail, msg: "params that are a JSON string"},
		{name: "a server request and notification pass",
			res:  serverSends(`{"jsonrpc":"2.0","id":"s1","method":"ping"}`),
			want: StatusPass},
		{name: "no message to judge", res: scriptedSession(stdio, initFails), want: StatusUntested},
	})
}

func TestIDEchoIsStrictInValueAndType(t *testing.T) {
	http, stdio := protocol.TransportHTTP, protocol.TransportStdio
	runCheckRows(t, "jsonrpc.id-echo", []checkRow{
		{name: "exact echoes pass", res: scriptedSession(stdio), want: StatusPass, msg: "echoing the id"},
		{name: "exact echoes over http pass", res: scriptedSession(http), want: StatusPass},
		{name: "a string id for a number fails",
			res:  scriptedSession(stdio, answer(probe.StepToolsList, jsonReply(`{"jsonrpc":"2.0","id":"ID","result":{"tools":[]}}`))),
			want: StatusFail, msg: `expected id 2 (a JSON number), got "2" (a JSON string)`},
		{name: "a number for the string ping id fails",
			res: scriptedSession(stdio, answer(probe.StepPing, func(w *wireScript, conn int, id string) int {
				return w.in(conn, `{"jsonrpc":"2.0","id":7,"result":{}}`)
			})),
			want: StatusFail, msg: "never sent"},
		{name: "an id never sent fails",
			res: scriptedSession(stdio, afterNotifications(func(w *wireScript) {
				w.in(probe.ConnMain, `{"jsonrpc":"2.0","id":99,"result":{}}`)
			})),
			want: StatusFail, msg: `a response to id 99, which was never sent`},
		{name: "two responses to one id fail",
			res: scriptedSession(stdio, answer(probe.StepPing, func(w *wireScript, conn int, id string) int {
				seq := w.in(conn, `{"jsonrpc":"2.0","id":`+id+`,"result":{}}`)
				w.in(conn, `{"jsonrpc":"2.0","id":`+id+`,"result":{}}`)
				return seq
			})),
			want: StatusFail, msg: "a second response to id"},
		{name: "a result without an id fails",
			res:  scriptedSession(stdio, answer(probe.StepPing, jsonReply(`{"jsonrpc":"2.0","result":{}}`))),
			want: StatusFail, msg: "a result without an id"},
		{name: "an id on the other connection was never sent on this one",
			res: scriptedSession(stdio, afterNotifications(func(w *wireScript) {
				w.in(probe.ConnMain, `{"jsonrpc":"2.0","id":"mcpwatch-ping","result":{}}`)
			})),
			want: StatusFail, msg: "never sent"},
		{name: "1.0 is the same id as 1",
			res:  scriptedSession(stdio, answer(probe.StepToolsList, jsonReply(`{"jsonrpc":"2.0","id":2.0,"result":{"tools":[]}}`))),
			want: StatusPass},
		{name: "a null id is left to null-id",
			res:  scriptedSession(stdio, answer(probe.StepUnknownMethod, jsonReply(`{"jsonrpc":"2.0","id":null,"error":{"code":-32601,"message":"nope"}}`))),
			want: StatusPass},
		{name: "no response to judge", res: scriptedSession(stdio, initFails), want: StatusUntested},
	})
}

func TestErrorShapeRequiresIntegerCodeAndStringMessage(t *testing.T) {
	stdio := protocol.TransportStdio
	unknownGets := func(raw string) *probe.Result {
		return scriptedSession(stdio, answer(probe.StepUnknownMethod, jsonReply(raw)))
	}
	runCheckRows(t, "jsonrpc.error-shape", []checkRow{
		{name: "well-formed errors pass", res: scriptedSession(stdio), want: StatusPass, msg: "error responses"},
		{name: "an error string fails", res: unknownGets(`{"jsonrpc":"2.0","id":ID,"error":"Method not found"}`),
			want: StatusFail, msg: "expected error to be an object, got a JSON string"},
		{name: "a string code fails", res: unknownGets(`{"jsonrpc":"2.0","id":ID,"error":{"code":"-32601","message":"m"}}`),
			want: StatusFail, msg: `expected an integer error code, got a JSON string "-32601"`},
		{name: "a fractional code fails", res: unknownGets(`{"jsonrpc":"2.0","id":ID,"error":{"code":-32601.5,"message":"m"}}`),
			want: StatusFail, msg: "expected an integer error code, got a JSON number"},
		{name: "a missing code fails", res: unknownGets(`{"jsonrpc":"2.0","id":ID,"error":{"message":"m"}}`),
			want: StatusFail, msg: "expected an integer error code, got none"},
		{name: "a missing message fails", res: unknownGets(`{"jsonrpc":"2.0","id":ID,"error":{"code":-32601}}`),
			want: StatusFail, msg: "expected a string error message, got none"},
		{name: "a numeric message fails", res: unknownGets(`{"jsonrpc":"2.0","id":ID,"error":{"code":-32601,"message":404}}`),
			want: StatusFail, msg: "expected a string error message, got a JSON number"},
		{name: "data of any type passes", res: unknownGets(`{"jsonrpc":"2.0","id":ID,"error":{"code":-32601,"message":"m","data":[1]}}`),
			want: StatusPass},
		{name: "no error to judge",
			res:  scriptedSession(stdio, func(p *sessionPlan) { p.stopAfterInitialize = true }),
			want: StatusUntested, msg: "no error response"},
	})
}

func TestNullIDWarnsOutsideParseAndInvalidRequestErrors(t *testing.T) {
	stdio := protocol.TransportStdio
	runCheckRows(t, "jsonrpc.null-id", []checkRow{
		{name: "no null id passes", res: scriptedSession(stdio), want: StatusPass},
		{name: "null on a parse error passes",
			res: scriptedSession(stdio, afterNotifications(func(w *wireScript) {
				w.in(probe.ConnMain, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`)
			})),
			want: StatusPass, msg: "only on parse or invalid-request errors"},
		{name: "no id on an invalid-request error passes",
			res: scriptedSession(stdio, afterNotifications(func(w *wireScript) {
				w.in(probe.ConnMain, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"}}`)
			})),
			want: StatusPass},
		{name: "null on method-not-found warns",
			res:  scriptedSession(stdio, answer(probe.StepUnknownMethod, jsonReply(`{"jsonrpc":"2.0","id":null,"error":{"code":-32601,"message":"Method not found"}}`))),
			want: StatusWarn, msg: `got "id": null on JSON-RPC error -32601`},
		{name: "no id on method-not-found warns",
			res:  scriptedSession(stdio, answer(probe.StepUnknownMethod, jsonReply(`{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"}}`))),
			want: StatusWarn, msg: "got no id on JSON-RPC error -32601"},
		{name: "null on a result warns",
			res:  scriptedSession(stdio, answer(probe.StepPing, jsonReply(`{"jsonrpc":"2.0","id":null,"result":{}}`))),
			want: StatusWarn, msg: `got "id": null on a result`},
		{name: "null on a server request warns",
			res: scriptedSession(stdio, afterNotifications(func(w *wireScript) {
				w.in(probe.ConnMain, `{"jsonrpc":"2.0","id":null,"method":"roots/list"}`)
			})),
			want: StatusWarn, msg: `got "id": null on a "roots/list" request`},
		{name: "an id-less error in the body of an HTTP error status passes",
			res: scriptedSession(protocol.TransportHTTP, func(p *sessionPlan) {
				p.notifyAnswer[probe.StepUnknownNotification] = func(w *wireScript, conn int) int {
					w.inBody(conn, 400, "application/json", `{"jsonrpc":"2.0","error":{"code":-32601,"message":"unknown notification"}}`)
					return w.exchangeHead(conn)
				}
			}),
			want: StatusPass},
		{name: "an id-less error in a 200 body warns",
			res:  scriptedSession(protocol.TransportHTTP, answer(probe.StepUnknownMethod, jsonReply(`{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"}}`))),
			want: StatusWarn, msg: "got no id"},
		{name: "no message to judge", res: scriptedSession(stdio, initFails), want: StatusUntested},
	})
}

func TestNotificationSilenceOnStdio(t *testing.T) {
	stdio := protocol.TransportStdio
	serverSends := func(raws ...string) *probe.Result {
		return scriptedSession(stdio, afterNotifications(func(w *wireScript) {
			for _, raw := range raws {
				w.in(probe.ConnMain, raw)
			}
		}))
	}
	runCheckRows(t, "jsonrpc.notification-silence", []checkRow{
		{name: "silence passes", res: scriptedSession(stdio), want: StatusPass},
		{name: "an error with a null id fails",
			res:  serverSends(`{"jsonrpc":"2.0","id":null,"error":{"code":-32601,"message":"Method not found"}}`),
			want: StatusFail, msg: "expected no answer to a notification, got a response without a request id"},
		{name: "a result without an id fails",
			res:  serverSends(`{"jsonrpc":"2.0","result":{}}`),
			want: StatusFail, msg: "got a response without a request id"},
		{name: "a response to an id no request had is left to jsonrpc.id-echo",
			res:  serverSends(`{"jsonrpc":"2.0","id":0,"result":{}}`),
			want: StatusPass},
		{name: "a null-id error while a request still waits for its answer answers that request",
			res: scriptedSession(stdio, afterNotifications(func(w *wireScript) {
				w.out(probe.ConnMain, `{"jsonrpc":"2.0","id":99,"method":"mcpwatch/unknown-method","params":{}}`)
				w.in(probe.ConnMain, `{"jsonrpc":"2.0","id":null,"error":{"code":-32601,"message":"Method not found"}}`)
			})),
			want: StatusPass},
		{name: "a null-id error after the waiting request got its own answer fails",
			res: scriptedSession(stdio, afterNotifications(func(w *wireScript) {
				w.out(probe.ConnMain, `{"jsonrpc":"2.0","id":99,"method":"mcpwatch/unknown-method","params":{}}`)
				w.in(probe.ConnMain, `{"jsonrpc":"2.0","id":99,"error":{"code":-32601,"message":"Method not found"}}`)
				w.in(probe.ConnMain, `{"jsonrpc":"2.0","id":null,"error":{"code":-32601,"message":"Method not found"}}`)
			})),
			want: StatusFail, msg: "while every request had its own answer"},
		{name: "a server notification is no answer",
			res:  serverSends(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}`),
			want: StatusPass},
		{name: "a parse error answering a malformed probe message is due",
			res: scriptedSession(stdio, afterNotifications(func(w *wireScript) {
				w.out(probe.ConnMain, `{"jsonrpc":"2.0",`)
				w.in(probe.ConnMain, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`)
			})),
			want: StatusPass},
		{name: "no notification sent", res: scriptedSession(stdio, initFails), want: StatusUntested, msg: "no notification"},
	})
}

func TestNotificationSilenceOnHTTP(t *testing.T) {
	http := protocol.TransportHTTP
	notifyAnswer := func(step string, fn func(w *wireScript, conn int) int) func(p *sessionPlan) {
		return func(p *sessionPlan) { p.notifyAnswer[step] = fn }
	}
	runCheckRows(t, "jsonrpc.notification-silence", []checkRow{
		{name: "202 with no body passes", res: scriptedSession(http), want: StatusPass},
		{name: "a JSON answer to initialized fails",
			res: scriptedSession(http, notifyAnswer(probe.StepInitialized, func(w *wireScript, conn int) int {
				return w.in(conn, `{"jsonrpc":"2.0","result":{}}`)
			})),
			want: StatusFail, msg: `expected no JSON-RPC answer to notification "notifications/initialized", got HTTP 200`},
		{name: "a response in a 202 body fails",
			res: scriptedSession(http, notifyAnswer(probe.StepUnknownNotification, func(w *wireScript, conn int) int {
				return w.head(conn, 202, "application/json", `{"jsonrpc":"2.0","id":null,"error":{"code":-32601,"message":"nope"}}`)
			})),
			want: StatusFail, msg: "got HTTP 202"},
		{name: "a response on an event stream fails",
			res: scriptedSession(http, notifyAnswer(probe.StepUnknownNotification, func(w *wireScript, conn int) int {
				head := w.head(conn, 200, "text/event-stream", "")
				w.sse(conn, `{"jsonrpc":"2.0","id":null,"error":{"code":-32601,"message":"nope"}}`, "")
				w.note(conn, probe.NoteStreamEnded, "")
				return head
			})),
			want: StatusFail},
		{name: "a rejecting 400 with an id-less error is allowed",
			res: scriptedSession(http, notifyAnswer(probe.StepUnknownNotification, func(w *wireScript, conn int) int {
				w.inBody(conn, 400, "application/json", `{"jsonrpc":"2.0","error":{"code":-32601,"message":"unknown notification"}}`)
				return w.exchangeHead(conn)
			})),
			want: StatusPass},
		{name: "a rejecting 400 that invents an id fails",
			res: scriptedSession(http, notifyAnswer(probe.StepUnknownNotification, func(w *wireScript, conn int) int {
				w.inBody(conn, 400, "application/json", `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"unknown notification"}}`)
				return w.exchangeHead(conn)
			})),
			want: StatusFail, msg: "got HTTP 400"},
		{name: "no notification sent", res: scriptedSession(http, initFails), want: StatusUntested},
	})
}
