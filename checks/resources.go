package checks

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpwatch/mcpwatch/jsondoc"
	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// resourceChecks judge what the main session reads of a server that declares resources:
// resources/read of listed resources, of a URI never listed, and a subscription undone.
func resourceChecks() []Check {
	return []Check{
		{ID: "resources.read", Area: "resources", Rule: "A1", Spec: specResources + "#reading-resources",
			Title:    "resources/read of a listed resource returns a ReadResourceResult: contents with a uri and text or a base64 blob",
			Evaluate: checkResourceRead},
		{ID: "resources.read-unknown", Area: "resources", Rule: "B", Spec: specResources + "#error-handling",
			Title:    "resources/read of a URI the server never listed gets the resource-not-found error of the revision",
			Evaluate: checkResourceReadUnknown},
		{ID: "resources.subscribe", Area: "resources", Rule: "C5", Spec: specResources + "#subscriptions",
			Title:    "a server that declares resources.subscribe answers resources/subscribe and resources/unsubscribe of a listed resource with an empty result",
			Evaluate: checkResourceSubscribe},
	}
}

// resourcesDeclared skips a check when the server declares no resources capability.
func resourcesDeclared(r *Capture, f *Finding) bool {
	switch _, handshake := r.Handshake(); {
	case handshake == probe.HandshakeNone:
		f.Untested("no initialize or discover result, so no declared capabilities to judge resources by")
	case !r.Declares("resources"):
		f.Skip("server declares no resources capability")
	default:
		return true
	}
	return false
}

// resourceListing is what the main session's resources/list pages said.
type resourceListing struct {
	sent   bool
	failed *probe.Step // the first page that got no result
	uris   []string
}

func listedResources(r *Capture) resourceListing {
	var l resourceListing
	for _, st := range stepsOn(r, probe.ConnMain, probe.StepResourcesList) {
		l.sent = true
		if st.Outcome != probe.OutcomeOK {
			if l.failed == nil {
				st := st
				l.failed = &st
			}
			continue
		}
		var page struct {
			Resources []json.RawMessage `json:"resources"`
		}
		if json.Unmarshal(st.Result, &page) != nil {
			continue
		}
		for _, raw := range page.Resources {
			var item struct {
				URI string `json:"uri"`
			}
			if json.Unmarshal(raw, &item) == nil && item.URI != "" {
				l.uris = append(l.uris, item.URI)
			}
		}
	}
	return l
}

// noListedResource says why a probe that needs a listed resource has none: untested when
// the listing was not sent or failed, skipped when it lists nothing. ok is true when the
// server lists some.
func noListedResource(r *Capture, f *Finding, l resourceListing, what string) (ok bool) {
	switch {
	case len(l.uris) > 0:
		return true
	case !l.sent:
		f.notJudged(stoppedHere(r), "%s: resources/list was never sent: %s", what, probeStopped(r))
	case l.failed != nil:
		f.Untested("%s: resources/list failed (%s), so no resource was known", what, describeStep(*l.failed))
	default:
		f.Skip("%s: the server lists no resources", what)
	}
	return false
}

// requestedURI is the quoted uri a resources step asked for.
func requestedURI(r *Capture, st probe.Step) string {
	if uri := askedURI(r, st); uri != "" {
		return quoteName(uri)
	}
	return "a resource"
}

// askedURI is the uri a resources step asked for, "" when its request has none.
func askedURI(r *Capture, st probe.Step) string {
	m := r.Message(st.Request)
	if m == nil {
		return ""
	}
	var p struct {
		URI string `json:"uri"`
	}
	_ = json.Unmarshal(m.Params, &p)
	return p.URI
}

// checkResourceRead judges each read of a listed resource. The result's shape is the
// schema's ReadResourceResult (every message "MUST" be a valid MCP message), and a blob is
// base64 ("Binary data MUST be properly encoded", server/resources, Security
// Considerations). An empty contents array and an error answer break no sentence of the
// specification about a listed resource: they are advice. The 2026-07-28 result members
// (resultType, cache hints) and an input_required answer have checks of their own.
func checkResourceRead(r *Capture, f *Finding) {
	if !resourcesDeclared(r, f) {
		return
	}
	reads := stepsOn(r, probe.ConnMain, probe.StepResourcesRead)
	if len(reads) == 0 {
		if noListedResource(r, f, listedResources(r), "no resource was read") {
			f.notJudged(stoppedHere(r), "resources/read of a listed resource was not sent: %s", probeStopped(r))
		}
		return
	}
	judged, unanswered := 0, ""
	for _, st := range reads {
		uri := requestedURI(r, st)
		frames := Seqs(st.Request, st.Response)
		m := exchangeAnswer(r, st)
		switch {
		case m != nil && m.Kind == ErrorResponse:
			judged++
			f.Advise(frames, "resources/read of %s, which the server lists, got %s instead of its contents", uri, describeError(m))
		case m != nil && m.Kind == ResultResponse:
			if r.Stateless() && resultTypeOf(m.Result) == "input_required" {
				// results.input-required judges it.
				unanswered = fmt.Sprintf("resources/read of %s asked for input (resultType input_required)", uri)
				continue
			}
			judged++
			judgeReadResult(f, frames, uri, m.Result)
		default:
			unanswered = fmt.Sprintf("resources/read of %s got %s", uri, describeAnswer(r, st))
		}
	}
	if judged == 0 {
		f.Untested("%s", unanswered)
		return
	}
	f.Pass("%d listed %s read: each answer is a ReadResourceResult whose contents have a uri and text or a base64 blob", judged, plural("resource", judged))
}

