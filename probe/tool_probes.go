package probe

import (
	"context"
	"encoding/json"
)

// probeToolRules ends the main session of a server that declares tools: tools/call of a
// tool it does not list (tools.unknown-tool; only when the listing was complete, so that a
// name that might be listed is never called) and tools/list with a cursor it never issued
// (tools.invalid-cursor).
func (s *session) probeToolRules(ctx context.Context, init json.RawMessage) {
	if !s.o.rulesHere() || !declaresCapability(init, "tools") {
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
	pages, complete := s.listPages(StepToolsList)
	for _, page := range pages {
		if !pageToolNames(page, names) {
			return names, false
		}
	}
	return names, complete
}
