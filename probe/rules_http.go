package probe

import (
	"context"
	"net/http"
)

// The probes of the Streamable HTTP session and header rules (basic/transports, Streamable HTTP). Each bends
// one thing on a session of its own.

// probeSession asks with no session id, with one the server never issued, and, once the
// session is deleted, with the deleted one (http.session). A server that issues no session
// id has no session to judge.
func probeSession(ctx context.Context, c *ruleConn) {
	if !c.handshake(ctx) {
		return
	}
	id := c.bent.currentSession()
	if id == "" {
		return
	}
	c.callBent(ctx, StepSessionMissing, "ping", nil, c.o.RequestTimeout, func(h http.Header) {
		h.Del(headerSessionID)
	})
	c.callBent(ctx, StepSessionUnknown, "ping", nil, c.o.RequestTimeout, func(h http.Header) {
		h.Set(headerSessionID, UnknownSessionPrefix+randomSuffix())
	})
	if del := c.deleteStep(ctx, StepSessionDelete); del.Outcome != OutcomeOK {
		return // the session may live on: nothing says the id is dead
	}
	c.callBent(ctx, StepSessionDeleted, "ping", nil, c.o.RequestTimeout, func(h http.Header) {
		h.Set(headerSessionID, id)
	})
}

// probeProtocolHeader sends a revision that does not exist in MCP-Protocol-Version
// (http.protocol-version-header); the header exists from 2025-06-18 on.
func probeProtocolHeader(ctx context.Context, c *ruleConn) {
	if !c.handshake(ctx) || !SendsProtocolHeader(c.version) {
		return
	}
	c.callBent(ctx, StepProtocolHeaderInvalid, "ping", nil, c.o.RequestTimeout, func(h http.Header) {
		h.Set(headerProtocolVersion, BogusRevision)
	})
}

// probeGetStream opens the server-to-client stream with a GET (http.get-stream).
func probeGetStream(ctx context.Context, c *ruleConn) {
	if !c.handshake(ctx) {
		return
	}
	c.fetchStep(ctx, StepGetStream, http.MethodGet, exchangeTarget{edit: func(h http.Header) {
		h.Set("Accept", "text/event-stream")
	}})
}

// probeOrigin initializes as a page of a foreign site would (http.origin).
func probeOrigin(ctx context.Context, c *ruleConn) {
	c.callBent(ctx, StepForeignOrigin, "initialize", initializeParams(c.o), c.o.InitTimeout, func(h http.Header) {
		h.Set("Origin", ForeignOrigin)
	})
}

// probeDeleteSession ends a session the way a client should (http.delete-session).
func probeDeleteSession(ctx context.Context, c *ruleConn) {
	if !c.handshake(ctx) || c.bent.currentSession() == "" {
		return
	}
	c.deleteStep(ctx, StepDeleteSession)
}
