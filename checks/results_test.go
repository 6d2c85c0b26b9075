package checks

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// resultsPlan is a conformant stateless server's conversation for the checks of results,
// error codes and subscriptions, to be bent one way per row.
type resultsPlan struct {
	transport string
	discover  string
	// toolsPages answer tools/list page by page (a nextCursor in each but the last).
	toolsPages []string
	read       reply // resources/read of a listed resource (nil: not sent)
	unknown    reply // tools/call of an unknown tool
	readUnkn   reply // resources/read of an unknown URI (nil: not sent)
	// stream is what the server sends on the subscriptions/listen stream, in order (nil: no
	// subscription was opened).
	stream []string
}

const (
	discoverListens = `{"resultType":"complete","ttlMs":0,"cacheScope":"public","supportedVersions":["2026-07-28"],"capabilities":{"tools":{"listChanged":true},"resources":{}}}`
	readResult      = `{"resultType":"complete","ttlMs":1000,"cacheScope":"private","contents":[{"uri":"file:///a","text":"a"}]}`
	listenAck       = `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":ID},"notifications":{"toolsListChanged":true}}}`
	listenParams    = `{"notifications":{"toolsListChanged":true},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`
)

func defaultResultsPlan(transport string) *resultsPlan {
	return &resultsPlan{
		transport: transport, discover: discoverListens, toolsPages: []string{toolsPage2026},
		read:     resultReply(readResult),
		unknown:  errorReply(-32602, "unknown tool"),
		readUnkn: errorReply(-32602, "resource not found"),
		stream:   []string{listenAck},
	}
}

func (p *resultsPlan) result() *probe.Result {
	w := newWireScript(p.transport)
	w.res.Requested, w.res.Negotiated, w.res.ProtocolVersion = rev2026, rev2026, rev2026
	disc := w.call(probe.ConnMain, probe.StepDiscover, "server/discover", "1", metaParams, resultReply(p.discover))
	if disc.Outcome == probe.OutcomeOK {
		w.res.Discover = disc.Result
	}
	id := 2
	for i, page := range p.toolsPages {
		st := w.call(probe.ConnMain, probe.StepToolsList, "tools/list", fmt.Sprint(id), metaParams, resultReply(page))
		w.res.Steps[len(w.res.Steps)-1].Page = i + 1
		_ = st
		id++
	}
	w.call(probe.ConnMain, probe.StepUnknownTool, "tools/call", fmt.Sprint(id), metaParams, p.unknown)
	id++
	if p.read != nil {
		w.call(probe.ConnMain, probe.StepResourcesRead, "resources/read", fmt.Sprint(id), metaParams, p.read)
		id++
	}
	if p.readUnkn != nil {
		w.call(probe.ConnMain, probe.StepResourcesReadUnknown, "resources/read", fmt.Sprint(id), metaParams, p.readUnkn)
	}
	if p.stream != nil {
		w.call(probe.ConnSubscriptions, probe.StepSubscriptionsDiscover, "server/discover", "1", metaParams, resultReply(p.discover))
		req := w.out(probe.ConnSubscriptions, `{"jsonrpc":"2.0","id":2,"method":"subscriptions/listen","params":`+listenParams+`}`)
		st := probe.Step{Name: probe.StepSubscriptionsListen, Method: probe.MethodSubscriptionsListen, Conn: probe.ConnSubscriptions,
			ID: "2", Request: req, Response: -1, Outcome: probe.OutcomeNoAnswer}
		if w.http() {
			w.head(probe.ConnSubscriptions, 200, "text/event-stream", "")
		}
		for _, msg := range p.stream {
			var seq int
			if w.http() {
				seq = w.sse(probe.ConnSubscriptions, strings.ReplaceAll(msg, "ID", "2"), "")
			} else {
				seq = w.in(probe.ConnSubscriptions, strings.ReplaceAll(msg, "ID", "2"))
			}
			if st.Response < 0 {
				st.Response, st.Outcome = seq, probe.OutcomeSent
			}
		}
		w.note(probe.ConnSubscriptions, probe.NoteTimeout, "the probe ends the subscriptions/listen stream (id 2) after listening for it")
		w.res.Steps = append(w.res.Steps, st)
	}
	return w.res
}

