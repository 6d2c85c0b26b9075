package checks

import (
	"testing"

	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// The rule: 2026-07-28 basic/transports/streamable-http. "Every POST request to the MCP
// endpoint MUST include an MCP-Protocol-Version header." "The header value MUST match the
// io.modelcontextprotocol/protocolVersion field carried in the request body's _meta."
// Mcp-Method (all requests) and Mcp-Name (tools/call, resources/read, prompts/get) "are
// REQUIRED for compliance." Server Validation: "Servers that process the request body MUST
// reject requests where the values specified in the headers do not match the corresponding
// values in the request body", "MUST return HTTP status 400 Bad Request and MUST include a
// JSON-RPC error response" with -32020, and a failure includes "A required standard header
// (MCP-Protocol-Version, Mcp-Method, Mcp-Name) is missing." Case Sensitivity: "Header names
// ... are case-insensitive. Clients and servers MUST use case-insensitive comparisons for
// header names." RFC 9110 §5.5: "A field value does not include leading or trailing
// whitespace. ... a field parsing implementation MUST exclude such whitespace prior to
// evaluating the field value."

const (
	headerMismatch   = `{"jsonrpc":"2.0","id":ID,"error":{"code":-32020,"message":"header mismatch"}}`
	resourceReadMeta = `{"uri":"file:///notes.txt","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`
	// discoverWith20250326 lists a revision whose clients send no MCP-Protocol-Version.
	discoverWith20250326 = `{"resultType":"complete","ttlMs":0,"cacheScope":"public","supportedVersions":["2026-07-28","2025-03-26"],"capabilities":{"tools":{}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"fixture","version":"1.0.0"}}}`
)

// headersPlan is a stateless server's answers to the stateless.headers probe, by step.
type headersPlan struct {
	discover string
	answers  map[string]reply
	// unnamed: the server lists nothing an Mcp-Name request could address.
	unnamed bool
}

func refused() reply { return httpError(400, headerMismatch) }

func defaultHeadersPlan() *headersPlan {
	p := &headersPlan{discover: discoverOnly, answers: map[string]reply{}}
	for _, step := range []string{probe.StepHeadersNoProtocolVersion, probe.StepHeadersProtocolMismatch,
		probe.StepHeadersNoMethod, probe.StepHeadersMethodMismatch, probe.StepHeadersNoName, probe.StepHeadersNameMismatch} {
		p.answers[step] = refused()
	}
	p.answers[probe.StepHeadersLowercase] = resultReply(discoverOnly)
	p.answers[probe.StepHeadersPadded] = resultReply(discoverOnly)
	return p
}

// result records the main conversation of a stateless HTTP server, then the header probe's
// connection as probeStatelessHeaders drives it.
func (p *headersPlan) result() *probe.Result {
	sp := defaultStatelessPlan(protocol.TransportHTTP)
	sp.discover = resultReply(p.discover)
	res := sp.result()
	w := &wireScript{res: res, exchange: map[int]int{}}
	conn := probe.ConnStatelessHeaders
	id := 0
	next := func() string { id++; return string(rune('0' + id)) }
	for _, step := range []string{probe.StepHeadersNoProtocolVersion, probe.StepHeadersProtocolMismatch,
		probe.StepHeadersNoMethod, probe.StepHeadersMethodMismatch, probe.StepHeadersLowercase, probe.StepHeadersPadded} {
		if p.answers[step] != nil {
			w.call(conn, step, "server/discover", next(), metaParams, p.answers[step])
		}
	}
	if p.unnamed {
		w.call(conn, probe.StepHeadersResources, "resources/list", next(), metaParams, errorReply(-32601, "method not found"))
		w.call(conn, probe.StepHeadersPrompts, "prompts/list", next(), metaParams, errorReply(-32601, "method not found"))
		return res
	}
	w.call(conn, probe.StepHeadersResources, "resources/list", next(), metaParams,
		resultReply(`{"resultType":"complete","resources":[{"uri":"file:///notes.txt","name":"notes"}]}`))
	for _, step := range []string{probe.StepHeadersNoName, probe.StepHeadersNameMismatch} {
		w.call(conn, step, "resources/read", next(), resourceReadMeta, p.answers[step])
	}
	return res
}

func headersRow(name string, want Status, msg string, bend func(p *headersPlan)) checkRow {
	p := defaultHeadersPlan()
	if bend != nil {
		bend(p)
	}
	return checkRow{name: name, res: p.result(), want: want, msg: msg}
}

func TestStatelessHeaders(t *testing.T) {
	served := resultReply(discoverOnly)
	runStatelessRows(t, "stateless.headers", []checkRow{
		headersRow("every bent header refused with 400 and -32020 passes", StatusPass,
			"missing and mismatched MCP-Protocol-Version, Mcp-Method and Mcp-Name got 400 with -32020, lowercase header names and values padded with spaces were served", nil),
		headersRow("a request without MCP-Protocol-Version served fails", StatusFail,
			"a request without MCP-Protocol-Version: expected HTTP 400 with error -32020 (HeaderMismatch), got HTTP 200 with a result",
			func(p *headersPlan) { p.answers[probe.StepHeadersNoProtocolVersion] = served }),
		headersRow("served without MCP-Protocol-Version by a server that also speaks 2025-03-26 still fails", StatusFail,
			"a request without MCP-Protocol-Version", func(p *headersPlan) {
				p.discover = discoverWith20250326
				p.answers[probe.StepHeadersNoProtocolVersion] = served
			}),
		headersRow("refused as 2025-03-26 would by a server that speaks it passes", StatusPass, "got 400 with -32020",
			func(p *headersPlan) {
				p.discover = discoverWith20250326
				p.answers[probe.StepHeadersNoProtocolVersion] = httpError(400, `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Bad Request: Server not initialized"}}`)
			}),
		headersRow("refused with another code by a stateless-only server fails", StatusFail, "got HTTP 400 with JSON-RPC error -32000",
			func(p *headersPlan) {
				p.answers[probe.StepHeadersNoProtocolVersion] = httpError(400, `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Bad Request: Server not initialized"}}`)
			}),
		headersRow("a mismatched MCP-Protocol-Version naming an unsupported revision answered -32022 passes", StatusPass, "got 400 with -32020",
			func(p *headersPlan) { p.answers[probe.StepHeadersProtocolMismatch] = httpError(400, unsupported) }),
		headersRow("a mismatched MCP-Protocol-Version served fails", StatusFail, "MCP-Protocol-Version 2099-01-01 on a request whose _meta names the spoken revision",
			func(p *headersPlan) { p.answers[probe.StepHeadersProtocolMismatch] = served }),
		headersRow("a request without Mcp-Method served fails", StatusFail, "a request without Mcp-Method: expected HTTP 400",
			func(p *headersPlan) { p.answers[probe.StepHeadersNoMethod] = served }),
		headersRow("a mismatched Mcp-Method answered -32602 fails", StatusFail, "got HTTP 400 with JSON-RPC error -32602",
			func(p *headersPlan) {
				p.answers[probe.StepHeadersMethodMismatch] = httpError(400, `{"jsonrpc":"2.0","id":ID,"error":{"code":-32602,"message":"bad"}}`)
			}),
		headersRow("-32020 with HTTP 200 fails", StatusFail, "got HTTP 200 with JSON-RPC error -32020",
			func(p *headersPlan) { p.answers[probe.StepHeadersNoMethod] = jsonReply(headerMismatch) }),
		headersRow("a resources/read without Mcp-Name served fails", StatusFail, "a request without Mcp-Name",
			func(p *headersPlan) {
				p.answers[probe.StepHeadersNoName] = resultReply(`{"resultType":"complete","contents":[{"uri":"file:///notes.txt","text":"hi"}]}`)
			}),
		headersRow("a mismatched Mcp-Name served fails", StatusFail, "an Mcp-Name that is not the body's name",
			func(p *headersPlan) {
				p.answers[probe.StepHeadersNameMismatch] = resultReply(`{"resultType":"complete","contents":[{"uri":"file:///notes.txt","text":"hi"}]}`)
			}),
		headersRow("lowercase header names refused fails", StatusFail, "header names are case-insensitive; got HTTP 400 with JSON-RPC error -32020",
			func(p *headersPlan) { p.answers[probe.StepHeadersLowercase] = refused() }),
		headersRow("a server that lists nothing to read passes, saying Mcp-Name was not probed", StatusPass, "Mcp-Name was not probed",
			func(p *headersPlan) { p.unnamed = true }),
		headersRow("values padded with spaces refused fails", StatusFail, "whitespace around a field value is not part of it (RFC 9110 §5.5); got HTTP 400 with JSON-RPC error -32020",
			func(p *headersPlan) { p.answers[probe.StepHeadersPadded] = refused() }),
		headersRow("an https target, where nothing padded was sent, passes saying so", StatusPass, "values padded with spaces were not sent",
			func(p *headersPlan) { delete(p.answers, probe.StepHeadersPadded) }),
		{name: "a session-era server skips", res: sessionEraResult(), want: StatusSkip, msg: "a revision with sessions"},
		{name: "a stateless server over stdio skips", res: defaultStatelessPlan(protocol.TransportStdio).result(), want: StatusSkip, msg: "applies to the http transport only"},
		{name: "a stateless server without the probe's steps is untested", res: defaultStatelessPlan(protocol.TransportHTTP).result(), want: StatusUntested, msg: "the header probes were not sent"},
	})
}
