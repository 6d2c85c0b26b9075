package probe

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/mcpwatch/mcpwatch/protocol"
)

// runStateless is the main connection's conversation under a stateless revision, once
// server/discover answered: every request self-describing, no initialize, no ping (removed
// in 2026-07-28), no session to end.
func (s *session) runStateless(ctx context.Context, res *Result, disc Step) {
	rev := s.meta
	res.Requested, res.ProtocolVersion = rev, rev
	if disc.Outcome != OutcomeOK {
		res.Err = "server/discover failed: " + describeFailure(disc) + s.processFate()
		return
	}
	res.Discover = disc.Result
	res.Negotiated = rev
	if vs, ok := supportedVersions(disc.Result); ok && !slices.Contains(vs, rev) {
		// The server answered, but does not claim the revision it was asked in.
		res.Negotiated = ""
	}
	s.notify(ctx, StepUnknownNotification, UnknownNotificationMethod)
	s.list(ctx, StepToolsList, "tools/list")
	s.list(ctx, StepResourcesList, "resources/list")
	s.list(ctx, StepTemplatesList, "resources/templates/list")
	s.list(ctx, StepPromptsList, "prompts/list")
	s.call(ctx, StepUnknownMethod, UnknownMethod, json.RawMessage(`{}`), s.o.RequestTimeout, 0)
	s.probeToolRules(ctx, disc.Result)
	s.probeCalls(ctx, disc.Result, res)
	s.probeResources(ctx, disc.Result)
	s.probeFeatureReads(ctx, disc.Result, rev)
	s.probeListRepeat(ctx, disc.Result)
}

// notificationParams are the params of a notification the probe sends: none in the session
// era; under a stateless revision the revision in _meta, matching MCP-Protocol-Version.
func (s *session) notificationParams() json.RawMessage {
	if s.meta == "" {
		return nil
	}
	return withMeta(nil, map[string]any{protocol.MetaProtocolVersion: s.meta})
}
