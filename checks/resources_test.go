package checks

import (
	"strings"
	"testing"

	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

const (
	resourcesInit   = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"resources":{"subscribe":true}},"serverInfo":{"name":"fixture","version":"1.0.0"}}`
	noSubscribeInit = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"resources":{}},"serverInfo":{"name":"fixture","version":"1.0.0"}}`
	resourcesPage   = `{"resources":[{"uri":"file:///a.txt","name":"a","mimeType":"text/plain"},{"uri":"file:///p.png","name":"p","mimeType":"image/png"}]}`
	unknownURI      = `{"uri":"mcpwatch://unknown/0123456789abcdef"}`
	textContents    = `{"contents":[{"uri":"file:///a.txt","mimeType":"text/plain","text":"hello"}]}`
	blobContents    = `{"contents":[{"uri":"file:///p.png","mimeType":"image/png","blob":"iVBORw0KGgo="}]}`
	notFound32002   = `{"jsonrpc":"2.0","id":ID,"error":{"code":-32002,"message":"Resource not found","data":{"uri":"mcpwatch://unknown/0123456789abcdef"}}}`
)

// resourceSession scripts a session-era server that declares resources (init), lists
// resourcesPage and answers the probe's resource requests as given (nil: not sent).
type resourceAnswers struct {
	init                    string
	list                    reply
	text, blob, unknown     reply
	subscribe, unsubscribes reply
}

func resourceSession(transport string, a resourceAnswers) *probe.Result {
	if a.init == "" {
		a.init = resourcesInit
	}
	if a.list == nil {
		a.list = resultReply(resourcesPage)
	}
	return scriptedSession(transport, func(p *sessionPlan) {
		p.initResult = a.init
		p.answers[probe.StepResourcesList] = a.list
		p.atEnd = func(w *wireScript, next func() string) {
			if a.text != nil {
				w.call(probe.ConnMain, probe.StepResourcesRead, "resources/read", next(), `{"uri":"file:///a.txt"}`, a.text)
			}
			if a.blob != nil {
				w.call(probe.ConnMain, probe.StepResourcesRead, "resources/read", next(), `{"uri":"file:///p.png"}`, a.blob)
			}
			if a.unknown != nil {
				w.call(probe.ConnMain, probe.StepResourcesReadUnknown, "resources/read", next(), unknownURI, a.unknown)
			}
			if a.subscribe != nil {
				w.call(probe.ConnMain, probe.StepResourcesSubscribe, "resources/subscribe", next(), `{"uri":"file:///a.txt"}`, a.subscribe)
			}
			if a.unsubscribes != nil {
				w.call(probe.ConnMain, probe.StepResourcesUnsubscribe, "resources/unsubscribe", next(), `{"uri":"file:///a.txt"}`, a.unsubscribes)
			}
		}
	})
}

// readRows: server/resources "Reading Resources" answers with "contents" whose items are
// TextResourceContents or BlobResourceContents (uri required; text or blob); the blob is "A
// base64-encoded string" and "Binary data MUST be properly encoded" (Security Considerations).
func TestResourceRead(t *testing.T) {
	ok := resourceAnswers{text: resultReply(textContents), blob: resultReply(blobContents)}
	bent := func(edit func(a *resourceAnswers)) resourceAnswers {
		a := ok
		edit(&a)
		return a
	}
	rows := []checkRow{
		{name: "text and blob contents pass", want: StatusPass, msg: "2 listed resources read",
			res: resourceSession(protocol.TransportStdio, ok)},
		{name: "over HTTP too", want: StatusPass, msg: "2 listed resources read",
			res: resourceSession(protocol.TransportHTTP, ok)},
		{name: "a blob that is not base64 fails (MUST be properly encoded)", want: StatusFail, msg: "contents[0] has a blob that is not valid base64",
			res: resourceSession(protocol.TransportStdio, bent(func(a *resourceAnswers) {
				a.blob = resultReply(`{"contents":[{"uri":"file:///p.png","blob":"iVBORw0KGgo_-"}]}`)
			}))},
		{name: "a content without uri fails (the schema requires uri)", want: StatusFail, msg: "contents[0] has no uri",
			res: resourceSession(protocol.TransportHTTP, bent(func(a *resourceAnswers) {
				a.text = resultReply(`{"contents":[{"mimeType":"text/plain","text":"hello"}]}`)
			}))},
		{name: "neither text nor blob fails", want: StatusFail, msg: "contents[0] has neither text nor blob",
			res: resourceSession(protocol.TransportStdio, bent(func(a *resourceAnswers) {
				a.text = resultReply(`{"contents":[{"uri":"file:///a.txt"}]}`)
			}))},
		{name: "no contents array fails", want: StatusFail, msg: "expected a contents array, got none",
			res: resourceSession(protocol.TransportStdio, bent(func(a *resourceAnswers) { a.text = resultReply(`{"text":"hello"}`) }))},
		{name: "empty contents of a listed resource is advice (no sentence forbids it)", want: StatusWarn, msg: "returned no contents",
			res: resourceSession(protocol.TransportStdio, bent(func(a *resourceAnswers) { a.text = resultReply(`{"contents":[]}`) }))},
		{name: "an error for a listed resource is advice", want: StatusWarn, msg: "got JSON-RPC error -32603",
			res: resourceSession(protocol.TransportStdio, bent(func(a *resourceAnswers) { a.text = errorReply(-32603, "disk on fire") }))},
		{name: "no answer to any read is untested", want: StatusUntested, msg: "got no answer within the timeout",
			res: resourceSession(protocol.TransportStdio, resourceAnswers{text: noReply()})},
		{name: "resources/list failed", want: StatusUntested, msg: "resources/list failed (JSON-RPC error -32603)",
			res: resourceSession(protocol.TransportStdio, resourceAnswers{list: errorReply(-32603, "busy")})},
		{name: "nothing listed", want: StatusSkip, msg: "the server lists no resources",
			res: resourceSession(protocol.TransportStdio, resourceAnswers{list: resultReply(`{"resources":[]}`)})},
		{name: "listed but never read", want: StatusUntested, msg: "resources/read of a listed resource was not sent",
			res: resourceSession(protocol.TransportStdio, resourceAnswers{})},
		{name: "no resources capability", want: StatusSkip, msg: "server declares no resources capability",
			res: scriptedSession(protocol.TransportStdio)},
	}
	runResourceRows(t, "resources.read", rows)
}

