package probe

import (
	"context"
	"encoding/json"

	"github.com/mcpwatch/mcpwatch/jsondoc"
)

// The robustness probes (JSON-RPC 2.0 §5.1; server/utilities/pagination, Error Handling): what a server does with input it must refuse.
// None calls a real tool.

// probeRobustness sends a request without a method (lifecycle.invalid-request), then
// malformed JSON (lifecycle.parse-error), each followed by a request that bounds the wait
// for its answer: ping, or under a stateless revision (which has no ping) server/discover.
// The request without a method goes first: it is the one a server survives more often, so
// a server that dies of bad input still shows how it handles both kinds.
func probeRobustness(ctx context.Context, c *ruleConn) {
	if c.statelessRevision == "" && !c.handshake(ctx) {
		return
	}
	c.robustness(ctx)
}

// robustness sends the robustness probes on an initialized connection (or, under a
// stateless revision, any).
func (c *ruleConn) robustness(ctx context.Context) {
	fence, methodless := "ping", json.RawMessage(MethodlessRequest)
	if c.statelessRevision != "" {
		// Nothing to initialize; the requests say their revision in _meta, and the request
		// without a method carries it too, so that the method alone is missing.
		c.speak(c.statelessRevision, true)
		fence = methodDiscover
		params := withMeta(json.RawMessage(`{}`), requestMeta(c.statelessRevision, c.o))
		methodless = json.RawMessage(`{"jsonrpc":"2.0","id":"mcpwatch-invalid-request","params":` + string(params) + `}`)
	}
	c.rawCall(ctx, StepInvalidRequest, methodless, json.RawMessage(`"mcpwatch-invalid-request"`), StepInvalidRequestPing, fence)
	c.rawCall(ctx, StepParseError, json.RawMessage(MalformedJSON), nil, StepParseErrorPing, fence)
}

// probeToolRules ends the main session of a server that declares tools: tools/call of a
// tool it does not list (tools.unknown-tool; only when the listing was complete, so that a
// name that might be listed is never called) and tools/list with a cursor it never issued
// (tools.invalid-cursor).
func (s *session) probeToolRules(ctx context.Context, init json.RawMessage) {
	if s.o.skipRules || s.o.RulesElsewhere != "" || !declaresCapability(init, "tools") {
		return
	}
	if listed, complete := s.listedTools(); complete {
		name := UnknownToolPrefix + randomSuffix()
		for listed[name] {
			name = UnknownToolPrefix + randomSuffix()
		}
		params, _ := json.Marshal(map[string]any{"name": name, "arguments": map[string]any{}})
		s.call(ctx, StepUnknownTool, "tools/call", params, s.o.RequestTimeout, 0)
	}
	params, _ := json.Marshal(map[string]string{"cursor": InvalidCursorPrefix + randomSuffix()})
	s.call(ctx, StepInvalidCursor, "tools/list", params, s.o.RequestTimeout, 0)
}

// listedTools are the tool names of the session's tools/list pages; complete is false when
// a page failed or the listing did not end (a loop, the page limit).
func (s *session) listedTools() (names map[string]bool, complete bool) {
	names = map[string]bool{}
	var last json.RawMessage
	for _, st := range s.steps {
		if st.Name != StepToolsList {
			continue
		}
		if st.Outcome != OutcomeOK {
			return names, false
		}
		if !pageToolNames(st.Result, names) {
			return names, false
		}
		last = st.Result
	}
	end := memberValue(last, "nextCursor")
	// A last page that still points further: the listing was cut.
	return names, last != nil && (end == nil || jsondoc.IsNull(end))
}
