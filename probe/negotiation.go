package probe

import (
	"context"
	"encoding/json"

	"github.com/mcpwatch/mcpwatch/protocol"
)

// negotiatesHere reports whether the probe opens the negotiation connection. A probe that
// leaves the revision-independent probes to another (RulesElsewhere) leaves out the
// initialize with a bogus revision too, whose answer does not depend on the revision the
// main connection offers; a stateless revision's negotiation probes are its own.
func negotiatesHere(o Options) bool {
	return o.RulesElsewhere == "" || o.detectEra || protocol.Stateless(o.ProtocolVersion)
}

// negotiate offers a revision that does not exist on a fresh connection (basic/lifecycle, Version Negotiation), or,
// when the main connection found the server stateless, probes what that revision requires
// of versions and _meta. Then, when the server answered and the probe runs its rule probes
// here, the connection carries the robustness probes (see probeRobustness); it reports
// whether it did.
func (c *ruleConn) negotiate(ctx context.Context) (robust bool) {
	// A stdio server is started at once, so that its start-up overlaps the main one's.
	opened := false
	if c.kind == protocol.TransportStdio {
		if err := c.open(ctx); err != nil {
			return false
		}
		opened = true
	}
	d := c.era.wait(ctx)
	// Session era only: a stateless server's negotiation probes are judged whether or not
	// the main connection's server/discover succeeded.
	if hs, settled := c.mainHandshake.settled(); !d.stateless && settled && hs.Outcome != OutcomeOK {
		// The bogus revision is judged against a server that answered initialize: one
		// that did not gets no second wait for an answer that will not come.
		if opened {
			c.close(ctx)
		}
		return false
	}
	if !opened {
		if d.transport == protocol.TransportSSE && c.kind == protocol.TransportHTTP {
			// The main connection found legacy HTTP+SSE: no need to find it again.
			c.dial, c.kind = dialSSE, protocol.TransportSSE
		}
		if err := c.open(ctx); err != nil {
			return false
		}
	}
	defer c.close(ctx)
	rides := c.o.rulesHere()
	if d.stateless {
		if d.refused {
			return false
		}
		c.negotiateStateless(ctx, d.revision)
		// The lists before the requests that name no revision: a server that speaks both
		// eras may hold the connection in the session era once it has read one of those,
		// and would answer the lists as a session-era server does.
		if rides {
			c.listOnSecondConnection(ctx)
		}
		// Before the robustness probes, which may end a stdio server's process.
		c.negotiateUnnamed(ctx, d.revision)
		if !rides {
			return false
		}
		c.statelessRevision = d.revision
		c.robustness(ctx)
		return true
	}
	o := c.o
	o.ProtocolVersion = protocol.BogusRevision
	init := c.initialize(ctx, StepInitializeBogus, o, nil)
	// Only an answer naming a revision the probe speaks makes a connection to go on with.
	if !rides || init.Outcome != OutcomeOK || !protocol.KnownSessionRevision(answeredRevision(init.Result)) {
		return false
	}
	c.initialized(ctx, init)
	c.listOnSecondConnection(ctx)
	c.robustness(ctx)
	return true
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
