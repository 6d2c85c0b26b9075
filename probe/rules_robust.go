package probe

import (
	"context"
	"encoding/json"
)

// The robustness probes (MCP-RULES A, B, D): what a server does with input it must refuse.
// None calls a real tool.

// probeParseError sends malformed JSON, then a ping (lifecycle.parse-error).
func probeParseError(ctx context.Context, c *ruleConn) {
	if !c.handshake(ctx) {
		return
	}
	c.rawCall(ctx, StepParseError, json.RawMessage(MalformedJSON), nil, StepParseErrorPing)
}

// probeInvalidRequest sends a request without a method, then a ping that bounds the wait for
// its answer (lifecycle.invalid-request).
func probeInvalidRequest(ctx context.Context, c *ruleConn) {
	if !c.handshake(ctx) {
		return
	}
	c.rawCall(ctx, StepInvalidRequest, json.RawMessage(MethodlessRequest), json.RawMessage(`"mcpwatch-invalid-request"`), StepInvalidRequestPing)
}

// probeUnknownTool calls a tool the server does not list (tools.unknown-tool). The name is
// checked against the whole list first: a name that might be listed is never called.
func probeUnknownTool(ctx context.Context, c *ruleConn) {
	if !c.handshake(ctx) || !c.declares("tools") {
		return
	}
	listed, complete := c.toolNames(ctx)
	if !complete {
		return
	}
	name := UnknownToolPrefix + randomSuffix()
	for listed[name] {
		name = UnknownToolPrefix + randomSuffix()
	}
	params, _ := json.Marshal(map[string]any{"name": name, "arguments": map[string]any{}})
	c.call(ctx, StepUnknownTool, "tools/call", params, c.o.RequestTimeout, 0)
}

// toolNames lists the tools on the connection, following every page; complete is false when
// a page failed or the listing did not end within the page limit.
func (c *ruleConn) toolNames(ctx context.Context) (names map[string]bool, complete bool) {
	first := len(c.steps)
	c.list(ctx, StepUnknownToolList, "tools/list")
	names = map[string]bool{}
	var last json.RawMessage
	for _, st := range c.steps[first:] {
		if st.Name != StepUnknownToolList {
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
	// A last page that still points further: the listing was cut (a loop, the page limit).
	return names, last != nil && (end.NextCursor == nil || string(end.NextCursor) == "null")
}

// probeInvalidCursor asks for a page with a cursor the server never issued
// (tools.invalid-cursor).
func probeInvalidCursor(ctx context.Context, c *ruleConn) {
	if !c.handshake(ctx) || !c.declares("tools") {
		return
	}
	params, _ := json.Marshal(map[string]string{"cursor": InvalidCursorPrefix + randomSuffix()})
	c.call(ctx, StepInvalidCursor, "tools/list", params, c.o.RequestTimeout, 0)
}
