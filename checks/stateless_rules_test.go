package checks

import (
	"net/http"
	"strings"
	"testing"

	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// The rules, all of revision 2026-07-28:
//
// changelog, Major changes: "Remove ping, logging/setLevel, and
// notifications/roots/list_changed"; "Replace the HTTP GET endpoint and
// resources/subscribe/resources/unsubscribe with subscriptions/listen"; "remove the
// initialize/notifications/initialized handshake".
// basic/transports/streamable-http, Protocol Version Header: "If the server does not
// implement the requested RPC method, it MUST respond with 404 Not Found and a JSON-RPC
// error with code -32601 (Method not found)."
// basic/versioning: "A dual-era server selects its behavior from how the client opens: A
// request carrying modern per-request _meta is served statelessly according to this
// revision. An initialize request selects legacy semantics".
// basic/transports/streamable-http, Earlier Streamable HTTP Revisions: "A server that
// supports only this revision and receives such traffic from an older client SHOULD respond
// as follows: HTTP GET or DELETE to the MCP endpoint: respond with 405 Method Not Allowed. An
// Mcp-Session-Id header on a request: ignore it, and do not mint or echo session IDs."
// basic/transports/stdio, Receiving Messages: "The server MUST NOT write JSON-RPC requests to
// stdout." basic/transports/streamable-http, Receiving Messages: "The server MUST NOT send
// independent JSON-RPC requests on this stream."
// basic/versioning, Backward Compatibility with Initialization-Based Versions: "A server
// that supports only modern versions SHOULD name the protocol versions it supports in any
// error it returns to an initialize request, on any transport".

const (
	methodNotFound   = `{"jsonrpc":"2.0","id":ID,"error":{"code":-32601,"message":"method not found"}}`
	initNamesRev     = `{"jsonrpc":"2.0","id":ID,"error":{"code":-32602,"message":"this server speaks only 2026-07-28","data":{"supported":["2026-07-28"]}}}`
	initNamesNothing = `{"jsonrpc":"2.0","id":ID,"error":{"code":-32602,"message":"initialize is not supported"}}`
	initMeta         = `{"protocolVersion":"2026-07-28","capabilities":{},"clientInfo":{"name":"mcpwatch","version":"dev"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`
	initRemovedNamed = `{"jsonrpc":"2.0","id":ID,"error":{"code":-32601,"message":"method not found: initialize; this server speaks 2026-07-28","data":{"supported":["2026-07-28"]}}}`
)

// removalPlan is a server of the stateless revision only, as the stateless rule probes meet
// it, to be bent one way per row.
type removalPlan struct {
	base *statelessPlan
	// removed answers each removed method's step (a missing step was not sent).
	removed map[string]reply
	// sessionID answers server/discover with a made-up Mcp-Session-Id (nil: not sent).
	sessionID reply
	// get and del are the statuses of GET and DELETE (0: not sent).
	get, del int
	// mint is the Mcp-Session-Id the server sets on the GET's answer ("" for none).
	mint string
}

func defaultRemovalPlan(transport string) *removalPlan {
	p := &removalPlan{base: defaultStatelessPlan(transport), removed: map[string]reply{}}
	p.base.eraInit = httpError(400, initNamesRev)
	for _, rm := range probe.RemovedMethods() {
		p.removed[rm.Step] = httpError(404, methodNotFound)
	}
	p.removed[probe.StepStatelessInitialize] = httpError(404, initRemovedNamed)
	if transport == protocol.TransportHTTP {
		p.sessionID = resultReply(discoverOnly)
		p.get, p.del = 405, 405
	}
	return p
}

func (p *removalPlan) result() *probe.Result {
	res := p.base.result()
	w := &wireScript{res: res, exchange: map[int]int{}}
	for i, rm := range probe.RemovedMethods() {
		answer, ok := p.removed[rm.Step]
		if !ok {
			continue
		}
		params := metaParams
		switch rm.Method {
		case "initialize":
			params = initMeta
		case "resources/subscribe", "resources/unsubscribe":
			params = `{"uri":"` + probe.StatelessSubscribeURI + `",` + strings.TrimPrefix(metaParams, "{")
		}
		w.call(probe.ConnStatelessRemoved, rm.Step, rm.Method, string(rune('1'+i)), params, answer)
	}
	if p.sessionID != nil {
		w.call(probe.ConnStatelessSession, probe.StepStatelessSessionID, "server/discover", "1", metaParams, p.sessionID)
	}
	if p.get != 0 {
		var h http.Header
		if p.mint != "" {
			h = http.Header{protocol.HeaderSessionID: {p.mint}}
		}
		res.Steps = append(res.Steps, w.fetch(probe.ConnStatelessGetDelete, probe.StepStatelessGet, http.MethodGet, "http://127.0.0.1:1/mcp", p.get, "text/plain", "", h))
	}
	if p.del != 0 {
		res.Steps = append(res.Steps, w.fetch(probe.ConnStatelessGetDelete, probe.StepStatelessDelete, http.MethodDelete, "http://127.0.0.1:1/mcp", p.del, "text/plain", "", nil))
	}
	return res
}

func removalRow(name, transport string, want Status, msg string, bend func(p *removalPlan)) checkRow {
	p := defaultRemovalPlan(transport)
	if bend != nil {
		bend(p)
	}
	return checkRow{name: name, res: p.result(), want: want, msg: msg}
}

// dualEra makes the server one that also speaks a session revision: the era probe's
// initialize is answered, and the probe sends no stateless initialize, GET or DELETE.
func dualEra(p *removalPlan) {
	p.base.eraInit = resultReply(`{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"fixture","version":"1.0.0"}}`)
	delete(p.removed, probe.StepStatelessInitialize)
	p.sessionID, p.get, p.del = nil, 0, 0
}

func TestRemovedMethods(t *testing.T) {
	onHTTP, stdio := protocol.TransportHTTP, protocol.TransportStdio
	runCheckRows(t, "stateless.removed-methods", []checkRow{
		removalRow("every removed method refused with 404 and -32601 passes", onHTTP, StatusPass,
			"ping, logging/setLevel, resources/subscribe, resources/unsubscribe, initialize got HTTP 404 with -32601", nil),
		removalRow("over stdio -32601 alone passes", stdio, StatusPass, "got -32601", nil),
		removalRow("ping served fails", onHTTP, StatusFail, "ping under 2026-07-28: expected HTTP 404 with error -32601",
			func(p *removalPlan) { p.removed[probe.StepStatelessPing] = resultReply(`{}`) }),
		removalRow("ping served over stdio fails", stdio, StatusFail, "ping under 2026-07-28: expected error -32601 (Method not found)",
			func(p *removalPlan) { p.removed[probe.StepStatelessPing] = resultReply(`{}`) }),
		removalRow("-32601 with HTTP 200 fails", onHTTP, StatusFail, "logging/setLevel under 2026-07-28: expected HTTP 404 with error -32601, got HTTP 200 with -32601",
			func(p *removalPlan) { p.removed[probe.StepStatelessSetLevel] = jsonReply(methodNotFound) }),
		removalRow("resources/subscribe answered -32602 fails", onHTTP, StatusFail, "resources/subscribe under 2026-07-28",
			func(p *removalPlan) {
				p.removed[probe.StepStatelessSubscribe] = httpError(400, `{"jsonrpc":"2.0","id":ID,"error":{"code":-32602,"message":"unknown resource"}}`)
			}),
		removalRow("initialize with the revision's _meta answered -32602 fails", onHTTP, StatusFail, "initialize under 2026-07-28",
			func(p *removalPlan) { p.removed[probe.StepStatelessInitialize] = httpError(400, initNamesRev) }),
		removalRow("a removed method left unanswered fails", stdio, StatusFail, "resources/unsubscribe under 2026-07-28",
			func(p *removalPlan) { p.removed[probe.StepStatelessUnsubscribe] = noReply() }),
		removalRow("a dual-era server gets no initialize and passes saying why", onHTTP, StatusPass, "initialize was not sent: the server speaks a session revision too", dualEra),
		{name: "a session-era server skips", res: sessionEraResult(), want: StatusSkip, msg: "a revision with sessions"},
		{name: "a stateless server without the probe's steps is untested", res: defaultStatelessPlan(onHTTP).result(), want: StatusUntested, msg: "the removed methods were not sent"},
	})
}

func TestNoSession(t *testing.T) {
	onHTTP := protocol.TransportHTTP
	runCheckRows(t, "stateless.no-session", []checkRow{
		removalRow("no session id anywhere and a made-up one ignored passes", onHTTP, StatusPass, "a request with a session id the server never issued was served", nil),
		removalRow("a session id minted on an answer warns", onHTTP, StatusWarn, `expected no Mcp-Session-Id from a server of the stateless revision only, got Mcp-Session-Id: "abc"`,
			func(p *removalPlan) { p.mint = "abc" }),
		removalRow("a made-up session id answered 404 warns", onHTTP, StatusWarn, "expected it served as without the header (ignored), got HTTP 404",
			func(p *removalPlan) {
				p.sessionID = httpError(404, `{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"session not found"}}`)
			}),
		removalRow("a made-up session id answered 400 warns", onHTTP, StatusWarn, "got HTTP 400",
			func(p *removalPlan) {
				p.sessionID = httpError(400, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"bad session"}}`)
			}),
		removalRow("a dual-era server skips", onHTTP, StatusSkip, "supports only the stateless revision", dualEra),
		removalRow("a server whose era probe got no answer is untested", onHTTP, StatusUntested, "could not tell whether the server also speaks a session revision",
			func(p *removalPlan) { p.base.eraInit = noReply() }),
		{name: "a session-era server skips", res: sessionEraResult(), want: StatusSkip, msg: "a revision with sessions"},
	})
}

func TestGetDelete(t *testing.T) {
	onHTTP := protocol.TransportHTTP
	runCheckRows(t, "stateless.get-delete", []checkRow{
		removalRow("GET and DELETE answered 405 pass", onHTTP, StatusPass, "GET and DELETE of the endpoint got HTTP 405", nil),
		removalRow("GET answered 400 warns", onHTTP, StatusWarn, "GET of the endpoint: expected HTTP 405 (the stateless revision has no GET stream and no session to delete), got HTTP 400",
			func(p *removalPlan) { p.get = 400 }),
		removalRow("DELETE answered 200 warns", onHTTP, StatusWarn, "DELETE of the endpoint: expected HTTP 405",
			func(p *removalPlan) { p.del = 200 }),
		removalRow("a dual-era server skips", onHTTP, StatusSkip, "supports only the stateless revision", dualEra),
		removalRow("a stateless-only server without the probe's steps is untested", onHTTP, StatusUntested, "GET and DELETE of the endpoint got no HTTP answer",
			func(p *removalPlan) { p.get, p.del = 0, 0 }),
		{name: "over stdio it skips", res: defaultRemovalPlan(protocol.TransportStdio).result(), want: StatusSkip, msg: "applies to the http transport only"},
	})
}

// withServerRequest makes the server send roots/list ahead of its answer to tools/list: over
// HTTP on the POST's event stream, over stdio as a line of its own.
func withServerRequest(p *removalPlan) {
	const rootsList = `{"jsonrpc":"2.0","id":"srv-1","method":"roots/list","params":{}}`
	answer := `{"jsonrpc":"2.0","id":ID,"result":` + toolsPage2026 + `}`
	p.base.tools = func(w *wireScript, conn int, id string) int {
		if !w.http() {
			w.in(conn, rootsList)
			return w.in(conn, strings.ReplaceAll(answer, "ID", id))
		}
		w.head(conn, 200, "text/event-stream", "")
		w.sse(conn, rootsList, "")
		seq := w.sse(conn, strings.ReplaceAll(answer, "ID", id), "")
		w.note(conn, probe.NoteStreamEnded, "")
		return seq
	}
}

func TestServerRequests(t *testing.T) {
	onHTTP, stdio := protocol.TransportHTTP, protocol.TransportStdio
	runCheckRows(t, "stateless.server-requests", []checkRow{
		removalRow("no server request over HTTP passes", onHTTP, StatusPass, "no request from the server while it was spoken to in 2026-07-28", nil),
		removalRow("no server request over stdio passes", stdio, StatusPass, "no request from the server", nil),
		removalRow("roots/list on a POST's stream fails", onHTTP, StatusFail, `expected no request from the server on the answer to "tools/list" under 2026-07-28, got "roots/list"`, withServerRequest),
		removalRow("roots/list on stdout fails", stdio, StatusFail, `expected no request from the server on stdout under 2026-07-28, got "roots/list"`, withServerRequest),
		{name: "a request on a stdio connection that initialize put into the session era passes", res: func() *probe.Result {
			p := defaultRemovalPlan(stdio)
			p.base.eraInit = func(w *wireScript, conn int, id string) int {
				w.in(conn, `{"jsonrpc":"2.0","id":"srv-1","method":"roots/list","params":{}}`)
				return w.in(conn, `{"jsonrpc":"2.0","id":`+id+`,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"f","version":"1"}}}`)
			}
			return p.result()
		}(), want: StatusPass, msg: "no request from the server"},
		{name: "a session-era server skips", res: sessionEraResult(), want: StatusSkip, msg: "a revision with sessions"},
	})
}

func TestVersionError(t *testing.T) {
	onHTTP, stdio := protocol.TransportHTTP, protocol.TransportStdio
	runCheckRows(t, "discover.version-error", []checkRow{
		removalRow("both initialize errors naming 2026-07-28 pass", onHTTP, StatusPass, "the error to initialize names 2026-07-28", nil),
		removalRow("over stdio too", stdio, StatusPass, "names 2026-07-28", nil),
		removalRow("the session-era initialize refused without a revision warns", onHTTP, StatusWarn,
			`initialize of the session era: expected the error to name the revisions the server supports (2026-07-28), e.g. in data.supported; got HTTP 400 with JSON-RPC error -32602 "initialize is not supported" without 2026-07-28`,
			func(p *removalPlan) { p.base.eraInit = httpError(400, initNamesNothing) }),
		removalRow("the stateless initialize refused with a bare -32601 warns", stdio, StatusWarn, "initialize with the stateless revision's _meta",
			func(p *removalPlan) {
				p.removed[probe.StepStatelessInitialize] = errorReply(-32601, "method not found")
			}),
		removalRow("a 400 page naming the revision in plain text passes", onHTTP, StatusPass, "names 2026-07-28",
			func(p *removalPlan) {
				p.base.eraInit = func(w *wireScript, conn int, id string) int {
					w.head(conn, 400, "text/plain", "this server speaks only MCP 2026-07-28")
					return -1
				}
			}),
		removalRow("a dual-era server skips", onHTTP, StatusSkip, "supports only the stateless revision", dualEra),
		{name: "a session-era server skips", res: sessionEraResult(), want: StatusSkip, msg: "a revision with sessions"},
	})
}
