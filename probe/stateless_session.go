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
}

// negotiateStateless is the negotiation connection of a stateless server: server/discover
// naming a revision the server cannot support (-32022 with data.supported expected), then
// requests whose _meta lacks one key: clientCapabilities (required: -32602 expected), then
// clientInfo (optional: to be served). Over HTTP they keep the headers of the revision, so
// that only _meta differs. The requests that name no revision in _meta, which a dual-era
// server may read as session-era ones (and hold the process in that era), come last: see
// negotiateUnnamed.
func (s *session) negotiateStateless(ctx context.Context, rev string) {
	s.speak(protocol.BogusStatelessRevision, true)
	s.call(ctx, StepDiscoverUnsupported, methodDiscover, json.RawMessage(`{}`), s.o.InitTimeout, 0)
	s.callLacking(ctx, StepMetaNoClientCapabilities, rev, protocol.MetaClientCapabilities)
	s.callLacking(ctx, StepMetaNoClientInfo, rev, protocol.MetaClientInfo)
	s.speak(rev, true)
}

// discoverListsSessionRevision reports whether the main connection's DiscoverResult lists a
// session revision: the server says it speaks both eras, and no era probe need ask.
func (s *session) discoverListsSessionRevision() bool {
	hs, ok := s.mainHandshake.settled()
	if !ok || hs.Outcome != OutcomeOK || hs.Method != methodDiscover {
		return false
	}
	vs, ok := supportedVersions(hs.Result)
	return ok && anySessionRevision(vs)
}

// negotiateUnnamed sends the requests whose _meta names no revision: one lacking only
// protocolVersion, then one without _meta. Over stdio nothing else tells a dual-era server
// that a request is a stateless one, and a server that serves both eras may read them as
// session-era requests sent before initialize (2026-07-28 basic/versioning: "A request
// carrying modern per-request _meta is served statelessly according to this revision"); when
// either is not refused with -32602, the era probe tells whether the server speaks a session
// revision too, for discover.meta-required to know which reading is open to it, unless the
// DiscoverResult already says so.
func (s *session) negotiateUnnamed(ctx context.Context, rev string) {
	a := s.callLacking(ctx, StepMetaNoProtocolVersion, rev, protocol.MetaProtocolVersion)
	s.speak(rev, false)
	b := s.call(ctx, StepMetaMissing, methodDiscover, json.RawMessage(`{}`), s.o.RequestTimeout, 0)
	s.speak(rev, true)
	if s.kind != protocol.TransportStdio || refusedInvalidParams(a) && refusedInvalidParams(b) || s.discoverListsSessionRevision() {
		return
	}
	s.sessionEra.start(ctx)
	s.sessionEra.wait(ctx)
}

// callLacking sends server/discover whose _meta has every key a stateless request carries
// but omit; over HTTP the headers still name rev.
func (s *session) callLacking(ctx context.Context, name, rev, omit string) Step {
	meta := requestMeta(rev, s.o)
	delete(meta, omit)
	s.speak(rev, false)
	return s.call(ctx, name, methodDiscover, withMeta(json.RawMessage(`{}`), meta), s.o.RequestTimeout, 0)
}

// refusedInvalidParams reports whether a step got JSON-RPC error -32602 (Invalid params).
func refusedInvalidParams(st Step) bool {
	return st.ErrorCode != nil && *st.ErrorCode == protocol.CodeInvalidParams
}

// notificationParams are the params of a notification the probe sends: none in the session
// era; under a stateless revision the revision in _meta, matching MCP-Protocol-Version.
func (s *session) notificationParams() json.RawMessage {
	if s.meta == "" {
		return nil
	}
	return withMeta(nil, map[string]any{protocol.MetaProtocolVersion: s.meta})
}
