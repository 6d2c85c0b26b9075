package probe

import (
	"context"
	"encoding/json"
)

// The robustness probes (MCP-RULES A, B, D): what a server does with input it must refuse.
// None calls a real tool.

// probeRobustness sends a request without a method (lifecycle.invalid-request), then
// malformed JSON (lifecycle.parse-error), each followed by a ping that bounds the wait for
// its answer. The request without a method goes first: it is the one a server survives
// more often, so a server that dies of bad input still shows how it handles both kinds.
func probeRobustness(ctx context.Context, c *ruleConn) {
	if !c.handshake(ctx) {
		return
	}
	c.rawCall(ctx, StepInvalidRequest, json.RawMessage(MethodlessRequest), json.RawMessage(`"mcpwatch-invalid-request"`), StepInvalidRequestPing)
	c.rawCall(ctx, StepParseError, json.RawMessage(MalformedJSON), nil, StepParseErrorPing)
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
		var page struct {
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
		}
		if json.Unmarshal(st.Result, &page) != nil {
			return names, false
		}
		for _, t := range page.Tools {
			names[t.Name] = true
		}
		last = st.Result
	}
	var end struct {
		NextCursor json.RawMessage `json:"nextCursor"`
	}
	_ = json.Unmarshal(last, &end)
	// A last page that still points further: the listing was cut.
	return names, last != nil && (end.NextCursor == nil || string(end.NextCursor) == "null")
}