// resultTypeOf is the resultType member of a result, "" when it has none.
func resultTypeOf(result json.RawMessage) string {
	members, _ := objectMembers(result)
	s, _ := jsondoc.Str(members["resultType"])
	return s
}

// judgeReadResult records what is wrong with one ReadResourceResult.
func judgeReadResult(f *Finding, frames []int, uri string, result json.RawMessage) {
	members, ok := objectMembers(result)
	if !ok {
		f.Fail(frames, "resources/read of %s: expected a ReadResourceResult object, got a JSON %s %s", uri, jsonType(result), clipJSON(result))
		return
	}
	contents, ok := members["contents"]
	if !ok || jsonType(contents) != "array" {
		f.Fail(frames, "resources/read of %s: expected a contents array, got %s", uri, describeMember(contents))
		return
	}
	var items []json.RawMessage
	_ = json.Unmarshal(contents, &items)
	if len(items) == 0 {
		f.Advise(frames, "resources/read of %s, which the server lists, returned no contents (an empty contents array)", uri)
		return
	}
	for i, item := range items {
		if problem := resourceContentsProblem(item); problem != "" {
			f.Fail(frames, "resources/read of %s: contents[%d] %s: %s", uri, i, problem, clipJSON(item))
		}
	}
}

// describeMember names a member's value for a message, "none" when it is missing.
func describeMember(raw json.RawMessage) string {
	if raw == nil {
		return "none"
	}
	return "a JSON " + jsonType(raw) + " " + clipJSON(raw)
}

// resourceContentsProblem says what makes one item of contents neither a
// TextResourceContents nor a BlobResourceContents ("" when it is one of them).
func resourceContentsProblem(item json.RawMessage) string {
	m, ok := objectMembers(item)
	if !ok {
		return "is not an object"
	}
	if uri, ok := m["uri"]; !ok {
		return "has no uri"
	} else if jsonType(uri) != "string" {
		return "has a uri that is not a string"
	}
	if mt, ok := m["mimeType"]; ok && jsonType(mt) != "string" {
		return "has a mimeType that is not a string"
	}
	text, hasText := m["text"]
	blob, hasBlob := m["blob"]
	switch {
	case !hasText && !hasBlob:
		return "has neither text nor blob"
	case hasText && jsonType(text) != "string" && !hasBlob:
		return "has a text that is not a string"
	case hasBlob && jsonType(blob) != "string" && !hasText:
		return "has a blob that is not a string"
	case hasBlob && jsonType(blob) == "string":
		if s, _ := jsondoc.Str(blob); !isBase64(s) {
			return "has a blob that is not valid base64"
		}
	}
	return ""
}

// checkResourceReadUnknown judges the read of a URI the server never listed. Up to
// 2025-11-25 the resources page says "Servers SHOULD return standard JSON-RPC errors for
// common failure cases: Resource not found: -32002" (a warning); 2026-07-28 says "servers
// MUST return a JSON-RPC error with code -32602" and "MUST NOT return an empty contents
// array for a non-existent resource" (an error). Its example echoes the uri in data, which
// no keyword requires: advice.
func checkResourceReadUnknown(r *Capture, f *Finding) {
	if !resourcesDeclared(r, f) {
		return
	}
	st, ok := stepOn(r, probe.ConnMain, probe.StepResourcesReadUnknown)
	if !ok {
		f.notJudged(stoppedHere(r), "resources/read of a URI the server never listed was not sent: %s", probeStopped(r))
		return
	}
	uri := requestedURI(r, st)
	frames := Seqs(st.Request, st.Response)
	m := exchangeAnswer(r, st)
	if r.Stateless() {
		judgeUnknownReadStateless(r, f, st, m, uri, frames)
		return
	}
	switch {
	case m != nil && m.Kind == ErrorResponse:
		if code, ok := errorCode(m); ok {
			f.Data = map[string]any{"code": code}
			if code == protocol.CodeResourceNotFound {
				f.Pass("resources/read of %s, which the server never listed, got %s", uri, describeError(m))
				return
			}
		}
		f.Warn(frames, "resources/read of %s, which the server never listed: expected error -32002 (Resource not found), got %s", uri, describeError(m))
	case m != nil && m.Kind == ResultResponse:
		f.Warn(frames, "resources/read of %s, which the server never listed: expected error -32002 (Resource not found), got a result %s", uri, clipJSON(m.Result))
	default:
		f.Warn(frames, "resources/read of %s, which the server never listed: expected error -32002 (Resource not found), got %s", uri, describeAnswer(r, st))
	}
}

