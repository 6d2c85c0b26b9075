package probe

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpwatch/mcpwatch/protocol"
)

// session is one connection's conversation.
type session struct {
	conn       int
	target     Target
	o          Options
	transcript *Transcript
	dial       dialFunc
	wire       *connWire

	ready  chan struct{} // closed once tr is set (or the dial failed)
	trMu   sync.Mutex    // guards tr against answers to server requests (see transport)
	tr     Transport
	kind   string // the transport in use: the target's, until a detected one replaces it
	nextID int
	steps  []Step

	// era is the main connection's era decision, shared by the connections of a probe;
	// meta is the stateless revision the requests name in _meta ("" in the session era).
	era  *eraShare
	meta string
	// mainHandshake is the main connection's handshake step (initialize, or server/discover
	// of a stateless server), shared like era; the zero Step when it never got that far.
	// Whenever it is settled before the era is, it is published first, so that a connection
	// woken by the era sees it (see settled).
	mainHandshake *handoff[Step]
	// sessionEra is the probe's era probe (see ConnSessionEra), shared like era; nil on the
	// era probe's own connection.
	sessionEra *sessionEraProbe

	// statelessEra is set while the connection speaks a stateless revision: the probe then
	// answers no server request (see answerServerRequest).
	statelessEra atomic.Bool

	replyMu sync.Mutex     // orders replies.Add with close's Wait
	closing bool           // no more answers to server requests: the connection is closing
	replies sync.WaitGroup // answers to server-to-client requests still being sent
}

func newSession(conn int, t Target, o Options, tr *Transcript, dial dialFunc) *session {
	s := &session{conn: conn, target: t, o: o, transcript: tr, dial: dial, ready: make(chan struct{}),
		kind: t.Kind(), era: newEraShare(), mainHandshake: newHandoff[Step]()}
	s.wire = newConnWire(conn, tr, o.Limits, s.answerServerRequest)
	return s
}

func (s *session) open(ctx context.Context) error {
	defer close(s.ready)
	s.o.observe(Event{Kind: EventOpen, Conn: s.conn, Target: s.target.String()})
	tr, err := s.dial(ctx, s.target, s.conn, s.wire, s.o)
	if err != nil {
		return err
	}
	s.tr = tr
	return nil
}

// close ends the connection even when ctx is already done: the shutdown sequence must run so
// that no server process outlives the probe.
func (s *session) close(ctx context.Context) {
	if s.tr == nil {
		return
	}
	// A server request read from now on gets no answer: a WaitGroup must not be added to
	// while it is waited for.
	s.replyMu.Lock()
	s.closing = true
	s.replyMu.Unlock()
	bound := 2*s.o.ShutdownGrace + 5*time.Second
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), bound)
	defer cancel()
	s.o.observe(Event{Kind: EventClose, Conn: s.conn, Bound: bound})
	if err := s.tr.Close(cctx); err != nil {
		s.o.Logger.Debug("closing connection", "conn", s.conn, "err", err)
	}
	s.o.observe(Event{Kind: EventClosed, Conn: s.conn})
	s.replies.Wait()
}

