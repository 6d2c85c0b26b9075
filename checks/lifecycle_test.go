package checks

import (
	"strings"
	"testing"

	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

func initResult(raw string) func(p *sessionPlan) {
	return func(p *sessionPlan) { p.initResult = raw }
}

// withCapabilities is a session whose server declares caps (a JSON object).
func withCapabilities(caps string) func(p *sessionPlan) {
	return initResult(`{"protocolVersion":"2025-11-25","capabilities":` + caps + `,"serverInfo":{"name":"fixture","version":"1.0.0"}}`)
}

// exitsBeforeAnswering is a stdio server that dies on initialize.
func exitsBeforeAnswering(p *sessionPlan) {
	p.initialize = func(w *wireScript, conn int, id string) int {
		w.note(conn, probe.NoteStdoutClosed, "")
		w.note(conn, probe.NoteProcessExit, "exit status 1")
		return -1
	}
	p.processes[0] = probe.ProcessInfo{Conn: probe.ConnMain, PID: 4242, Started: true, Exited: true,
		ExitCode: 1, EndedBy: "exit", Stderr: []byte("starting\nconfig: missing API_KEY\npanic: no key\n\ngoroutine 1 [running]:\n")}
}

// spawnFailure is a stdio result whose command could not be started.
func spawnFailure() *probe.Result {
	w := newWireScript(protocol.TransportStdio)
	w.res.Err = "cannot start server command: exec: \"mcp-nope\": executable file not found in $PATH"
	w.res.Processes = []probe.ProcessInfo{
		{Conn: probe.ConnMain, Error: `exec: "mcp-nope": executable file not found in $PATH`},
		{Conn: probe.ConnNegotiation, Error: `exec: "mcp-nope": executable file not found in $PATH`},
	}
	return w.res
}

func TestInitializeNeedsASuccessfulResult(t *testing.T) {
	stdio, http := protocol.TransportStdio, protocol.TransportHTTP
	runCheckRows(t, "lifecycle.initialize", []checkRow{
		{name: "a result passes", res: scriptedSession(stdio), want: StatusPass, msg: "answered in"},
		{name: "an error fails with its code",
			res:  scriptedSession(stdio, func(p *sessionPlan) { p.initialize = errorReply(-32602, "Unsupported protocol version") }),
			want: StatusFail, msg: `expected an initialize result, got JSON-RPC error -32602 "Unsupported protocol version"`},
		{name: "silence fails",
			res:  scriptedSession(stdio, func(p *sessionPlan) { p.initialize = noReply() }),
			want: StatusFail, msg: "got no answer within the timeout"},
		{name: "an HTTP error status fails with the status",
			res: scriptedSession(http, func(p *sessionPlan) {
				p.initialize = func(w *wireScript, conn int, id string) int {
					w.head(conn, 503, "text/plain", "upstream unavailable")
					return -1
				}
			}),
			want: StatusFail, msg: `got HTTP status 503 of type "text/plain" with body "upstream unavailable"`},
		{name: "a 401 says the server needs credentials and how to pass them",
			res: scriptedSession(http, func(p *sessionPlan) {
				p.initialize = func(w *wireScript, conn int, id string) int {
					w.head(conn, 401, "text/plain", "unauthorized")
					return -1
				}
			}),
			want: StatusFail, msg: `got HTTP status 401 of type "text/plain" with body "unauthorized": the server needs credentials; pass them with --bearer-token TOKEN`},
		{name: "a 403 names both credentials and the Host names a server may limit itself to",
			res: scriptedSession(http, func(p *sessionPlan) {
				p.initialize = func(w *wireScript, conn int, id string) int {
					w.head(conn, 403, "text/plain", "Access is only allowed at localhost:8931")
					return -1
				}
			}),
			want: StatusFail, msg: `the server refused the request: it needs credentials (pass them with --bearer-token TOKEN (or --bearer-token-env VAR, or --header 'Name: value')), or it serves only some Host names (try the URL with the host name it allows, such as localhost)`},
		{name: "a process that exits fails with the exit status",
			res:  scriptedSession(stdio, exitsBeforeAnswering),
			want: StatusFail, msg: `exit status 1; stderr ends "config: missing API_KEY | panic: no key | goroutine 1 [running]:"`},
		{name: "never sent is untested", res: spawnFailure(), want: StatusUntested, msg: "initialize was never sent: \"cannot start"},
	})
}

func TestInitializeResultMatchesTheRevision(t *testing.T) {
	stdio := protocol.TransportStdio
	bad := func(raw string) *probe.Result { return scriptedSession(stdio, initResult(raw)) }
	runCheckRows(t, "lifecycle.initialize-result", []checkRow{
		{name: "a full result passes", res: scriptedSession(stdio), want: StatusPass, msg: "a valid InitializeResult of 2025-11-25"},
		{name: "instructions may be given",
			res:  bad(`{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"f","version":"1"},"instructions":"use echo"}`),
			want: StatusPass},
		{name: "a null result fails", res: bad(`null`), want: StatusFail, msg: "got a JSON null"},
		{name: "a missing protocolVersion fails",
			res:  bad(`{"capabilities":{},"serverInfo":{"name":"f","version":"1"}}`),
			want: StatusFail, msg: "expected protocolVersion (a string), got none"},
		{name: "a numeric protocolVersion fails",
			res:  bad(`{"protocolVersion":20251125,"capabilities":{},"serverInfo":{"name":"f","version":"1"}}`),
			want: StatusFail, msg: `expected protocolVersion to be a string, got a JSON number 20251125`},
		{name: "missing capabilities fail",
			res:  bad(`{"protocolVersion":"2025-11-25","serverInfo":{"name":"f","version":"1"}}`),
			want: StatusFail, msg: "expected capabilities (an object), got none"},
		{name: "capabilities as an array fail",
			res:  bad(`{"protocolVersion":"2025-11-25","capabilities":["tools"],"serverInfo":{"name":"f","version":"1"}}`),
			want: StatusFail, msg: "expected capabilities to be an object, got a JSON array"},
		{name: "a missing serverInfo fails",
			res:  bad(`{"protocolVersion":"2025-11-25","capabilities":{}}`),
			want: StatusFail, msg: "expected serverInfo (an object), got none"},
		{name: "a missing server name fails",
			res:  bad(`{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"version":"1"}}`),
			want: StatusFail, msg: "expected serverInfo.name (a string), got none"},
		{name: "a numeric server version fails",
			res:  bad(`{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"f","version":1}}`),
			want: StatusFail, msg: "expected serverInfo.version to be a string, got a JSON number"},
		{name: "numeric instructions fail",
			res:  bad(`{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"f","version":"1"},"instructions":7}`),
			want: StatusFail, msg: "expected instructions to be a string"},
		{name: "a capability of the wrong type fails by the schema",
			res:  bad(`{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":"yes"}},"serverInfo":{"name":"f","version":"1"}}`),
			want: StatusFail, msg: "got one that does not match"},
		{name: "initialize failed is untested",
			res:  scriptedSession(stdio, func(p *sessionPlan) { p.initialize = errorReply(-32603, "boom") }),
			want: StatusUntested, msg: "initialize did not succeed (JSON-RPC error -32603"},
	})
}

func TestVersionNegotiationAnswersKnownRevisions(t *testing.T) {
	stdio, http := protocol.TransportStdio, protocol.TransportHTTP
	bogus := func(r reply) func(p *sessionPlan) { return func(p *sessionPlan) { p.bogus = r } }
	bogusResult := func(version string) reply {
		return resultReply(`{"protocolVersion":"` + version + `","capabilities":{},"serverInfo":{"name":"f","version":"1"}}`)
	}
	runCheckRows(t, "lifecycle.version-negotiation", []checkRow{
		{name: "known revisions pass", res: scriptedSession(stdio), want: StatusPass, msg: "offered 1900-01-01, got 2025-11-25"},
		{name: "an older supported revision passes", res: scriptedSession(stdio, bogus(bogusResult("2025-06-18"))), want: StatusPass},
		{name: "an unknown main answer fails",
			res:  scriptedSession(stdio, withVersion("2099-01-01")),
			want: StatusFail, msg: `offered 2025-11-25, expected a known revision (2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25) in answer, got "2099-01-01"`},
		{name: "a numeric main answer fails",
			res:  scriptedSession(stdio, initResult(`{"protocolVersion":2025,"capabilities":{},"serverInfo":{"name":"f","version":"1"}}`)),
			want: StatusFail, msg: `got protocolVersion 2025`},
		{name: "an error to the bogus revision fails",
			res:  scriptedSession(stdio, bogus(errorReply(-32602, "Unsupported protocol version"))),
			want: StatusFail, msg: `offered 1900-01-01, expected a result naming a revision the server supports, got JSON-RPC error -32602`},
		{name: "an HTTP 400 error to the bogus revision fails with both",
			res: scriptedSession(http, bogus(func(w *wireScript, conn int, id string) int {
				return w.inBody(conn, 400, "application/json", `{"jsonrpc":"2.0","id":`+id+`,"error":{"code":-32602,"message":"bad version"}}`)
			})),
			want: StatusFail, msg: `JSON-RPC error -32602 "bad version" (HTTP status 400)`},
		{name: "an echo of the bogus revision fails", res: scriptedSession(stdio, bogus(bogusResult("1900-01-01"))),
			want: StatusFail, msg: "got the bogus revision echoed"},
		{name: "an unknown answer to the bogus revision fails", res: scriptedSession(stdio, bogus(bogusResult("2030-01-01"))),
			want: StatusFail, msg: `got "2030-01-01"`},
		{name: "a crash on the bogus revision fails",
			res: scriptedSession(stdio, bogus(func(w *wireScript, conn int, id string) int {
				w.note(conn, probe.NoteProcessExit, "exit status 2")
				return -1
			}), func(p *sessionPlan) {
				p.processes[1] = probe.ProcessInfo{Conn: probe.ConnNegotiation, PID: 7, Started: true, Exited: true, ExitCode: 2, EndedBy: "exit",
					Stderr: []byte("unsupported protocol version 1900-01-01\n")}
			}),
			want: StatusFail, msg: `ended by itself (exit status 2; stderr ends "unsupported protocol version 1900-01-01")`},
		{name: "initialize failed is untested", res: scriptedSession(stdio, initFails), want: StatusUntested, msg: "initialize did not succeed"},
		{name: "no negotiation connection is untested",
			res:  scriptedSession(stdio, bogus(nil)),
			want: StatusUntested, msg: "the negotiation connection sent no initialize"},
	})
}

func withVersion(v string) func(p *sessionPlan) {
	return initResult(`{"protocolVersion":"` + v + `","capabilities":{},"serverInfo":{"name":"f","version":"1"}}`)
}

func TestPingReturnsAnEmptyResult(t *testing.T) {
	stdio := protocol.TransportStdio
	ping := func(r reply) *probe.Result { return scriptedSession(stdio, answer(probe.StepPing, r)) }
	runCheckRows(t, "lifecycle.ping", []checkRow{
		{name: "an empty result passes", res: scriptedSession(stdio), want: StatusPass, msg: "empty result in"},
		{name: "_meta alone is still empty", res: ping(resultReply(`{"_meta":{"k":1}}`)), want: StatusPass},
		{name: "method not found fails", res: ping(errorReply(-32601, "Method not found")),
			want: StatusFail, msg: `expected an empty result {}, got JSON-RPC error -32601 "Method not found"`},
		{name: "silence fails", res: ping(noReply()), want: StatusFail, msg: "got no answer within the timeout"},
		{name: "a null result fails", res: ping(resultReply(`null`)), want: StatusFail, msg: "got a JSON null"},
		{name: "an HTML page fails with its type and body",
			res: scriptedSession(protocol.TransportHTTP, answer(probe.StepPing, func(w *wireScript, conn int, id string) int {
				return w.inBody(conn, 200, "text/html", "<p>pong</p>")
			})),
			want: StatusFail, msg: `got no answer: the HTTP 200 response carried no JSON-RPC response of type "text/html" with body "<p>pong</p>"`},
		{name: "an error status with a JSON-RPC error names both",
			res: scriptedSession(protocol.TransportHTTP, answer(probe.StepPing, func(w *wireScript, conn int, id string) int {
				return w.inBody(conn, 500, "application/json", `{"jsonrpc":"2.0","id":`+id+`,"error":{"code":-32603,"message":"crashed"}}`)
			})),
			want: StatusFail, msg: `got JSON-RPC error -32603 "crashed" (HTTP status 500)`},
		{name: "a string result fails", res: ping(resultReply(`"pong"`)), want: StatusFail, msg: "got a JSON string"},
		{name: "a result with members fails", res: ping(resultReply(`{"pong":true}`)),
			want: StatusFail, msg: `got {"pong":true}`},
		{name: "a result with only _meta passes", res: ping(resultReply(`{"_meta":{"x":1}}`)),
			want: StatusPass, msg: "empty result in"},
		{name: "not sent after a failed initialize is untested", res: scriptedSession(stdio, initFails),
			want: StatusUntested, msg: "ping was not sent: initialize did not succeed"},
		{name: "not sent after the probe stopped is untested",
			res:  scriptedSession(stdio, func(p *sessionPlan) { p.stopAfterInitialize = true }),
			want: StatusUntested, msg: "the probe stopped early"},
	})
}

func TestUnknownMethodGetsMethodNotFound(t *testing.T) {
	stdio, http := protocol.TransportStdio, protocol.TransportHTTP
	unknown := func(r reply) *probe.Result { return scriptedSession(stdio, answer(probe.StepUnknownMethod, r)) }
	runCheckRows(t, "lifecycle.unknown-method", []checkRow{
		{name: "-32601 passes", res: scriptedSession(stdio), want: StatusPass},
		{name: "-32601 on an HTTP 404 passes here (http.status judges the 404)",
			res: scriptedSession(http, answer(probe.StepUnknownMethod, func(w *wireScript, conn int, id string) int {
				return w.inBody(conn, 404, "application/json", `{"jsonrpc":"2.0","id":`+id+`,"error":{"code":-32601,"message":"nope"}}`)
			})),
			want: StatusPass},
		{name: "another code on an HTTP 404 fails with both",
			res: scriptedSession(http, answer(probe.StepUnknownMethod, func(w *wireScript, conn int, id string) int {
				return w.inBody(conn, 404, "application/json", `{"jsonrpc":"2.0","id":`+id+`,"error":{"code":-32600,"message":"no"}}`)
			})),
			want: StatusFail, msg: `expected error -32601, got JSON-RPC error -32600 "no" (HTTP status 404)`},
		{name: "another code fails", res: unknown(errorReply(-32600, "Invalid Request")),
			want: StatusFail, msg: `expected error -32601, got JSON-RPC error -32600 "Invalid Request"`},
		{name: "a string code fails", res: unknown(jsonReply(`{"jsonrpc":"2.0","id":ID,"error":{"code":"-32601","message":"x"}}`)),
			want: StatusFail, msg: `got JSON-RPC error with code "-32601" "x"`},
		{name: "a result fails", res: unknown(resultReply(`{}`)), want: StatusFail, msg: `got a result {}`},
		{name: "silence fails", res: unknown(noReply()), want: StatusFail, msg: "no answer within the timeout"},
		{name: "not sent is untested", res: scriptedSession(stdio, initFails), want: StatusUntested},
	})
}

func TestCapabilitiesMatchWhatTheServerServes(t *testing.T) {
	stdio := protocol.TransportStdio
	toolsList := `{"tools":[]}`
	runCheckRows(t, "lifecycle.capabilities", []checkRow{
		{name: "declared tools that work and undeclared lists that fail pass", res: scriptedSession(stdio), want: StatusPass,
			msg: "the 4 list methods"},
		{name: "a declared list that fails fails",
			res:  scriptedSession(stdio, withCapabilities(`{"tools":{},"prompts":{}}`)),
			want: StatusFail, msg: `declares prompts, expected prompts/list to work, got JSON-RPC error -32601 "Method not found"`},
		{name: "a declared list whose event stream ends unanswered fails",
			res: scriptedSession(protocol.TransportHTTP, answer(probe.StepToolsList, func(w *wireScript, conn int, id string) int {
				w.head(conn, 200, "text/event-stream", "")
				w.note(conn, probe.NoteStreamEnded, "the server ended the stream after 0 events")
				return -1
			})),
			want: StatusFail, msg: "declares tools, expected tools/list to work, got no answer: the HTTP 200 event stream ended without the response"},
		{name: "a declared list that times out fails",
			res:  scriptedSession(stdio, answer(probe.StepToolsList, noReply())),
			want: StatusFail, msg: "declares tools, expected tools/list to work, got no answer"},
		{name: "declared resources without a templates list warn",
			res: scriptedSession(stdio, withCapabilities(`{"tools":{},"resources":{}}`),
				answer(probe.StepResourcesList, resultReply(`{"resources":[]}`))),
			want: StatusWarn, msg: "declares resources, expected resources/templates/list to work"},
		// 2025-11-25 server/prompts: "Servers that support prompts MUST declare the prompts
		// capability during initialization." A list with items offers what was not declared
		// (a warning: see docs/checks.md); an empty list offers nothing: a fact, not a fault.
		{name: "an undeclared list with items warns",
			res:  scriptedSession(stdio, answer(probe.StepPromptsList, resultReply(`{"prompts":[{"name":"greet"}]}`))),
			want: StatusWarn, msg: `does not declare prompts, expected prompts/list to fail with -32601, got a result {"prompts":[{"name":"greet"}]}`},
		{name: "an undeclared list that is empty is info",
			res:  scriptedSession(stdio, answer(probe.StepPromptsList, resultReply(`{"prompts":[]}`))),
			want: StatusInfo, msg: "prompts/list answered an empty list for a capability the server does not declare"},
		{name: "an undeclared empty first page with a next one warns",
			res:  scriptedSession(stdio, answer(probe.StepPromptsList, resultReply(`{"prompts":[],"nextCursor":"2"}`))),
			want: StatusWarn, msg: "does not declare prompts"},
		{name: "a null capability is undeclared",
			res: scriptedSession(stdio, withCapabilities(`{"tools":{},"prompts":null}`),
				answer(probe.StepToolsList, resultReply(toolsList))),
			want: StatusPass},
		{name: "list_changed without listChanged warns",
			res: scriptedSession(stdio, withCapabilities(`{"tools":{}}`), afterNotifications(func(w *wireScript) {
				w.in(probe.ConnMain, `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`)
			})),
			want: StatusWarn, msg: `expected it only with capabilities.tools.listChanged true, got capabilities.tools {}`},
		{name: "list_changed of an undeclared capability warns",
			res: scriptedSession(stdio, func(p *sessionPlan) {
				p.beforeInitialized = func(w *wireScript) {
					w.in(probe.ConnMain, `{"jsonrpc":"2.0","method":"notifications/prompts/list_changed"}`)
				}
			}),
			want: StatusWarn, msg: "got capabilities.prompts missing"},
		{name: "list_changed with listChanged passes",
			res: scriptedSession(stdio, afterNotifications(func(w *wireScript) {
				w.in(probe.ConnMain, `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`)
			})),
			want: StatusPass},
		{name: "initialize failed is untested", res: scriptedSession(stdio, initFails), want: StatusUntested},
		{name: "no list sent is untested",
			res:  scriptedSession(stdio, func(p *sessionPlan) { p.stopAfterInitialize = true }),
			want: StatusUntested, msg: "no list method was sent"},
	})
}

func TestEarlyMessagesWarnOfServerRequestsBeforeInitialized(t *testing.T) {
	stdio := protocol.TransportStdio
	before := func(raw string) func(p *sessionPlan) {
		return func(p *sessionPlan) {
			p.beforeInitialized = func(w *wireScript) { w.in(probe.ConnMain, raw) }
		}
	}
	runCheckRows(t, "lifecycle.early-messages", []checkRow{
		{name: "no early request passes", res: scriptedSession(stdio), want: StatusPass},
		{name: "sampling before initialized warns",
			res:  scriptedSession(stdio, before(`{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{}}`)),
			want: StatusWarn, msg: `expected no request but ping before initialized, got "sampling/createMessage"`},
		{name: "ping before initialized passes",
			res: scriptedSession(stdio, before(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)), want: StatusPass},
		{name: "a log notification before initialized passes",
			res:  scriptedSession(stdio, before(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"up"}}`)),
			want: StatusPass},
		{name: "a request after initialized passes",
			res: scriptedSession(stdio, afterNotifications(func(w *wireScript) {
				w.in(probe.ConnMain, `{"jsonrpc":"2.0","id":1,"method":"roots/list"}`)
			})),
			want: StatusPass},
		{name: "a request on the negotiation connection warns",
			res: scriptedSession(stdio, func(p *sessionPlan) {
				p.onNegotiation = func(w *wireScript) {
					w.in(probe.ConnNegotiation, `{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{}}`)
				}
			}),
			want: StatusWarn, msg: "on the negotiation connection"},
		{name: "a request while initialize goes unanswered warns",
			res: scriptedSession(stdio, func(p *sessionPlan) {
				p.initialize = func(w *wireScript, conn int, id string) int {
					w.in(conn, `{"jsonrpc":"2.0","id":1,"method":"roots/list"}`)
					return noReply()(w, conn, id)
				}
			}),
			want: StatusWarn, msg: `got "roots/list"`},
		{name: "initialized never sent is untested", res: scriptedSession(stdio, initFails), want: StatusUntested,
			msg: "initialized was never sent"},
	})
}

func TestInitializeFailureReasonsNameTheFault(t *testing.T) {
	// The untested reasons of the checks that depend on initialize carry its failure, so a
	// reader of any one finding learns why.
	res := scriptedSession(protocol.TransportStdio, func(p *sessionPlan) { p.initialize = errorReply(-32602, "bad version") })
	for _, id := range []string{"lifecycle.initialize-result", "lifecycle.version-negotiation", "lifecycle.capabilities", "lifecycle.ping", "lifecycle.unknown-method"} {
		f := evaluateCheck(t, id, res)
		if f.Status != StatusUntested || !strings.Contains(f.Message, "JSON-RPC error -32602") {
			t.Errorf("%s: %s %q, want untested naming error -32602", id, f.Status, f.Message)
		}
	}
}