func judgeUnknownReadStateless(r *Capture, f *Finding, st probe.Step, m *Message, uri string, frames []int) {
	const want = "expected error -32602 (Invalid Params)"
	switch {
	case m != nil && m.Kind == ErrorResponse:
		code, ok := errorCode(m)
		if ok {
			f.Data = map[string]any{"code": code}
		}
		switch {
		case ok && code == protocol.CodeInvalidParams:
			if echoed, data := errorDataURI(m, askedURI(r, st)); !echoed {
				f.Advise(frames, "resources/read of %s got -32602 without the uri in its data (the spec's example has data {\"uri\": ...}), data %s", uri, data)
				return
			}
			f.Pass("resources/read of %s, which the server never listed, got %s with the uri in its data", uri, describeError(m))
		case ok && code == protocol.CodeResourceNotFound:
			f.Fail(frames, "resources/read of %s, which the server never listed: %s, got -32002, the code of the revisions before %s", uri, want, r.Revision())
		default:
			f.Fail(frames, "resources/read of %s, which the server never listed: %s, got %s", uri, want, describeError(m))
		}
	case m != nil && m.Kind == ResultResponse:
		members, _ := objectMembers(m.Result)
		var contents []json.RawMessage
		if c, ok := members["contents"]; ok && json.Unmarshal(c, &contents) == nil && len(contents) == 0 {
			f.Fail(frames, "resources/read of %s, which the server never listed: %s, got an empty contents array, which servers MUST NOT return for a resource that does not exist", uri, want)
			return
		}
		f.Fail(frames, "resources/read of %s, which the server never listed: %s, got a result %s", uri, want, clipJSON(m.Result))
	default:
		f.Fail(frames, "resources/read of %s, which the server never listed: %s, got %s", uri, want, describeAnswer(r, st))
	}
}

// errorDataURI reports whether an error's data echoes the uri asked for, and shows the data.
func errorDataURI(m *Message, asked string) (bool, string) {
	members, _ := objectMembers(m.Error)
	data := members["data"]
	var d struct {
		URI string `json:"uri"`
	}
	if data == nil || json.Unmarshal(data, &d) != nil || d.URI != asked {
		return false, describeMember(data)
	}
	return true, clipJSON(data)
}

// checkResourceSubscribe judges resources/subscribe then resources/unsubscribe of the first
// listed resource, sent only when resources.subscribe is declared ("whether the client can
// subscribe to be notified of changes to individual resources"). Each is a request the
// server "MUST reply" to (JSON-RPC 2.0 §5) and whose answer is the schema's EmptyResult:
// an error, or a result that is not an object, fails; members besides _meta, which the
// schema's Result admits, are advice.
func checkResourceSubscribe(r *Capture, f *Finding) {
	if r.Stateless() {
		f.Skip("%s has no resources/subscribe (subscriptions/listen replaced it)", r.Revision())
		return
	}
	if !resourcesDeclared(r, f) {
		return
	}
	if value, _ := r.Capability("resources"); !declaresTrue(value, "subscribe") {
		f.Skip("server does not declare resources.subscribe")
		return
	}
	sub, ok := stepOn(r, probe.ConnMain, probe.StepResourcesSubscribe)
	if !ok {
		if noListedResource(r, f, listedResources(r), "nothing was subscribed to") {
			f.notJudged(stoppedHere(r), "resources/subscribe of a listed resource was not sent: %s", probeStopped(r))
		}
		return
	}
	uri := requestedURI(r, sub)
	if !judgeEmptyResult(r, f, sub, "resources/subscribe of "+uri) {
		return
	}
	unsub, ok := stepOn(r, probe.ConnMain, probe.StepResourcesUnsubscribe)
	if !ok {
		f.notJudged(stoppedHere(r), "resources/unsubscribe was not sent: %s", probeStopped(r))
		return
	}
	if !judgeEmptyResult(r, f, unsub, "resources/unsubscribe of "+uri) {
		return
	}
	f.Pass("resources/subscribe and resources/unsubscribe of %s both got an empty result", uri)
}

// judgeEmptyResult records what is wrong with the answer to a request whose result is the
// schema's EmptyResult; ok is false when the answer was no result object.
func judgeEmptyResult(r *Capture, f *Finding, st probe.Step, what string) (ok bool) {
	frames := Seqs(st.Request, st.Response)
	m := exchangeAnswer(r, st)
	if m == nil || m.Kind != ResultResponse {
		f.Fail(frames, "%s: expected an empty result {}, got %s", what, describeAnswer(r, st))
		return false
	}
	members, isObject := objectMembers(m.Result)
	if !isObject {
		f.Fail(frames, "%s: expected an empty result {}, got a JSON %s %s", what, jsonType(m.Result), clipJSON(m.Result))
		return false
	}
	delete(members, "_meta")
	if len(members) > 0 {
		f.Advise(frames, "%s: expected an empty result {}, got %s (the schema's EmptyResult \"carries no data\")", what, clipJSON(m.Result))
	}
	return true
}

// declaresTrue reports whether a capability object has a member set to true.
func declaresTrue(capability json.RawMessage, member string) bool {
	members, _ := objectMembers(capability)
	return strings.TrimSpace(string(members[member])) == "true"
}
