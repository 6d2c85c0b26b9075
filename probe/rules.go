package probe

import (
	"context"
	"net/url"
	"sync"

	"github.com/mcpwatch/mcpwatch/protocol"
)

// Connections of the rule probes. A rule the main session cannot judge without bending a
// request gets a short-lived connection of its own, so that what one rule's probe does (a
// deleted session, a malformed line that makes a server exit) never shows in the evidence of
// another rule or of the main session. Two rules share a session where one probe's requests
// cannot touch the other's evidence (see probeStreamAndHeader and probeSession).
const (
	// ConnSession: http.session (requests without and with an unknown session id, then,
	// once the session is deleted, with the deleted one) and http.delete-session (that
	// DELETE).
	ConnSession = 3
	// ConnProtocolHeader: http.concurrent-requests in the session era (two pings at once),
	// http.get-stream (a GET of the endpoint), then http.protocol-version-header (an invalid
	// MCP-Protocol-Version), on one session (see probeStreamAndHeader).
	ConnProtocolHeader = 4
	// ConnGetStream is the connection of http.get-stream: ConnProtocolHeader's (5 is no
	// longer used).
	ConnGetStream = ConnProtocolHeader
	ConnOrigin    = 6 // http.origin: requests from a foreign Origin (see probeOrigin)
	// ConnDeleteSession is the connection of http.delete-session: ConnSession's, whose
	// probe deletes its session anyway (7 is no longer used).
	ConnDeleteSession = ConnSession
	// ConnRobustness: lifecycle.invalid-request (a request without method, then ping), then
	// lifecycle.parse-error (malformed JSON, then ping), when the negotiation connection
	// could not carry them (see session.negotiate): it does whenever the server answers its
	// bogus initialize with a revision to go on with, which spares a stdio probe a server
	// process (each costs the server's start-up). A server that dies of the first leaves the
	// second unjudged, which its check says.
	ConnRobustness = 8
	ConnAuth       = 12 // auth.*: initialize without credentials, then metadata discovery
	// ConnStatelessHeaders: stateless.headers, requests with a stateless header missing or
	// not matching the body (stateless servers over HTTP only).
	ConnStatelessHeaders = 30
	// ConnBatch: jsonrpc.batch, a batch of two pings (servers that negotiate 2025-03-26).
	ConnBatch = 31
)

// tools.unknown-tool and tools.invalid-cursor are probed at the end of the main session
// (see session.probeToolRules): neither changes anything a server holds, and the main
// session's own listing shows which names are listed.

// Step names of the rule probes (checks find their evidence by connection and name).
const (
	StepRuleInitialize        = "rule-initialize"
	StepRuleInitialized       = "rule-initialized"
	StepSessionMissing        = "session-missing-id"
	StepSessionUnknown        = "session-unknown-id"
	StepSessionDeleted        = "session-deleted-id"
	StepProtocolHeaderInvalid = "protocol-header-invalid"
	StepGetStream             = "get-stream"
	StepForeignOrigin         = "foreign-origin"
	StepForeignOriginStream   = "foreign-origin-stream"
	StepDeleteSession         = "delete-session"
	StepParseError            = "parse-error"
	StepParseErrorPing        = "parse-error-ping"
	StepInvalidRequest        = "invalid-request"
	StepInvalidRequestPing    = "invalid-request-ping"
	StepUnknownTool           = "unknown-tool"
	StepInvalidCursor         = "invalid-cursor"
	StepAuthInitialize        = "auth-initialize"
	StepResourceMetadata      = "resource-metadata"
)

// What the rule probes send.
const (
	// ForeignOrigin is the Origin of the http.origin probe: a site no local server trusts.
	ForeignOrigin = "https://mcpwatch-foreign-origin.invalid"
	// MalformedJSON is the lifecycle.parse-error message: an object that no JSON parser
	// reads (a bare word as a value), whole on one line so that a line-based reader can go on.
	MalformedJSON = `{"jsonrpc": "2.0", "id": "mcpwatch-parse-error", "method": "ping", "params": mcpwatch}`
	// MethodlessRequest is the lifecycle.invalid-request message: an id and params, no method.
	MethodlessRequest = `{"jsonrpc":"2.0","id":"mcpwatch-invalid-request","params":{}}`
	// Prefixes of the names the probe invents, followed by random hex.
	UnknownToolPrefix    = "mcpwatch-no-such-tool-"
	InvalidCursorPrefix  = "mcpwatch-invalid-cursor-"
	UnknownSessionPrefix = "mcpwatch-unknown-session-"
)

// Deliberate reports whether the request of a step breaks a transport rule on purpose (no
// session id, a foreign Origin, no credentials, bytes that are no valid message): its HTTP
// status is the evidence of the rule the step probes, not a fault of the exchange.
func Deliberate(step string) bool {
	switch step {
	case StepSessionMissing, StepSessionUnknown, StepSessionDeleted, StepProtocolHeaderInvalid,
		StepForeignOrigin, StepForeignOriginStream, StepParseError, StepInvalidRequest, StepAuthInitialize,
		StepHeadersNoProtocolVersion, StepHeadersProtocolMismatch, StepHeadersNoMethod,
		StepHeadersMethodMismatch, StepHeadersNoName, StepHeadersNameMismatch, StepHeadersLowercase, StepHeadersPadded,
		StepBatch,
		StepStatelessSessionID, StepAuthInvalidToken:
		return true
	}
	return false
}

