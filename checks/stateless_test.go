package checks

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

const (
	rev2026 = protocol.Revision20260728
	// metaParams is the _meta the probe sends with every stateless request.
	metaParams    = `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"mcpwatch","version":"dev"}}}`
	noCapsMeta    = `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"mcpwatch","version":"dev"}}}`
	noInfoMeta    = `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`
	noVersionMeta = `{"_meta":{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"mcpwatch","version":"dev"}}}`
	bogusMeta     = `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/clientCapabilities":{}}}`

	discoverOnly  = `{"resultType":"complete","ttlMs":60000,"cacheScope":"public","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"fixture","version":"1.0.0"}}}`
	discoverDual  = `{"resultType":"complete","ttlMs":0,"cacheScope":"public","supportedVersions":["2026-07-28","2025-11-25"],"capabilities":{"tools":{}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"fixture","version":"1.0.0"}}}`
	toolsPage2026 = `{"resultType":"complete","ttlMs":60000,"cacheScope":"public","tools":[{"name":"echo","description":"echoes","inputSchema":{"type":"object"}}]}`
	unsupported   = `{"jsonrpc":"2.0","id":ID,"error":{"code":-32022,"message":"unsupported protocol version","data":{"supported":["2026-07-28"],"requested":"2099-01-01"}}}`
)

// statelessPlan is a conformant stateless server's conversation, to be bent one way per row.
type statelessPlan struct {
	transport              string
	discover, tools        reply
	unsupported, metaCheck reply
	unknown                reply
	// noCaps, noVersion and noInfo answer the requests whose _meta lacks only that key.
	noCaps, noVersion, noInfo reply
	// eraInit answers the era probe's initialize (nil: not sent).
	eraInit reply
	// unsupportedStatus and metaStatus are the HTTP statuses of the two error answers.
	unsupportedStatus, metaStatus int
}

func defaultStatelessPlan(transport string) *statelessPlan {
	return &statelessPlan{
		transport: transport, discover: resultReply(discoverOnly), tools: resultReply(toolsPage2026),
		unsupported: jsonReply(unsupported), metaCheck: errorReply(-32602, "invalid params: _meta is required"),
		unknown: errorReply(-32601, "method not found"), unsupportedStatus: 400, metaStatus: 400,
		noCaps:    errorReply(-32602, "invalid params: _meta clientCapabilities is required"),
		noVersion: errorReply(-32602, "invalid params: _meta protocolVersion is required"),
		noInfo:    resultReply(discoverOnly),
	}
}

// httpError answers over HTTP with an error status and a JSON-RPC error body, over stdio with
// the line alone.
func httpError(status int, raw string) reply {
	return func(w *wireScript, conn int, id string) int {
		body := strings.ReplaceAll(raw, "ID", id)
		if !w.http() {
			return w.in(conn, body)
		}
		return w.inBody(conn, status, "application/json", body)
	}
}

