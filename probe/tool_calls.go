package probe

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/paramheader"
	"github.com/mcpwatch/mcpwatch/jsondoc"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// CallStepPrefix starts the step name of an opt-in tool call: call:<tool>, with #2, #3...
// for a tool called again, and CallInvalidSuffix for the call with arguments that break the
// tool's inputSchema.
const (
	CallStepPrefix    = "call:"
	CallInvalidSuffix = ":invalid-arguments"
	// CallCancelSuffix names the notifications/cancelled the probe sends for a call that
	// got no answer within its timeout (the call's step name, then this).
	CallCancelSuffix = ":cancelled"
)

// ToolCall is one opt-in tools/call of a calls file (prober check --calls): the probe sends
// it only when asked, and only for a tool the server lists.
type ToolCall struct {
	Tool string
	// Arguments is a JSON object, secrets from the environment already in it (the caller
	// redacts them from what it shows).
	Arguments json.RawMessage
	// Timeout bounds the call; 0 takes Options.RequestTimeout.
	Timeout time.Duration
	// InvalidArguments allows one more call whose arguments break the tool's inputSchema.
	InvalidArguments bool
	// Expect is what the file expects of the result; the probe carries it to the checks
	// without judging it.
	Expect *CallExpect
	// NotSent, when set, says why the caller could not make the call (an argument's
	// environment variable is not set): the probe records it not sent, with that reason.
	NotSent string
}

// CallExpect is what a calls file expects of a tool's result (tools.call-expectations).
type CallExpect struct {
	IsError      *bool
	TextContains string
	// Pointer is a JSON Pointer into structuredContent, with Equals (JSON) or Matches (a
	// regular expression) for the value there.
	Pointer string
	Equals  json.RawMessage
	Matches string
}

// CallRecord is what became of one ToolCall: the steps that sent it, or why it was not sent.
type CallRecord struct {
	Tool string `json:"tool"`
	// Step is the name of the step of the call; "" when it was not sent (NotSent says why).
	Step    string `json:"step,omitempty"`
	NotSent string `json:"notSent,omitempty"`
	// InvalidStep is the step of the call with invalid arguments ("" when none was sent:
	// InvalidNotSent says why when the file asked for one); InvalidHow says how the
	// arguments break the schema.
	InvalidStep    string `json:"invalidStep,omitempty"`
	InvalidNotSent string `json:"invalidNotSent,omitempty"`
	InvalidHow     string `json:"invalidHow,omitempty"`
	// Timeout is how long the probe waited for each answer (the call's timeout, else the
	// request timeout).
	Timeout time.Duration `json:"timeout,omitempty"`
	// Call is the call as the file gave it (its arguments may hold secrets: never recorded).
	Call ToolCall `json:"-"`
}