// ruleProbe is the probe of one rule (or a pair that shares its evidence).
type ruleProbe struct {
	conn int
	// transports the probe runs on (nil: every one).
	transports []string
	// sessions: the probe needs initialize, so it runs only when the probe speaks a
	// revision that has it.
	sessions bool
	// stateless: the probe runs against a stateless server too, without initialize.
	stateless bool
	// anonymous: the connection carries none of the user's credentials.
	anonymous bool
	// sse: the probe runs on legacy HTTP+SSE too (on a connection dialled as such).
	sse bool
	// revision: the probe runs only when the main connection's handshake settled on this
	// revision (or it was asked for), so that a stdio server is not started for nothing.
	revision string
	// perRevision: the rule belongs to the revision offered, so the probe runs in the probe
	// of its revision when RunRevisions leaves the others to another revision's probe.
	perRevision bool
	// statelessOnly: the probe runs only against a server found stateless, so its
	// connection waits for the era before it is opened (over stdio: no process for nothing).
	statelessOnly bool
	// when, if set, is asked about the main connection's handshake before the connection
	// opens: the probe runs only when the server declared what it needs, so that a stdio
	// server is not started for nothing.
	when func(handshake Step) bool
	// evidenced, if set, is asked before the connection opens whether the main connection
	// already holds the probe's evidence (credentialFree: the target carries no credential
	// of the user); when it does, it records that evidence as the probe's step and the
	// probe opens no connection.
	evidenced func(ctx context.Context, c *ruleConn, credentialFree bool) bool
	run       func(ctx context.Context, c *ruleConn)
}

func ruleProbes() []ruleProbe {
	httpOnly := []string{protocol.TransportHTTP}
	return []ruleProbe{
		{conn: ConnSession, transports: httpOnly, sessions: true, run: probeSession},
		{conn: ConnProtocolHeader, transports: httpOnly, sessions: true, run: probeStreamAndHeader},
		{conn: ConnOrigin, transports: []string{protocol.TransportHTTP, protocol.TransportSSE}, sessions: true, stateless: true, sse: true, run: probeOrigin},
		{conn: ConnRobustness, sessions: true, stateless: true, run: probeRobustness},
		{conn: ConnAuth, transports: httpOnly, anonymous: true, evidenced: authEvidencedByMain, run: probeAuth},
		{conn: ConnStatelessHeaders, transports: httpOnly, sessions: true, stateless: true, perRevision: true, run: probeStatelessHeaders},
		{conn: ConnBatch, sessions: true, revision: protocol.Revision20250326, perRevision: true, run: probeBatch},
		{conn: ConnServerCard, transports: httpOnly, run: probeServerCard},
		{conn: ConnStatelessRemoved, sessions: true, stateless: true, statelessOnly: true, perRevision: true, run: probeRemovedMethods},
		{conn: ConnStatelessSession, transports: httpOnly, sessions: true, stateless: true, statelessOnly: true, perRevision: true, run: probeNoSession},
		{conn: ConnStatelessGetDelete, transports: httpOnly, sessions: true, stateless: true, statelessOnly: true, perRevision: true, run: probeGetDelete},
		{conn: ConnSubscriptions, sessions: true, stateless: true, perRevision: true, when: listensFor, run: probeSubscriptions},
		{conn: ConnConcurrent, transports: httpOnly, sessions: true, stateless: true, statelessOnly: true, run: probeConcurrent},
		{conn: ConnTLSVersion, transports: httpOnly, run: probeTLSVersion},
	}
}

// appliesTo reports whether the probe runs against target t with options o.
func (p ruleProbe) appliesTo(t Target, o Options) bool {
	if p.statelessOnly && !protocol.Stateless(o.ProtocolVersion) {
		return false
	}
	if p.sessions && !p.stateless && protocol.Stateless(o.ProtocolVersion) && !o.detectEra && !o.sessionRulesToo {
		return false
	}
	if p.transports == nil {
		return true
	}
	for _, tr := range p.transports {
		if tr == t.Kind() {
			return true
		}
	}
	return false
}

// ruleOptions are the options of a rule probe's connection. A rule probe exchanges a few
// small messages, so its share of the probe's bounds is smaller than the main session's:
// a hostile server that floods every connection must not multiply what the probe holds.
// The revision offered is one that has initialize: when the probe detects the era itself,
// the rule probes judge the session-era rules of a server that speaks both.
func ruleOptions(o Options) Options {
	o.Limits.MaxFrames = max(100, o.Limits.MaxFrames/20)
	o.Limits.MaxTotalBytes = max(1<<20, o.Limits.MaxTotalBytes/8)
	o.Limits.MaxMessageBytes = int(min(int64(o.Limits.MaxMessageBytes), o.Limits.MaxTotalBytes))
	if protocol.Stateless(o.ProtocolVersion) {
		o.ProtocolVersion = protocol.LatestSessionRevision
	}
	return o
}

