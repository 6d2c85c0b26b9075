package probe

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/mcpwatch/mcpwatch/protocol"
)

// The probes of the Streamable HTTP session and header rules (basic/transports, Streamable HTTP). Each bends
// one thing on a session of its own.

// probeSession asks with no session id, with one the server never issued, and, once the
// session is deleted, with the deleted one (http.session). A server that issues no session
// id has no session to judge.
//
// Its DELETE is also the evidence of http.delete-session, which once had a session of its
// own for nothing else: the two requests before it name no session or another one, so the
// session it ends has seen only its handshake, as that one had (and every probe is spared
// an initialize, an initialized and a DELETE).
func probeSession(ctx context.Context, c *ruleConn) {
	if !c.handshake(ctx) {
		return
	}
	id := c.bent.currentSession()
	if id == "" {
		return
	}
	// tools/list, not ping: a server may serve ping to anyone, but a listing belongs to a
	// session, so a server that requires one cannot serve it without.
	c.callBent(ctx, StepSessionMissing, "tools/list", json.RawMessage(`{}`), c.o.RequestTimeout, func(h http.Header) {
		h.Del(protocol.HeaderSessionID)
	})
	c.callBent(ctx, StepSessionUnknown, "ping", nil, c.o.RequestTimeout, func(h http.Header) {
		h.Set(protocol.HeaderSessionID, UnknownSessionPrefix+randomSuffix())
	})
	if del := c.deleteStep(ctx, StepDeleteSession); del.Outcome != OutcomeOK {
		return // the session may live on: nothing says the id is dead
	}
	c.callBent(ctx, StepSessionDeleted, "ping", nil, c.o.RequestTimeout, func(h http.Header) {
		h.Set(protocol.HeaderSessionID, id)
	})
}

// probeStreamAndHeader sends two pings at once (http.concurrent-requests, in the session
// era: see concurrentPair), opens the server-to-client stream with a GET (http.get-stream),
// then sends a revision that does not exist in MCP-Protocol-Version
// (http.protocol-version-header; the header exists from 2025-06-18 on), on one session.
//
// None of these rules needs a session of its own, only an initialized one that is not the
// main session's, and none ends it: two pings change nothing, a GET stream is what any client may open (2025-11-25
// basic/transports, Listening for Messages from the Server: "The client MAY issue an HTTP
// GET to the MCP endpoint"), and only a DELETE or the server ends a session (Session
// Management); a request with an invalid MCP-Protocol-Version is refused, not served ("it
// MUST respond with 400 Bad Request"). The bent request goes last all the same, so that
// nothing is judged on the session after it. Sharing spares a probe two initializes, two
// initialized and two DELETEs: six of its fifty exchanges.
func probeStreamAndHeader(ctx context.Context, c *ruleConn) {
	if !c.handshake(ctx) {
		return
	}
	// A server found stateless that speaks a session revision too gets its concurrent
	// requests on a connection of its own, in its stateless revision (probeConcurrent).
	if !c.era.wait(ctx).stateless {
		c.concurrentPair(ctx, "ping", nil)
	}
	c.fetchStep(ctx, StepGetStream, http.MethodGet, exchangeTarget{edit: func(h http.Header) {
		h.Set("Accept", "text/event-stream")
	}})
	if !protocol.SendsProtocolHeader(c.version) {
		return
	}
	c.callBent(ctx, StepProtocolHeaderInvalid, "ping", nil, c.o.RequestTimeout, func(h http.Header) {
		h.Set(protocol.HeaderProtocolVersion, protocol.BogusRevision)
	})
}

// probeOrigin asks as a page of a foreign site would (http.origin): on a session server with
// initialize, on a stateless one with server/discover, and on legacy HTTP+SSE both with a GET
// of the event stream and with initialize POSTed to the endpoint the stream named (the
// connection's own stream carries no foreign Origin, so that an accepted POST's answer can
// still arrive).
func probeOrigin(ctx context.Context, c *ruleConn) {
	foreign := func(h http.Header) { h.Set("Origin", ForeignOrigin) }
	if c.statelessRevision != "" {
		c.speak(c.statelessRevision, true)
		c.callBent(ctx, StepForeignOrigin, methodDiscover, json.RawMessage(`{}`), c.o.RequestTimeout, foreign)
		return
	}
	if _, sse := c.transport().(*bentSSE); sse {
		c.fetchStep(ctx, StepForeignOriginStream, http.MethodGet, exchangeTarget{url: c.target.URL, edit: func(h http.Header) {
			h.Set("Accept", "text/event-stream")
			foreign(h)
		}})
	}
	c.callBent(ctx, StepForeignOrigin, "initialize", initializeParams(c.o), c.o.InitTimeout, foreign)
}