// listedTool is a tool of the session's tools/list pages, with the schemas the calls need.
type listedTool struct {
	Name         string          `json:"name"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
}

// probeCalls sends the calls of Options.Calls, after the tool probes, in the connection's
// era (s.call adds the _meta of a stateless revision, and the HTTP transport its headers).
// Without calls it sends nothing.
func (s *session) probeCalls(ctx context.Context, handshake json.RawMessage, res *Result) {
	if len(s.o.Calls) == 0 {
		return
	}
	tools, complete := s.listedToolSchemas()
	used := map[string]int{}
	for _, c := range s.o.Calls {
		rec := CallRecord{Tool: c.Tool, Call: c}
		t, listed := tools[c.Tool]
		switch {
		case c.NotSent != "":
			rec.NotSent = c.NotSent
		case !declaresCapability(handshake, "tools"):
			rec.NotSent = "the server declares no tools capability"
		case !listed && !complete:
			rec.NotSent = "tools/list did not list it (the listing failed or did not end), so it was not called"
		case !listed:
			rec.NotSent = "the server does not list the tool " + strconv.Quote(c.Tool)
		}
		if rec.NotSent != "" {
			res.Calls = append(res.Calls, rec)
			continue
		}
		schema, why := s.callHeaders(t)
		if why != "" {
			rec.NotSent = why
			res.Calls = append(res.Calls, rec)
			continue
		}
		used[c.Tool]++
		name := CallStepPrefix + c.Tool
		if n := used[c.Tool]; n > 1 {
			name += "#" + strconv.Itoa(n)
		}
		timeout := c.Timeout
		if timeout <= 0 {
			timeout = s.o.RequestTimeout
		}
		args := c.Arguments
		if len(args) == 0 {
			args = json.RawMessage(`{}`)
		}
		rec.Step, rec.Timeout = name, timeout
		s.sendCall(ctx, name, c.Tool, args, schema, timeout)
		if c.InvalidArguments {
			bad, how, ok := invalidArguments(args, t.InputSchema)
			if !ok {
				rec.InvalidNotSent = how
			} else {
				rec.InvalidStep, rec.InvalidHow = name+CallInvalidSuffix, how
				s.sendCall(ctx, rec.InvalidStep, c.Tool, bad, schema, timeout)
			}
		}
		res.Calls = append(res.Calls, rec)
	}
}

// callHeaders says whether the tool's x-mcp-header annotations let the probe call it, and
// with which headers. They matter only over Streamable HTTP under 2026-07-28: "Clients using
// the Streamable HTTP transport MUST reject tool definitions where any x-mcp-header value
// violates these constraints. Rejection means the client MUST exclude the invalid tool",
// while "Clients using other transports (e.g., stdio) MAY ignore x-mcp-header annotations
// entirely". why says why the tool is not called ("" when it is); schema is the parsed
// inputSchema the headers of each call's arguments are read with, nil when it annotates none.
func (s *session) callHeaders(t listedTool) (schema *jsondoc.Doc, why string) {
	if s.meta == "" || s.kind != protocol.TransportHTTP {
		return nil, ""
	}
	schema, err := jsondoc.Parse(t.InputSchema)
	if err != nil {
		return nil, ""
	}
	anns := paramheader.Find(schema.Root(), "inputSchema")
	if ps := paramheader.Problems(anns); len(ps) > 0 {
		return nil, fmt.Sprintf("its x-mcp-header %s, so the tool is invalid and a client over Streamable HTTP \"MUST exclude the invalid tool\" (tools.x-mcp-header judges it)", ps[0].Text)
	}
	if len(anns) == 0 {
		return nil, ""
	}
	return schema, ""
}

// sendCall sends one tools/call of tool with args; under 2026-07-28 over HTTP it carries
// the Mcp-Param headers the tool's inputSchema (schema) annotates, read from these args.
// The call's timeout bounds the wait on every transport, the HTTP exchange included.
func (s *session) sendCall(ctx context.Context, step, tool string, args json.RawMessage, schema *jsondoc.Doc, timeout time.Duration) Step {
	// A progress token, unique to the step, lets the server report progress: the probe
	// records every notifications/progress for the envelope rules, and "Progress
	// notifications MUST only reference tokens that: Were provided in an active request"
	// (basic/utilities/progress), so without one a server could send none.
	params, _ := json.Marshal(map[string]any{"name": tool, "arguments": args,
		"_meta": map[string]any{"progressToken": "mcpwatch-" + step}})
	o := requestOptions{deadline: timeout}
	if schema != nil {
		if a, err := jsondoc.Parse(args); err == nil {
			o.params, _ = paramheader.Headers(schema.Root(), a.Root())
		}
	}
	st := s.call(withRequestOptions(ctx, o), step, "tools/call", params, timeout, 0)
	if st.Outcome == OutcomeNoAnswer && st.Err != errInterrupted.Error() && st.Err != errNotAwaited.Error() && ctx.Err() == nil {
		s.cancelCall(ctx, st, timeout)
	}
	return st
}

// cancelCall cancels a call that got no answer within its timeout, so that the session goes
// on with the next one and the server may stop working on it. In a session era it sends
// notifications/cancelled ("the sender SHOULD cancel the request": 2025-11-25
// basic/utilities/cancellation, which also says disconnection "SHOULD NOT be interpreted as
// the client cancelling its request"); under 2026-07-28 it closes the request's event stream
// over HTTP ("Closing the SSE response stream is the cancellation signal") and sends
// notifications/cancelled over stdio ("There is no per-request stream to close. The client
// MUST send a notifications/cancelled notification referencing the request ID"). Over HTTP
// the stream is closed in either era: the probe stops reading it. A JSON answer that did
// not come in time was cut off by the exchange's own deadline already.
func (s *session) cancelCall(ctx context.Context, st Step, timeout time.Duration) {
	if s.meta == "" || s.kind == protocol.TransportStdio {
		params := json.RawMessage(fmt.Sprintf(`{"requestId":%s,"reason":%s}`, st.ID,
			strconv.Quote(fmt.Sprintf("no answer within %s", timeout))))
		if s.meta != "" {
			params = withMeta(params, map[string]any{protocol.MetaProtocolVersion: s.meta})
		}
		s.notifyWith(ctx, st.Name+CallCancelSuffix, "notifications/cancelled", params)
	}
	sent, ok := s.transcript.Frame(st.Request)
	if !ok || sent.Exchange == 0 {
		return
	}
	if se, ok := s.transport().(streamEnder); ok && se.EndStream(sent.Exchange) {
		s.wire.Record(Frame{Dir: In, Kind: KindNote, Note: NoteTimeout, Exchange: sent.Exchange,
			Detail: fmt.Sprintf("the probe closes the event stream of %s (id %s) after %s without its answer", st.Method, st.ID, timeout)})
	}
}

// listedToolSchemas are the tools of the session's tools/list pages by name.
func (s *session) listedToolSchemas() (map[string]listedTool, bool) {
	out := map[string]listedTool{}
	pages, complete := s.listPages(StepToolsList)
	for _, page := range pages {
		var p struct {
			Tools []listedTool `json:"tools"`
		}
		if json.Unmarshal(page, &p) != nil {
			return out, false
		}
		for _, t := range p.Tools {
			if _, dup := out[t.Name]; !dup {
				out[t.Name] = t
			}
		}
	}
	return out, complete
}

// invalidArguments breaks args against the tool's inputSchema: it leaves out the first
// required property; else, when the top level requires nothing, the first required property
// of an object property's schema (nested up to maxInvalidDepth, the object made when args
// lack it), how naming its path (/a/b); else it gives the first typed property (by name) a
// value of another type. Leaving a required property out breaks the schema whatever a server
// coerces, so it comes before a type swap. ok is false, how saying why, when the schema gives
// nothing to break.
func invalidArguments(args, schema json.RawMessage) (bad json.RawMessage, how string, ok bool) {
	var sc map[string]any
	if json.Unmarshal(schema, &sc) != nil || sc == nil {
		return nil, "the tool's inputSchema is not an object the probe can read", false
	}
	members := map[string]any{}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	if dec.Decode(&members) != nil || members == nil {
		members = map[string]any{}
	}
	if req := requiredOf(sc); len(req) > 0 {
		delete(members, req[0])
		bad, _ = json.Marshal(members)
		return bad, fmt.Sprintf("the required property %s left out", strconv.Quote(req[0])), true
	}
	if path, ok := breakNested(members, sc, "", 1); ok {
		bad, _ = json.Marshal(members)
		return bad, "the required property " + path + " left out", true
	}
	props, _ := sc["properties"].(map[string]any)
	for _, n := range slices.Sorted(maps.Keys(props)) {
		sub, _ := props[n].(map[string]any)
		typ, isString := sub["type"].(string)
		if !isString {
			continue
		}
		var wrong any = "mcpwatch-invalid"
		if typ == "string" {
			wrong = 12345
		}
		members[n] = wrong
		bad, _ = json.Marshal(members)
		return bad, fmt.Sprintf("the property %s given a value that is not of type %s", strconv.Quote(n), typ), true
	}
	return nil, "the tool's inputSchema requires nothing and types no property, so no arguments break it", false
}

// maxInvalidDepth bounds how deep invalidArguments looks for a required property.
const maxInvalidDepth = 4

// breakNested leaves out the first required property of the object schemas under schema's
// properties (by name, depth first), in a copy of each object of args on the way; it returns
// the property's path from the arguments' root.
func breakNested(args map[string]any, schema map[string]any, at string, depth int) (string, bool) {
	if depth > maxInvalidDepth {
		return "", false
	}
	props, _ := schema["properties"].(map[string]any)
	for _, n := range slices.Sorted(maps.Keys(props)) {
		sub, _ := props[n].(map[string]any)
		if sub == nil {
			continue
		}
		child := map[string]any{}
		if existing, isObject := args[n].(map[string]any); isObject {
			for k, v := range existing {
				child[k] = v
			}
		} else if _, present := args[n]; present {
			continue // not an object: nothing nested to leave out
		}
		path := at + "/" + jsondoc.PointerToken(n)
		if req := requiredOf(sub); len(req) > 0 {
			delete(child, req[0])
			args[n] = child
			return path + "/" + jsondoc.PointerToken(req[0]), true
		}
		if p, ok := breakNested(child, sub, path, depth+1); ok {
			args[n] = child
			return p, true
		}
	}
	return "", false
}

// requiredOf is the string members of a schema's required.
func requiredOf(schema map[string]any) []string {
	list, _ := schema["required"].([]any)
	var out []string
	for _, v := range list {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// callsNeverReached records the calls of a probe that ended before its calls (a failed
// handshake, the probe's timeout, an interrupt): each not sent, with the reason, so that the
// call checks say untested rather than "no calls file".
func callsNeverReached(calls []ToolCall, why string) []CallRecord {
	if why == "" {
		why = "the conversation ended before it"
	}
	var out []CallRecord
	for _, c := range calls {
		out = append(out, CallRecord{Tool: c.Tool, NotSent: "the probe stopped before the calls: " + why, Call: c})
	}
	return out
}
