package probe

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/mcpwatch/mcpwatch/protocol"
)

// The rule probes of the stateless revision (2026-07-28): what it removed (methods, the
// session, the GET stream and DELETE) must be refused the way it says. Each request is a
// self-contained stateless request, with _meta and (over HTTP) the headers of the revision,
// so that only the thing the rule is about is out of place.

// Connections of the stateless rule probes.
const (
	// ConnStatelessRemoved: stateless.removed-methods, ping, logging/setLevel,
	// resources/subscribe and resources/unsubscribe, then initialize on a server that speaks
	// no session revision (every transport).
	ConnStatelessRemoved = 32
	// ConnStatelessSession: stateless.no-session, server/discover with an Mcp-Session-Id the
	// server never issued (HTTP, a server that speaks only stateless revisions).
	ConnStatelessSession = 33
	// ConnStatelessGetDelete: stateless.get-delete, GET and DELETE of the endpoint (HTTP, a
	// server that speaks only stateless revisions).
	ConnStatelessGetDelete = 34
)

// Step names of the stateless rule probes.
const (
	StepStatelessPing        = "stateless-ping"
	StepStatelessSetLevel    = "stateless-logging-setlevel"
	StepStatelessSubscribe   = "stateless-resources-subscribe"
	StepStatelessUnsubscribe = "stateless-resources-unsubscribe"
	StepStatelessInitialize  = "stateless-initialize"
	StepStatelessSessionID   = "stateless-session-id"
	StepStatelessGet         = "stateless-get"
	StepStatelessDelete      = "stateless-delete"
)

// StatelessSubscribeURI is the resource the removed resources/subscribe and
// resources/unsubscribe name: one no server lists, so that even a server that still serves
// them holds no subscription afterwards.
const StatelessSubscribeURI = UnknownResourcePrefix + "mcpwatch-subscribe-probe"

// RemovedMethod is a step of the stateless.removed-methods probe and the method it sends.
type RemovedMethod struct{ Step, Method string }

// RemovedMethods lists the steps of the stateless.removed-methods probe, in the order sent.
func RemovedMethods() []RemovedMethod {
	return []RemovedMethod{
		{StepStatelessPing, "ping"},
		{StepStatelessSetLevel, "logging/setLevel"},
		{StepStatelessSubscribe, "resources/subscribe"},
		{StepStatelessUnsubscribe, "resources/unsubscribe"},
		{StepStatelessInitialize, "initialize"},
	}
}

// probeRemovedMethods sends the methods 2026-07-28 removed (changelog: "Remove ping,
// logging/setLevel"; "Replace ... resources/subscribe/resources/unsubscribe with
// subscriptions/listen"; "remove the initialize/notifications/initialized handshake"), each
// as a request of that revision. initialize goes last and only to a server that speaks no
// session revision: a dual-era server rightly reads it as a session-era opening
// (basic/versioning: "An initialize request selects legacy semantics").
func probeRemovedMethods(ctx context.Context, c *ruleConn) {
	if c.statelessRevision == "" {
		return
	}
	c.speak(c.statelessRevision, true)
	for _, rm := range RemovedMethods() {
		var params json.RawMessage
		switch rm.Method {
		case "initialize":
			if !c.speaksOnlyStateless(ctx) {
				return
			}
			o := c.o
			o.ProtocolVersion = c.statelessRevision
			params = initializeParams(o)
		case "logging/setLevel":
			params = json.RawMessage(`{"level":"info"}`)
		case "resources/subscribe", "resources/unsubscribe":
			params, _ = json.Marshal(map[string]string{"uri": StatelessSubscribeURI})
		}
		c.call(ctx, rm.Step, rm.Method, params, c.o.RequestTimeout, 0)
	}
}

// probeNoSession sends server/discover with a session id the server never issued
// (stateless.no-session): a server of the stateless revision only ignores it.
func probeNoSession(ctx context.Context, c *ruleConn) {
	if c.statelessRevision == "" || c.bent == nil || !c.speaksOnlyStateless(ctx) {
		return
	}
	c.speak(c.statelessRevision, true)
	c.callBent(ctx, StepStatelessSessionID, methodDiscover, json.RawMessage(`{}`), c.o.RequestTimeout, func(h http.Header) {
		h.Set(protocol.HeaderSessionID, UnknownSessionPrefix+randomSuffix())
	})
}

// probeGetDelete sends GET (as a client of 2025-11-25 opening its stream would) and DELETE
// (as one ending its session would) to the endpoint (stateless.get-delete).
func probeGetDelete(ctx context.Context, c *ruleConn) {
	if c.statelessRevision == "" || c.bent == nil || !c.speaksOnlyStateless(ctx) {
		return
	}
	c.speak(c.statelessRevision, true)
	c.fetchStep(ctx, StepStatelessGet, http.MethodGet, exchangeTarget{edit: func(h http.Header) {
		h.Set("Accept", "text/event-stream")
	}})
	c.fetchStep(ctx, StepStatelessDelete, http.MethodDelete, exchangeTarget{})
}

// speaksOnlyStateless reports whether the server is known to speak no session revision: its
// DiscoverResult lists none, and the era probe's initialize was refused. The era probe runs
// if nobody started it yet (a probe told the stateless revision runs no session rules).
func (c *ruleConn) speaksOnlyStateless(ctx context.Context) bool {
	if c.sessionEra == nil || c.discoverListsSessionRevision() {
		return false
	}
	c.sessionEra.start(ctx)
	return refusedInitialize(c.sessionEra.wait(ctx))
}

// refusedInitialize reports whether an initialize was refused: a JSON-RPC error, or over
// HTTP a 4xx answer other than a demand for credentials (a server of the stateless revision
// refuses a request without its headers with 400, whatever the body says).
func refusedInitialize(st Step) bool {
	switch {
	case st.Outcome == OutcomeError:
		return true
	case st.Outcome == OutcomeOK, st.HTTPStatus == http.StatusUnauthorized, st.HTTPStatus == http.StatusForbidden:
		return false
	}
	return st.HTTPStatus >= 400 && st.HTTPStatus <= 499
}
