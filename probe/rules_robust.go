package probe

import (
	"context"
	"encoding/json"
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
