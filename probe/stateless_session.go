package probe

import (
	"context"
	"encoding/json"
	"slices"
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
	var dr struct {
		SupportedVersions []string `json:"supportedVersions"`
	}
	if json.Unmarshal(disc.Result, &dr) == nil && dr.SupportedVersions != nil && !slices.Contains(dr.SupportedVersions, rev) {
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
}

// negotiateStateless is the negotiation connection of a stateless server: server/discover
// naming a revision the server cannot support (-32022 with data.supported expected), then a
// request without the _meta every request must carry (-32602 expected). Over HTTP the
// second keeps the headers of the revision, so that only _meta is missing.
func (s *session) negotiateStateless(ctx context.Context, rev string) {
	s.speak(BogusStatelessRevision, true)
	s.call(ctx, StepDiscoverUnsupported, methodDiscover, json.RawMessage(`{}`), s.o.InitTimeout, 0)
	s.speak(rev, false)
	s.call(ctx, StepMetaMissing, methodDiscover, json.RawMessage(`{}`), s.o.RequestTimeout, 0)
}

// notificationParams are the params of a notification the probe sends: none in the session
// era; under a stateless revision the revision in _meta, matching MCP-Protocol-Version.
func (s *session) notificationParams() json.RawMessage {
	if s.meta == "" {
		return nil
	}
	return withMeta(nil, map[string]any{MetaProtocolVersion: s.meta})
}