func (s *session) run(ctx context.Context, res *Result) {
	// Whatever happens, the other connections must not wait for a decision in vain.
	defer s.era.publish(eraDecision{})
	defer s.mainHandshake.publish(Step{})
	if err := s.open(ctx); err != nil {
		res.Err = err.Error()
		// Era detection never ran, and the other connections get the session era (above):
		// so does the report, rather than a stateless revision nothing was offered in.
		if s.o.detectEra {
			res.Requested = protocol.LatestSessionRevision
		}
		return
	}
	defer s.close(ctx)

	stateless, disc, started := s.detectEra(ctx, res)
	if stateless {
		s.runStateless(ctx, res, disc)
		return
	}
	init := s.initialize(ctx, StepInitialize, s.o, started)
	s.mainHandshake.publish(init)
	s.era.publish(eraDecision{transport: s.kind})
	if init.Outcome != OutcomeOK {
		res.Err = "initialize failed: " + describeFailure(init) + s.processFate()
		return
	}
	res.Initialize = init.Result
	res.Negotiated = answeredRevision(init.Result)
	res.ProtocolVersion = res.Requested
	if protocol.KnownRevision(res.Negotiated) {
		res.ProtocolVersion = res.Negotiated
	}
	if va, ok := s.tr.(VersionAware); ok {
		va.SetProtocolVersion(res.ProtocolVersion)
	}

	res.InitializedAt = s.notify(ctx, StepInitialized, "notifications/initialized").Request
	s.notify(ctx, StepUnknownNotification, UnknownNotificationMethod)

	s.list(ctx, StepToolsList, "tools/list")
	s.list(ctx, StepResourcesList, "resources/list")
	s.list(ctx, StepTemplatesList, "resources/templates/list")
	s.list(ctx, StepPromptsList, "prompts/list")
	// A string id, so that the echo of both id types is observed.
	s.callWithID(ctx, StepPing, "ping", nil, json.RawMessage(`"mcpwatch-ping"`), s.o.RequestTimeout, 0)
	s.call(ctx, StepUnknownMethod, UnknownMethod, json.RawMessage(`{}`), s.o.RequestTimeout, 0)
	s.probeToolRules(ctx, init.Result)
	s.probeCalls(ctx, init.Result, res)
	s.probeResources(ctx, init.Result)
	s.probeFeatureReads(ctx, init.Result, res.ProtocolVersion)
	s.probeListRepeat(ctx, init.Result)
}

// list follows nextCursor until it is absent, repeats, is not a string, or MaxPages is reached.
func (s *session) list(ctx context.Context, name, method string) {
	cursor := ""
	seen := map[string]bool{}
	for page := 1; page <= s.o.Limits.MaxPages; page++ {
		var params json.RawMessage
		if page > 1 {
			params, _ = json.Marshal(map[string]string{"cursor": cursor})
		}
		st := s.call(ctx, name, method, params, s.o.RequestTimeout, page)
		if st.Outcome != OutcomeOK {
			return
		}
		next, more := pageCursor(st.Result)
		if !more || seen[next] {
			return
		}
		seen[next] = true
		cursor = next
	}
}

// answerServerRequest answers what a server asks of the probe: ping with an empty result,
// anything else with method-not-found, since the probe declares no client capabilities.
// Under a stateless revision it answers nothing: a server request is the server's fault
// there, and answering it would be the probe's (2026-07-28 basic/transports/stdio, "Sending
// Messages": "The client MUST NOT write JSON-RPC responses"; streamable-http: "The client
// MUST NOT send JSON-RPC responses"). The request stays in the transcript.
func (s *session) answerServerRequest(_ Frame, id json.RawMessage, method string) {
	if s.statelessEra.Load() {
		return
	}
	<-s.ready
	tr := s.transport()
	if tr == nil {
		return
	}
	s.replyMu.Lock()
	if s.closing {
		s.replyMu.Unlock()
		return
	}
	s.replies.Add(1)
	s.replyMu.Unlock()
	defer s.replies.Done()
	var reply []byte
	if method == "ping" {
		reply = []byte(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":{}}`)
	} else {
		reply = []byte(`{"jsonrpc":"2.0","id":` + string(id) + `,"error":{"code":` + strconv.Itoa(protocol.CodeMethodNotFound) + `,"message":"method not found"}}`)
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.o.RequestTimeout)
	defer cancel()
	_, _ = tr.Send(ctx, reply)
}

// processFate says how a stdio server process ended, when it did, for error messages.
func (s *session) processFate() string {
	for _, p := range s.wire.processInfo() {
		switch {
		case !p.Exited:
		case p.Signal != "":
			return fmt.Sprintf(" (the server process was killed by %s)", p.Signal)
		default:
			return fmt.Sprintf(" (the server process exited with status %d)", p.ExitCode)
		}
	}
	return ""
}

func describeFailure(st Step) string {
	switch {
	case st.Outcome == OutcomeError && st.ErrorCode != nil:
		return fmt.Sprintf("JSON-RPC error %d", *st.ErrorCode)
	case st.Outcome == OutcomeError:
		return "JSON-RPC error with code " + string(st.ErrorCodeRaw)
	case st.HTTPStatus != 0 && st.HTTPStatus != 200:
		return fmt.Sprintf("HTTP status %d", st.HTTPStatus)
	case st.Err != "":
		return st.Err
	}
	return string(st.Outcome)
}