// Up to 2025-11-25, server/resources "Error Handling": "Servers SHOULD return standard JSON-RPC
// errors for common failure cases: Resource not found: -32002".
func TestResourceReadUnknownInTheSessionEra(t *testing.T) {
	rows := []checkRow{
		{name: "-32002 passes", want: StatusPass, msg: `got JSON-RPC error -32002 "Resource not found"`,
			res: resourceSession(protocol.TransportStdio, resourceAnswers{unknown: jsonReply(notFound32002)})},
		{name: "-32602 warns (SHOULD -32002)", want: StatusWarn, msg: "expected error -32002 (Resource not found), got JSON-RPC error -32602",
			res: resourceSession(protocol.TransportHTTP, resourceAnswers{unknown: errorReply(-32602, "no such resource")})},
		{name: "a result warns", want: StatusWarn, msg: `got a result {"contents":[]}`,
			res: resourceSession(protocol.TransportStdio, resourceAnswers{unknown: resultReply(`{"contents":[]}`)})},
		{name: "an HTTP 404 with the error body is judged by its code", want: StatusPass, msg: "got JSON-RPC error -32002",
			res: resourceSession(protocol.TransportHTTP, resourceAnswers{unknown: httpError(404, notFound32002)})},
		{name: "never sent", want: StatusUntested, msg: "resources/read of a URI the server never listed was not sent",
			res: resourceSession(protocol.TransportStdio, resourceAnswers{})},
		{name: "no resources capability", want: StatusSkip, msg: "server declares no resources capability",
			res: scriptedSession(protocol.TransportStdio)},
	}
	runResourceRows(t, "resources.read-unknown", rows)
}

// statelessUnknownRead is a 2026-07-28 server that declares resources, whose answer to the
// read of an unlisted URI is answer.
func statelessUnknownRead(transport string, answer reply) *probe.Result {
	w := newWireScript(transport)
	w.res.Requested, w.res.Negotiated, w.res.ProtocolVersion = rev2026, rev2026, rev2026
	disc := w.call(probe.ConnMain, probe.StepDiscover, "server/discover", "1", metaParams,
		resultReply(`{"resultType":"complete","ttlMs":0,"cacheScope":"public","supportedVersions":["2026-07-28"],"capabilities":{"resources":{}}}`))
	w.res.Discover = disc.Result
	w.call(probe.ConnMain, probe.StepResourcesList, "resources/list", "2", metaParams,
		resultReply(`{"resultType":"complete","ttlMs":0,"cacheScope":"public","resources":[]}`))
	w.call(probe.ConnMain, probe.StepResourcesReadUnknown, "resources/read", "3",
		`{"uri":"mcpwatch://unknown/0123456789abcdef","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`, answer)
	return w.res
}