// credentialFree reports whether t carries none of the user's credentials: it is its own
// anonymousTarget.
func credentialFree(t Target) bool {
	if len(t.Header) > 0 {
		return false
	}
	u, err := url.Parse(t.URL)
	return err == nil && u.User == nil
}

// anonymousTarget is t without any credential of the user: no headers, no user info.
func anonymousTarget(t Target) Target {
	t.Header = nil
	if u, err := url.Parse(t.URL); err == nil && u.User != nil {
		u.User = nil
		t.URL = u.String()
	}
	return t
}

// ruleSet runs the rule probes beside the main session.
type ruleSet struct {
	wg    sync.WaitGroup
	conns []*ruleConn
}

// startRules starts every rule probe that applies, each on its own connection. A probe of
// the session era waits for the main connection's era decision (after starting a stdio
// server, so that its start-up overlaps the main one's); against a server found stateless it
// runs only when the revision was left to detection and the era probe found that the server
// speaks a session revision too.
func startRules(ctx context.Context, t Target, o Options, tr *Transcript, dial dialFunc, era *eraShare, handshake *handoff[Step], sessionEra *sessionEraProbe, robust <-chan bool) *ruleSet {
	rs := &ruleSet{}
	if o.skipRules {
		return rs
	}
	ro := ruleOptions(o)
	for _, p := range ruleProbes() {
		if !p.appliesTo(t, o) || o.RulesElsewhere != "" && !(p.perRevision && o.revisionRules) {
			continue
		}
		target := t
		if p.anonymous {
			target = anonymousTarget(t)
		}
		c := newRuleConn(p.conn, target, ro, tr, dial)
		c.mainHandshake, c.sessionEra, c.era = handshake, sessionEra, era
		rs.conns = append(rs.conns, c)
		rs.wg.Add(1)
		go func() {
			defer rs.wg.Done()
			// The robustness probes open a connection of their own only when the negotiation
			// connection could not carry them and the main connection's handshake succeeded.
			if p.conn == ConnRobustness && <-robust {
				return
			}
			if p.statelessOnly && !era.wait(ctx).stateless {
				return
			}
			if p.revision != "" && ro.ProtocolVersion != p.revision && answeredRevision(handshake.wait(ctx).Result) != p.revision {
				return
			}
			if p.when != nil && !p.when(handshake.wait(ctx)) {
				return
			}
			legacy := false
			if t.Kind() == protocol.TransportHTTP {
				// Like the negotiation connection: a URL the main connection found to be
				// legacy HTTP+SSE is dialled as such, and the Streamable HTTP rules do
				// not apply to it.
				if d := era.wait(ctx); d.transport == protocol.TransportSSE {
					// The robustness probes find the answer to a malformed message on the
					// event stream (see rawWatch), or in a refusal of the POST.
					if p.transports != nil && !p.sse {
						return
					}
					c.dial, legacy = dialSSE, true
				}
				// A server that gave the main connection's handshake no HTTP answer at all
				// (it hangs, or drops connections) would only make every rule connection
				// wait out the same timeout. One that answered, even with 401, is probed:
				// the authorization probes judge exactly that.
				if hs, settled := handshake.settled(); settled && !answeredOverHTTP(hs) {
					return
				}
			}
			if p.evidenced != nil && p.evidenced(ctx, c, credentialFree(t)) {
				return
			}
			if legacy {
				// The legacy stream holds its socket for the connection's life.
				c.o.sockets = nil
			} else {
				defer c.o.sockets.lane(ctx)()
			}
			if err := c.open(ctx); err != nil {
				return
			}
			defer c.close(ctx)
			if d := era.wait(ctx); p.sessions && d.stateless {
				switch {
				case d.refused:
					return
				case p.stateless:
					c.statelessRevision = d.revision
				case !o.detectEra && !o.sessionRulesToo:
					return
				default:
					// The revision was left to detection: a server found stateless that also
					// speaks a session revision (its sessions keep their rules) gets the
					// session-era probes too, in the revision the rule connection offers.
					sessionEra.start(ctx)
					if !speaksSessionEra(sessionEra.wait(ctx)) {
						return
					}
				}
			}
			p.run(ctx, c)
		}()
	}
	return rs
}

// wait waits for every rule probe to end and returns their steps and processes.
func (rs *ruleSet) wait() ([]Step, []ProcessInfo) {
	rs.wg.Wait()
	var steps []Step
	var procs []ProcessInfo
	for _, c := range rs.conns {
		steps = append(steps, c.steps...)
		procs = append(procs, c.wire.processInfo()...)
	}
	return steps, procs
}

// answeredOverHTTP reports whether a step got any answer: a message, or at least an HTTP
// response head.
func answeredOverHTTP(st Step) bool {
	return st.Outcome == OutcomeOK || st.Outcome == OutcomeError || st.HTTPStatus != 0
}
