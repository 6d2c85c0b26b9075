package probe

import (
	"context"
	"encoding/json"
)

// Steps of the list stability probes (lists.stable): the main connection's tools/list asked
// again at its end, and the lists a client reads asked on a second connection.
const (
	// StepToolsListRepeat is tools/list asked again on the main connection, after the other
	// requests of the session: the order (2026-07-28 server/tools: "SHOULD return tools in a
	// deterministic order") and the set ("MUST NOT vary ... as a side effect of other
	// requests on the connection") are compared with the first listing.
	StepToolsListRepeat = "tools/list-repeat"
	// StepToolsListOther, StepResourcesListOther and StepPromptsListOther are the lists read
	// on the negotiation connection, compared with the main connection's ("MUST NOT vary
	// per-connection").
	StepToolsListOther     = "tools/list-other-connection"
	StepResourcesListOther = "resources/list-other-connection"
	StepPromptsListOther   = "prompts/list-other-connection"
)

// probeListRepeat asks tools/list again at the end of the main session of a server that
// declares tools. Like the tool probes it is left out when the rule probes run elsewhere.
func (s *session) probeListRepeat(ctx context.Context, handshake json.RawMessage) {
	if !s.o.rulesHere() || !declaresCapability(handshake, "tools") {
		return
	}
	s.list(ctx, StepToolsListRepeat, "tools/list")
}

// listOnSecondConnection reads the declared lists on the negotiation connection, before the
// robustness probes (which may end a stdio server): the same requests as the main
// connection, on a connection of its own. The capabilities are those the main connection's
// handshake declared, the ones its lists are judged by.
func (c *ruleConn) listOnSecondConnection(ctx context.Context) {
	hs, settled := c.mainHandshake.settled()
	if !settled || hs.Outcome != OutcomeOK {
		return
	}
	for _, l := range []struct{ capability, step, method string }{
		{"tools", StepToolsListOther, "tools/list"},
		{"resources", StepResourcesListOther, "resources/list"},
		{"prompts", StepPromptsListOther, "prompts/list"},
	} {
		if declaresCapability(hs.Result, l.capability) {
			c.list(ctx, l.step, l.method)
		}
	}
}