func (p *statelessPlan) result() *probe.Result {
	w := newWireScript(p.transport)
	w.res.Requested, w.res.Negotiated, w.res.ProtocolVersion = rev2026, rev2026, rev2026
	disc := w.call(probe.ConnMain, probe.StepDiscover, "server/discover", "1", metaParams, p.discover)
	if disc.Outcome == probe.OutcomeOK {
		w.res.Discover = disc.Result
	}
	w.call(probe.ConnMain, probe.StepToolsList, "tools/list", "2", metaParams, p.tools)
	w.call(probe.ConnMain, probe.StepUnknownMethod, probe.UnknownMethod, "3", metaParams, p.unknown)
	unsupportedAnswer, metaAnswer, noCaps, noVersion := p.unsupported, p.metaCheck, p.noCaps, p.noVersion
	if w.http() {
		unsupportedAnswer = asStatus(p.unsupportedStatus, p.unsupported)
		metaAnswer = asStatus(p.metaStatus, p.metaCheck)
		noCaps, noVersion = asStatus(p.metaStatus, p.noCaps), asStatus(p.metaStatus, p.noVersion)
	}
	w.call(probe.ConnNegotiation, probe.StepDiscoverUnsupported, "server/discover", "1", bogusMeta, unsupportedAnswer)
	w.call(probe.ConnNegotiation, probe.StepMetaNoClientCapabilities, "server/discover", "2", noCapsMeta, noCaps)
	w.call(probe.ConnNegotiation, probe.StepMetaNoClientInfo, "server/discover", "3", noInfoMeta, p.noInfo)
	w.call(probe.ConnNegotiation, probe.StepMetaNoProtocolVersion, "server/discover", "4", noVersionMeta, noVersion)
	w.call(probe.ConnNegotiation, probe.StepMetaMissing, "server/discover", "5", `{}`, metaAnswer)
	if p.eraInit != nil {
		w.call(probe.ConnSessionEra, probe.StepEraInitialize, "initialize", "1", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"mcpwatch","version":"dev"}}`, p.eraInit)
	}
	return w.res
}

// asStatus turns a reply whose message is an error into an HTTP answer with that status (a
// result keeps 200).
func asStatus(status int, r reply) reply {
	return func(w *wireScript, conn int, id string) int {
		probeW := newWireScript(protocol.TransportStdio)
		seq := r(probeW, conn, id)
		raw := string(probeW.res.Frames[seq].Raw)
		if strings.Contains(raw, `"error"`) {
			return w.inBody(conn, status, "application/json", raw)
		}
		return w.in(conn, raw)
	}
}

func statelessRow(name, transport string, want Status, msg string, bend func(p *statelessPlan)) checkRow {
	p := defaultStatelessPlan(transport)
	if bend != nil {
		bend(p)
	}
	return checkRow{name: name, res: p.result(), want: want, msg: msg}
}

// sessionEraResult is a server of the session era, as era detection leaves it: server/discover
// refused, initialize answered.
func sessionEraResult() *probe.Result {
	return scriptedSession(protocol.TransportHTTP, func(p *sessionPlan) {})
}

func TestDiscoverResult(t *testing.T) {
	runStatelessRows(t, "discover.result", []checkRow{
		statelessRow("a DiscoverResult with every member passes", protocol.TransportHTTP, StatusPass, "a valid DiscoverResult of 2026-07-28", nil),
		statelessRow("server/discover failing fails", protocol.TransportHTTP, StatusFail, "expected a DiscoverResult, got JSON-RPC error -32601",
			func(p *statelessPlan) { p.discover = errorReply(-32601, "method not found") }),
		statelessRow("a DiscoverResult without cacheScope fails", protocol.TransportStdio, StatusFail, "expected cacheScope public or private, got missing",
			func(p *statelessPlan) {
				p.discover = resultReply(strings.Replace(discoverOnly, `,"cacheScope":"public"`, "", 1))
			}),
		statelessRow("a DiscoverResult without resultType fails", protocol.TransportStdio, StatusFail, "expected resultType complete or input_required, got none",
			func(p *statelessPlan) {
				p.discover = resultReply(strings.Replace(discoverOnly, `"resultType":"complete",`, "", 1))
			}),
		statelessRow("a DiscoverResult not listing the revision asked in fails", protocol.TransportStdio, StatusFail, "expected supportedVersions to list it",
			func(p *statelessPlan) {
				p.discover = resultReply(strings.Replace(discoverOnly, `["2026-07-28"]`, `["2027-01-01"]`, 1))
			}),
		statelessRow("a DiscoverResult without serverInfo warns", protocol.TransportStdio, StatusWarn, "io.modelcontextprotocol/serverInfo",
			func(p *statelessPlan) {
				p.discover = resultReply(`{"resultType":"complete","ttlMs":0,"cacheScope":"private","supportedVersions":["2026-07-28"],"capabilities":{}}`)
			}),
		{name: "a session-era server skips, naming what server/discover got", res: sessionEraResult(), want: StatusSkip, msg: "a revision with sessions"},
	})
}

func TestDiscoverUnsupportedVersion(t *testing.T) {
	runStatelessRows(t, "discover.unsupported-version", []checkRow{
		statelessRow("-32022 with data over HTTP 400 passes", protocol.TransportHTTP, StatusPass, "-32022 with data.supported", nil),
		statelessRow("-32602 instead fails", protocol.TransportStdio, StatusFail, "expected error -32022 with data.supported, got JSON-RPC error -32602",
			func(p *statelessPlan) { p.unsupported = errorReply(-32602, "Unsupported protocol version") }),
		statelessRow("-32022 without data.supported fails", protocol.TransportStdio, StatusFail, "expected data.supported",
			func(p *statelessPlan) {
				p.unsupported = jsonReply(`{"jsonrpc":"2.0","id":ID,"error":{"code":-32022,"message":"no","data":{"requested":"2099-01-01"}}}`)
			}),
		statelessRow("-32022 with HTTP 200 fails", protocol.TransportHTTP, StatusFail, "expected HTTP status 400 with the -32022 error, got HTTP 200",
			func(p *statelessPlan) { p.unsupportedStatus = 200 }),
		statelessRow("a DiscoverResult for the unsupported revision fails", protocol.TransportStdio, StatusFail, "got a result",
			func(p *statelessPlan) { p.unsupported = resultReply(discoverOnly) }),
		{name: "a session-era server skips", res: sessionEraResult(), want: StatusSkip, msg: "a revision with sessions"},
	})
}

// TestDiscoverMetaRequired: 2026-07-28 basic/index, "_meta": "A request missing any required
// field is malformed; the server MUST reject it with JSON-RPC error code -32602 (Invalid
// params). On HTTP, the response status MUST be 400 Bad Request." protocolVersion and
// clientCapabilities are required, clientInfo is not ("Clients SHOULD include
// io.modelcontextprotocol/clientInfo on every request unless specifically configured not to
// do so"). Over stdio a request naming no revision may be read by a dual-era server as a
// session-era one (basic/versioning: "A request carrying modern per-request _meta is served
// statelessly according to this revision").
func TestDiscoverMetaRequired(t *testing.T) {
	served := func(p *statelessPlan) { p.metaCheck = resultReply(discoverOnly) }
	dualByInitialize := func(p *statelessPlan) {
		p.eraInit = resultReply(`{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"x","version":"1"}}`)
	}
	methodNotFound := func(p *statelessPlan) {
		p.metaCheck = errorReply(-32601, "method not found")
		p.noVersion = errorReply(-32601, "method not found")
	}
	runStatelessRows(t, "discover.meta-required", []checkRow{
		statelessRow("-32602 over HTTP 400 passes", protocol.TransportHTTP, StatusPass, "refused as the revision asks", nil),
		statelessRow("-32602 over stdio passes", protocol.TransportStdio, StatusPass, "refused as the revision asks", nil),
		statelessRow("a request without _meta served over HTTP fails", protocol.TransportHTTP, StatusFail, "a request without _meta: expected error -32602 (or -32020) with HTTP 400, got a result", served),
		statelessRow("served over stdio, era unknown, warns", protocol.TransportStdio, StatusWarn, "is unknown", served),
		statelessRow("served over stdio by a stateless-only server fails", protocol.TransportStdio, StatusFail, "expected error -32602, got a result",
			func(p *statelessPlan) {
				served(p)
				p.eraInit = errorReply(-32602, "unsupported protocol version: this server speaks only 2026-07-28")
			}),
		statelessRow("-32601 over stdio from a server of both eras (DiscoverResult) passes", protocol.TransportStdio, StatusPass, "refused",
			func(p *statelessPlan) {
				p.discover = resultReply(discoverDual)
				methodNotFound(p)
			}),
		statelessRow("-32601 over stdio from a server of both eras (era probe) passes", protocol.TransportStdio, StatusPass, "refused",
			func(p *statelessPlan) {
				methodNotFound(p)
				dualByInitialize(p)
			}),
		statelessRow("served over stdio by a server of both eras fails", protocol.TransportStdio, StatusFail, "read as a session-era request, any error), got a result",
			func(p *statelessPlan) {
				served(p)
				dualByInitialize(p)
			}),
		statelessRow("-32601 over HTTP from a server of both eras fails", protocol.TransportHTTP, StatusFail, "expected error -32602 (or -32020) with HTTP 400, got JSON-RPC error -32601",
			func(p *statelessPlan) {
				p.discover = resultReply(discoverDual)
				p.metaCheck = errorReply(-32601, "method not found")
			}),
		statelessRow("-32020 over HTTP 400 for a _meta without protocolVersion passes", protocol.TransportHTTP, StatusPass, "refused",
			func(p *statelessPlan) { p.noVersion = errorReply(-32020, "header mismatch") }),
		// mcp-grafana: -32021 names a capability a request needs, not a missing field.
		statelessRow("-32021 for a _meta without clientCapabilities fails", protocol.TransportHTTP, StatusFail,
			"a request whose _meta lacks only io.modelcontextprotocol/clientCapabilities: expected error -32602 with HTTP 400, got JSON-RPC error -32021",
			func(p *statelessPlan) { p.noCaps = errorReply(-32021, "missing required client capability") }),
		statelessRow("-32601 over stdio for a _meta without clientCapabilities fails even on a server of both eras", protocol.TransportStdio, StatusFail,
			"lacks only io.modelcontextprotocol/clientCapabilities: expected error -32602, got JSON-RPC error -32601",
			func(p *statelessPlan) {
				p.noCaps = errorReply(-32601, "method not found")
				dualByInitialize(p)
			}),
		statelessRow("a request without clientInfo refused warns", protocol.TransportStdio, StatusWarn,
			"lacks only the optional io.modelcontextprotocol/clientInfo: expected it served, got JSON-RPC error -32602",
			func(p *statelessPlan) { p.noInfo = errorReply(-32602, "clientInfo is required") }),
		statelessRow("-32602 with HTTP 200 fails", protocol.TransportHTTP, StatusFail, "expected it with HTTP status 400, got HTTP 200",
			func(p *statelessPlan) { p.metaStatus = 200 }),
	})
}

func TestResultTypeAndCacheHints(t *testing.T) {
	runStatelessRows(t, "results.result-type", []checkRow{
		statelessRow("every result with resultType complete passes", protocol.TransportStdio, StatusPass, "3 results, each with resultType", nil),
		statelessRow("an unknown resultType fails", protocol.TransportStdio, StatusFail, `tools/list: expected resultType complete or input_required, got "partial"`,
			func(p *statelessPlan) {
				p.tools = resultReply(strings.Replace(toolsPage2026, `"complete"`, `"partial"`, 1))
			}),
		statelessRow("a missing resultType fails", protocol.TransportHTTP, StatusFail, "tools/list: expected resultType complete or input_required, got none",
			func(p *statelessPlan) {
				p.tools = resultReply(strings.Replace(toolsPage2026, `"resultType":"complete",`, "", 1))
			}),
		statelessRow("a result to a request without _meta is not judged", protocol.TransportStdio, StatusPass, "3 results",
			func(p *statelessPlan) { p.metaCheck = resultReply(`{"unrelated":true}`) }),
		{name: "a session-era server skips", res: sessionEraResult(), want: StatusSkip, msg: "a revision with sessions"},
	})
	runStatelessRows(t, "results.cache-hints", []checkRow{
		statelessRow("tools/list with ttlMs and cacheScope passes", protocol.TransportHTTP, StatusPass, "1 list results", nil),
		statelessRow("tools/list without the hints fails", protocol.TransportStdio, StatusFail, "tools/list: expected ttlMs (an integer >= 0), got missing",
			func(p *statelessPlan) {
				p.tools = resultReply(`{"resultType":"complete","tools":[{"name":"echo","inputSchema":{"type":"object"}}]}`)
			}),
		statelessRow("a negative ttlMs and an unknown cacheScope fail", protocol.TransportStdio, StatusFail, "expected ttlMs (an integer >= 0), got -1",
			func(p *statelessPlan) {
				p.tools = resultReply(`{"resultType":"complete","ttlMs":-1,"cacheScope":"shared","tools":[]}`)
			}),
		statelessRow("a list that failed leaves the hints untested", protocol.TransportHTTP, StatusUntested, "no list method got a result",
			func(p *statelessPlan) { p.tools = errorReply(-32603, "internal error") }),
	})
}

// TestSessionRulesSkipUnderTheStatelessRevision: initialize, its result, version
// negotiation, ping and the initialized notification do not exist under 2026-07-28.
func TestSessionRulesSkipUnderTheStatelessRevision(t *testing.T) {
	res := defaultStatelessPlan(protocol.TransportHTTP).result()
	for _, id := range []string{"lifecycle.initialize", "lifecycle.initialize-result", "lifecycle.version-negotiation",
		"lifecycle.ping", "lifecycle.early-messages"} {
		f := evaluateOne(statelessCheck(t, id), NewCapture(res))
		if f.Status != StatusSkip || !strings.Contains(f.Message, "does not exist under 2026-07-28") {
			t.Errorf("%s: %s %q, want a skip saying the rule does not exist under 2026-07-28", id, f.Status, f.Message)
		}
	}
	for _, id := range []string{"lifecycle.unknown-method", "lifecycle.capabilities"} {
		if f := evaluateOne(statelessCheck(t, id), NewCapture(res)); f.Status != StatusPass {
			t.Errorf("%s: %s %q, want pass (the rule holds under 2026-07-28)", id, f.Status, f.Message)
		}
	}
}

// TestHTTPStatusAcceptsTheStatusesTheStatelessRevisionPrescribes: 404 for -32601, 400 for
// -32602 and -32022 are the answers 2026-07-28 asks for, not faults of the exchange; an
// error with another status still fails.
func TestHTTPStatusAcceptsTheStatusesTheStatelessRevisionPrescribes(t *testing.T) {
	p := defaultStatelessPlan(protocol.TransportHTTP)
	p.unknown = asStatus(404, errorReply(-32601, "method not found"))
	if f := evaluateOne(statelessCheck(t, "http.status"), NewCapture(p.result())); f.Status != StatusPass {
		t.Errorf("prescribed statuses: %s %q, want pass", f.Status, f.Message)
	}
	p.unknown = asStatus(500, errorReply(-32601, "method not found"))
	if f := evaluateOne(statelessCheck(t, "http.status"), NewCapture(p.result())); f.Status != StatusFail || !strings.Contains(f.Message, "got HTTP 500") {
		t.Errorf("-32601 with 500: %s %q, want a failure naming HTTP 500", f.Status, f.Message)
	}
}

// TestHTTPStatusLeavesUnprescribedAndOwnStatusesAlone: 2026-07-28 prescribes 400 with -32602
// only for "a request missing any required field" of _meta (basic/index, Request metadata:
// "On HTTP, the response status MUST be 400 Bad Request"), and discover.meta-required judges
// that status; -32602 for anything else (mongodb-mcp-server answers an unknown tool so, with
// 200) has no prescribed status.
func TestHTTPStatusLeavesUnprescribedAndOwnStatusesAlone(t *testing.T) {
	p := defaultStatelessPlan(protocol.TransportHTTP)
	p.unknown = asStatus(404, errorReply(-32601, "method not found"))
	p.tools = errorReply(-32602, "unknown tool")
	if f := evaluateOne(statelessCheck(t, "http.status"), NewCapture(p.result())); f.Status != StatusPass {
		t.Errorf("-32602 with 200 to a well-formed request: %s %q, want pass", f.Status, f.Message)
	}
	p = defaultStatelessPlan(protocol.TransportHTTP)
	p.unknown = asStatus(404, errorReply(-32601, "method not found"))
	p.metaStatus = 200
	res := p.result()
	if f := evaluateOne(statelessCheck(t, "http.status"), NewCapture(res)); f.Status != StatusPass {
		t.Errorf("a _meta refusal with 200: http.status %s %q, want pass (discover.meta-required's)", f.Status, f.Message)
	}
	if f := evaluateOne(statelessCheck(t, "discover.meta-required"), NewCapture(res)); f.Status != StatusFail || !strings.Contains(f.Message, "expected it with HTTP status 400, got HTTP 200") {
		t.Errorf("a _meta refusal with 200: discover.meta-required %s %q, want the failure", f.Status, f.Message)
	}
}

// statelessCheck finds a check among the areas the stateless revision touches.
func statelessCheck(t *testing.T, id string) Check {
	t.Helper()
	schemas := mustSchemas(t)
	var all []Check
	all = append(all, lifecycleChecks(schemas)...)
	all = append(all, statelessChecks(schemas)...)
	all = append(all, httpChecks()...)
	all = append(all, sseChecks()...)
	all = append(all, versionSupportCheck())
	reg, err := NewRegistry(all...)
	if err != nil {
		t.Fatal(err)
	}
	c, ok := reg.Lookup(id)
	if !ok {
		t.Fatalf("no check %q", id)
	}
	return c
}

// runStatelessRows is runCheckRows over the stateless areas.
func runStatelessRows(t *testing.T, id string, rows []checkRow) {
	t.Helper()
	c := statelessCheck(t, id)
	for _, row := range rows {
		t.Run(fmt.Sprintf("%s/%s", id, row.name), func(t *testing.T) {
			f := evaluateOne(c, NewCapture(row.res))
			if f.Status != row.want {
				t.Fatalf("status %s, want %s (message %q, evidence %+v)", f.Status, row.want, f.Message, f.Evidence)
			}
			if !strings.Contains(f.Message, row.msg) {
				t.Errorf("message %q does not contain %q", f.Message, row.msg)
			}
			for _, e := range f.Evidence {
				if len(e.Frames) == 0 {
					t.Errorf("evidence %q names no frame", e.Message)
				}
				for _, s := range e.Frames {
					if s < 0 || s >= len(row.res.Frames) {
						t.Errorf("evidence %q names frame %d of %d", e.Message, s, len(row.res.Frames))
					}
				}
			}
		})
	}
}

// TestSessionRuleSkipsSayTheServerSpeaksOnlyTheStatelessRevision: when the era probe's
// initialize was refused, the session rules of Streamable HTTP have no session to judge, and
// the skip says why.
func TestSessionRuleSkipsSayTheServerSpeaksOnlyTheStatelessRevision(t *testing.T) {
	p := defaultStatelessPlan(protocol.TransportHTTP)
	p.eraInit = errorReply(-32602, "unsupported protocol version: this server speaks only 2026-07-28")
	f := evaluateOne(checkByID(t, "http.session"), NewCapture(p.result()))
	if f.Status != StatusSkip || !strings.Contains(f.Message, "speaks only the stateless revision 2026-07-28 (initialize on a connection of its own got JSON-RPC error -32602") {
		t.Errorf("http.session: %s %q, want a skip naming the refused initialize", f.Status, f.Message)
	}
}