func resultsRow(name, transport string, want Status, msg string, bend func(p *resultsPlan)) checkRow {
	p := defaultResultsPlan(transport)
	if bend != nil {
		bend(p)
	}
	return checkRow{name: name, res: p.result(), want: want, msg: msg}
}

// 2026-07-28 basic/patterns/mrtr, "Supported Requests": prompts/get, resources/read and
// tools/call support InputRequiredResult; "Servers MUST NOT send InputRequiredResult
// responses on any other client requests."
func TestInputRequired(t *testing.T) {
	const interim = `{"resultType":"input_required","requestState":"s"}`
	runCheckRows(t, "results.input-required", []checkRow{
		resultsRow("complete results pass", protocol.TransportHTTP, StatusPass, "none input_required where the revision forbids it", nil),
		resultsRow("tools/list answering input_required fails", protocol.TransportStdio, StatusFail,
			"tools/list: expected a complete result (only prompts/get, resources/read and tools/call may answer input_required)",
			func(p *resultsPlan) { p.toolsPages = []string{interim} }),
		resultsRow("server/discover answering input_required fails", protocol.TransportHTTP, StatusFail, "server/discover: expected a complete result",
			func(p *resultsPlan) { p.discover = interim; p.stream = nil }),
		// resources/read is among the supported requests: CHECKS.md's "resources/read of a
		// static resource" has no sentence behind it.
		resultsRow("resources/read answering input_required passes", protocol.TransportHTTP, StatusPass, "the 1 input_required among them answer requests that may ask for input",
			func(p *resultsPlan) { p.read = resultReply(interim) }),
		{name: "a session-era server skips", res: sessionEraResult(), want: StatusSkip, msg: "a revision with sessions"},
	})
}

// 2026-07-28 basic, "Error Codes": "Implementations of this protocol version MUST NOT emit
// these codes: -32002 ... -32042"; in -32020 to -32099 "Implementations MUST NOT emit any code
// from this sub-range that is not defined by this specification and MUST use defined codes
// only with their specified meanings"; -32000 to -32019: "new implementations SHOULD NOT use
// codes from this sub-range at all"; "New error codes ... SHOULD be allocated outside the
// JSON-RPC reserved range (-32768 to -32000)".
func TestErrorCodes(t *testing.T) {
	unknownGets := func(code int) func(p *resultsPlan) {
		return func(p *resultsPlan) { p.unknown = errorReply(code, "unknown tool") }
	}
	runCheckRows(t, "errors.codes", []checkRow{
		resultsRow("JSON-RPC codes pass", protocol.TransportHTTP, StatusPass, "1 error codes", nil),
		resultsRow("-32002 fails", protocol.TransportStdio, StatusFail, "tools/call got error -32002 (ResourceNotFound), a code of an earlier revision", unknownGets(-32002)),
		resultsRow("-32042 fails", protocol.TransportHTTP, StatusFail, "got error -32042 (URLElicitationRequired)", unknownGets(-32042)),
		resultsRow("an undefined code of MCP's range fails", protocol.TransportHTTP, StatusFail, "got error -32023, in the range -32099…-32020", unknownGets(-32023)),
		resultsRow("-32020 over stdio fails", protocol.TransportStdio, StatusFail, "over stdio, which has no headers", unknownGets(-32020)),
		resultsRow("-32021 passes", protocol.TransportStdio, StatusPass, "1 error codes", unknownGets(-32021)),
		resultsRow("a legacy code warns", protocol.TransportHTTP, StatusWarn, "got error -32001, in the legacy range", unknownGets(-32001)),
		resultsRow("a reserved JSON-RPC code warns", protocol.TransportHTTP, StatusWarn, "in JSON-RPC's reserved range", unknownGets(-32500)),
		resultsRow("the server's own code outside the reserved range passes", protocol.TransportHTTP, StatusPass, "1 error codes", unknownGets(-1)),
		resultsRow("-32002 to resources/read of an unknown URI is resources.read-unknown's", protocol.TransportHTTP, StatusPass, "1 error codes",
			func(p *resultsPlan) { p.readUnkn = errorReply(-32002, "resource not found") }),
		{name: "a session-era server skips", res: sessionEraResult(), want: StatusSkip, msg: "a revision with sessions"},
	})
}