// 2026-07-28 server/resources "Error Handling": "If the requested resource does not exist,
// servers MUST return a JSON-RPC error with code -32602 (Invalid Params)" and "Servers MUST
// NOT return an empty contents array for a non-existent resource"; the example's data
// {"uri": ...} carries no keyword (advice).
func TestResourceReadUnknownInTheStatelessRevision(t *testing.T) {
	rows := []checkRow{
		{name: "-32602 with data.uri passes", want: StatusPass, msg: "with the uri in its data",
			res: statelessUnknownRead(protocol.TransportHTTP, httpError(400, `{"jsonrpc":"2.0","id":ID,"error":{"code":-32602,"message":"Resource not found","data":{"uri":"mcpwatch://unknown/0123456789abcdef"}}}`))},
		{name: "-32602 without data is advice", want: StatusWarn, msg: "without the uri in its data",
			res: statelessUnknownRead(protocol.TransportStdio, errorReply(-32602, "Resource not found"))},
		{name: "-32002 fails (MUST -32602)", want: StatusFail, msg: "got -32002, the code of the revisions before 2026-07-28",
			res: statelessUnknownRead(protocol.TransportStdio, jsonReply(notFound32002))},
		{name: "empty contents fails (MUST NOT)", want: StatusFail, msg: "got an empty contents array",
			res: statelessUnknownRead(protocol.TransportStdio, resultReply(`{"resultType":"complete","contents":[],"ttlMs":0,"cacheScope":"public"}`))},
		{name: "another code fails", want: StatusFail, msg: "got JSON-RPC error -32603",
			res: statelessUnknownRead(protocol.TransportStdio, errorReply(-32603, "oops"))},
	}
	runResourceRows(t, "resources.read-unknown", rows)
}

// resources.subscribe: server/resources "Capabilities": subscribe is "whether the client can
// subscribe to be notified of changes to individual resources"; JSON-RPC 2.0 §5: "the Server
// MUST reply with a Response"; the schema's EmptyResult is "A response that indicates success
// but carries no data".
func TestResourceSubscribe(t *testing.T) {
	ok := resourceAnswers{subscribe: resultReply(`{}`), unsubscribes: resultReply(`{}`)}
	rows := []checkRow{
		{name: "empty results pass", want: StatusPass, msg: `resources/subscribe and resources/unsubscribe of "file:///a.txt" both got an empty result`,
			res: resourceSession(protocol.TransportStdio, ok)},
		{name: "_meta is allowed", want: StatusPass, msg: "both got an empty result",
			res: resourceSession(protocol.TransportHTTP, resourceAnswers{subscribe: resultReply(`{"_meta":{"x":1}}`), unsubscribes: resultReply(`{}`)})},
		{name: "an error to subscribe fails", want: StatusFail, msg: `resources/subscribe of "file:///a.txt": expected an empty result {}, got JSON-RPC error -32601`,
			res: resourceSession(protocol.TransportStdio, resourceAnswers{subscribe: errorReply(-32601, "Method not found")})},
		{name: "an error to unsubscribe fails", want: StatusFail, msg: "resources/unsubscribe of",
			res: resourceSession(protocol.TransportStdio, resourceAnswers{subscribe: resultReply(`{}`), unsubscribes: errorReply(-32603, "oops")})},
		{name: "no answer fails (MUST reply)", want: StatusFail, msg: "got no answer within the timeout",
			res: resourceSession(protocol.TransportStdio, resourceAnswers{subscribe: noReply(), unsubscribes: resultReply(`{}`)})},
		{name: "a result that is not an object fails", want: StatusFail, msg: "got a JSON array []",
			res: resourceSession(protocol.TransportStdio, resourceAnswers{subscribe: resultReply(`[]`)})},
		{name: "data in the result is advice", want: StatusWarn, msg: `got {"subscribed":true}`,
			res: resourceSession(protocol.TransportStdio, resourceAnswers{subscribe: resultReply(`{"subscribed":true}`), unsubscribes: resultReply(`{}`)})},
		{name: "subscribe not declared", want: StatusSkip, msg: "server does not declare resources.subscribe",
			res: resourceSession(protocol.TransportStdio, resourceAnswers{init: noSubscribeInit})},
		{name: "nothing listed", want: StatusSkip, msg: "the server lists no resources",
			res: resourceSession(protocol.TransportStdio, resourceAnswers{list: resultReply(`{"resources":[]}`)})},
		{name: "never sent", want: StatusUntested, msg: "resources/subscribe of a listed resource was not sent",
			res: resourceSession(protocol.TransportStdio, resourceAnswers{})},
		{name: "2026-07-28 removed it", want: StatusSkip, msg: "2026-07-28 has no resources/subscribe",
			res: statelessUnknownRead(protocol.TransportStdio, errorReply(-32602, "x"))},
	}
	runResourceRows(t, "resources.subscribe", rows)
}

func runResourceRows(t *testing.T, id string, rows []checkRow) {
	t.Helper()
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			reg, err := NewRegistry(resourceChecks()...)
			if err != nil {
				t.Fatal(err)
			}
			c, _ := reg.Lookup(id)
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
			}
		})
	}
}

func TestResourceChecksAreCatalogued(t *testing.T) {
	reg, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"resources.read", "resources.read-unknown", "resources.subscribe"} {
		c, ok := reg.Lookup(id)
		if !ok || c.Doc == nil || c.Area != "resources" {
			t.Errorf("%s: registered %v, doc %v", id, ok, c.Doc)
		}
	}
}