// 2026-07-28 server/utilities/caching: "Servers MUST include caching hints on results with
// resultType: "complete" returned by ... resources/read"; "Servers MUST apply the same
// cacheScope to all response pages for a given list request"; interim results "carry no
// caching hints".
func TestCacheHintsOfReadsAndPages(t *testing.T) {
	page := func(scope string, more bool) string {
		next := ""
		if more {
			next = `,"nextCursor":"c"`
		}
		return `{"resultType":"complete","ttlMs":10,"cacheScope":"` + scope + `","tools":[]` + next + `}`
	}
	runCheckRows(t, "results.cache-hints", []checkRow{
		resultsRow("hints on lists and reads pass", protocol.TransportHTTP, StatusPass, "1 resources/read results", nil),
		resultsRow("a read without hints fails", protocol.TransportStdio, StatusFail, "resources/read: expected ttlMs",
			func(p *resultsPlan) { p.read = resultReply(`{"resultType":"complete","contents":[]}`) }),
		resultsRow("a negative ttlMs on a read fails", protocol.TransportStdio, StatusFail, "expected ttlMs (an integer >= 0), got -1",
			func(p *resultsPlan) {
				p.read = resultReply(`{"resultType":"complete","ttlMs":-1,"cacheScope":"public","contents":[]}`)
			}),
		resultsRow("pages of one scope pass", protocol.TransportHTTP, StatusPass, "one scope across the pages",
			func(p *resultsPlan) { p.toolsPages = []string{page("private", true), page("private", false)} }),
		resultsRow("a page of another scope fails", protocol.TransportHTTP, StatusFail, "tools/list (page 2): expected the cacheScope of page 1 (public) on every page of the listing, got private",
			func(p *resultsPlan) { p.toolsPages = []string{page("public", true), page("private", false)} }),
		resultsRow("an input_required read carries no hints and passes", protocol.TransportHTTP, StatusPass, "each with ttlMs and cacheScope",
			func(p *resultsPlan) { p.read = resultReply(`{"resultType":"input_required","requestState":"s"}`) }),
	})
}

// 2026-07-28 basic/patterns/subscriptions, "Acknowledgment": "The server MUST send
// notifications/subscriptions/acknowledged as the first message carrying the subscription's
// ID in _meta under io.modelcontextprotocol/subscriptionId, and MUST NOT send any
// notification on the subscription before it"; "Opening a Stream": "The server MUST NOT send
// notification types the client has not explicitly requested."
func TestSubscriptionsListen(t *testing.T) {
	const (
		toolsChanged   = `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":2}}}`
		promptsChanged = `{"jsonrpc":"2.0","method":"notifications/prompts/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":2}}}`
		closed         = `{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":2}}}`
	)
	runCheckRows(t, "subscriptions.listen", []checkRow{
		resultsRow("an acknowledgement alone passes", protocol.TransportHTTP, StatusPass, "was acknowledged first with its subscriptionId", nil),
		resultsRow("the asked-for notification after the acknowledgement passes", protocol.TransportStdio, StatusPass, "none not asked for",
			func(p *resultsPlan) { p.stream = []string{listenAck, toolsChanged, closed} }),
		resultsRow("a notification before the acknowledgement fails", protocol.TransportHTTP, StatusFail,
			"expected notifications/subscriptions/acknowledged first, got notifications/tools/list_changed before it",
			func(p *resultsPlan) { p.stream = []string{toolsChanged, listenAck} }),
		resultsRow("an acknowledgement with another subscriptionId fails", protocol.TransportStdio, StatusFail, "expected the acknowledgement's _meta.io.modelcontextprotocol/subscriptionId to be 2, got 7",
			func(p *resultsPlan) { p.stream = []string{strings.ReplaceAll(listenAck, "ID", "7")} }),
		resultsRow("a notification type not asked for fails", protocol.TransportHTTP, StatusFail, "expected only those notifications, got notifications/prompts/list_changed",
			func(p *resultsPlan) { p.stream = []string{listenAck, promptsChanged} }),
		resultsRow("no acknowledgement at all fails", protocol.TransportHTTP, StatusFail, "expected notifications/subscriptions/acknowledged first",
			func(p *resultsPlan) { p.stream = []string{} }),
		resultsRow("a server declaring no listChanged skips", protocol.TransportHTTP, StatusSkip, "declares no listChanged",
			func(p *resultsPlan) { p.discover = discoverOnly; p.stream = nil }),
	})
}
