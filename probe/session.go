package probe

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpwatch/mcpwatch/protocol"
)

// dialFunc opens one connection to a target. It records through w; a stdio dial that cannot
// start the command returns an error wrapping ErrSpawn after recording the ProcessInfo.
type dialFunc func(ctx context.Context, t Target, conn int, w Wire, o Options) (Transport, error)

func dialerFor(t Target) dialFunc {
	switch t.Kind() {
	case protocol.TransportStdio:
		return dialStdio
	case protocol.TransportSSE:
		return dialSSE
	}
	return dialHTTP
}

// Run probes a target the way a client would and returns everything it observed. Server
// misbehaviour is never an error here (it is evidence in the Result); only an invalid target
// or options are.
func Run(ctx context.Context, t Target, o Options) (*Result, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	o = o.WithDefaults()
	return run(ctx, t, o, dialerFor(t))
}

func run(ctx context.Context, t Target, o Options, dial dialFunc) (*Result, error) {
	// A target given as legacy HTTP+SSE is known to be one before anything is sent: a stream
	// that cannot even be opened is judged as a session-era server's, not a stateless one's.
	o = o.speakingOver(t.Kind())
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()

	transcript := NewTranscript()
	res := &Result{
		Target: t.String(), Transport: t.Kind(), Requested: o.ProtocolVersion,
		InitializedAt: -1, Start: transcript.Start(), RulesElsewhere: o.RulesElsewhere,
	}
	main := newSession(ConnMain, t, o, transcript, dial)
	neg := newRuleConn(ConnNegotiation, t, o, transcript, dial)
	// The negotiation connection's probes depend on the era the main connection detects,
	// and the rule probes on how its handshake went.
	era, handshake := newEraShare(), newHandoff[Step]()
	main.era, neg.era = era, era
	main.mainHandshake, neg.mainHandshake = handshake, handshake
	sessionEra := newSessionEraProbe(t, ruleOptions(o), transcript, dial)
	main.sessionEra, neg.sessionEra = sessionEra, sessionEra
	// The robustness probes ride the negotiation connection when it is initialized (on stdio
	// that spares a server process); robust says whether they are taken care of: they rode
	// it, or there is no point in a connection of their own.
	robust := make(chan bool, 1)
	rules := startRules(ctx, t, o, transcript, dial, era, handshake, sessionEra, robust)

	// The negotiation connection runs beside the main session so that a slow-starting stdio
	// server costs its start-up time once, not twice.
	var wg sync.WaitGroup
	if negotiatesHere(o) {
		wg.Go(func() {
			rode := neg.negotiate(ctx)
			// Their own connection would begin with the handshake the main connection
			// failed: against a server that never answers, that is one more init timeout
			// (and one more process) for no evidence.
			robust <- rode || handshake.wait(ctx).Outcome != OutcomeOK
		})
	} else {
		robust <- false
	}
	main.run(ctx, res)
	wg.Wait()

	res.Transport = main.kind
	ruleSteps, ruleProcesses := rules.wait()
	eraSteps, eraProcesses := sessionEra.finish()
	res.Steps = append(main.steps, neg.steps...)
	res.Steps = append(res.Steps, ruleSteps...)
	res.Steps = append(res.Steps, eraSteps...)
	// Transcript order; a step whose request was never recorded (the transport refused it)
	// goes last rather than first.
	order := func(s Step) int {
		if s.Request < 0 {
			return int(^uint(0) >> 1)
		}
		return s.Request
	}
	sort.SliceStable(res.Steps, func(i, j int) bool { return order(res.Steps[i]) < order(res.Steps[j]) })
	res.Processes = append(main.wire.processInfo(), neg.wire.processInfo()...)
	res.Processes = append(res.Processes, ruleProcesses...)
	res.Processes = append(res.Processes, eraProcesses...)
	res.Frames = transcript.Frames()
	res.Duration = time.Since(res.Start)
	if res.Err == "" && ctx.Err() != nil {
		res.Err = fmt.Sprintf("probe did not finish within %s", o.Timeout)
	}
	return res, nil
}

// negotiatesHere reports whether the probe opens the negotiation connection. A probe that
// leaves the revision-independent probes to another (RulesElsewhere) leaves out the
// initialize with a bogus revision too, whose answer does not depend on the revision the
// main connection offers; a stateless revision's negotiation probes are its own.
func negotiatesHere(o Options) bool {
	return o.RulesElsewhere == "" || o.detectEra || protocol.Stateless(o.ProtocolVersion)
}

// answeredRevision is the protocolVersion an initialize result names ("" when none).
func answeredRevision(result json.RawMessage) string {
	var ir struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = json.Unmarshal(result, &ir)
	return ir.ProtocolVersion
}

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
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*s.o.ShutdownGrace+5*time.Second)
	defer cancel()
	if err := s.tr.Close(cctx); err != nil {
		s.o.Logger.Debug("closing connection", "conn", s.conn, "err", err)
	}
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
	rides := !c.o.skipRules && c.o.RulesElsewhere == ""
	if d.stateless {
		if d.refused {
			return false
		}
		c.negotiateStateless(ctx, d.revision)
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
	c.robustness(ctx)
	return true
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

func (s *session) call(ctx context.Context, name, method string, params json.RawMessage, timeout time.Duration, page int) Step {
	s.nextID++
	return s.callWithID(ctx, name, method, params, json.RawMessage(strconv.Itoa(s.nextID)), timeout, page)
}

func (s *session) callWithID(ctx context.Context, name, method string, params, id json.RawMessage, timeout time.Duration, page int) Step {
	st := s.exchange(ctx, s.prepare(name, method, params, id, timeout, page), nil)
	s.steps = append(s.steps, st)
	return st
}

func (s *session) notify(ctx context.Context, name, method string) Step {
	st := Step{Name: name, Method: method, Conn: s.conn, Request: -1, Response: -1, Outcome: OutcomeSent}
	seq, err := s.transport().Send(ctx, encodeMessage(nil, method, s.notificationParams()))
	st.Request = seq
	if err != nil {
		st.Outcome, st.Err = OutcomeTransport, err.Error()
	} else if sent, _ := s.transcript.Frame(seq); sent.Exchange != 0 {
		if head := s.wire.head(sent.Exchange); head >= 0 {
			hf, _ := s.transcript.Frame(head)
			st.Response = head
			st.Latency = hf.At - sent.At
			st.HTTPStatus = hf.HTTP.Status
			st.Outcome = OutcomeOK
			if hf.HTTP.Status < 200 || hf.HTTP.Status > 299 {
				st.Outcome = OutcomeTransport
			}
		}
	}
	s.steps = append(s.steps, st)
	return st
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

func encodeMessage(id json.RawMessage, method string, params json.RawMessage) []byte {
	var b bytes.Buffer
	b.WriteString(`{"jsonrpc":"2.0"`)
	if id != nil {
		b.WriteString(`,"id":`)
		b.Write(id)
	}
	b.WriteString(`,"method":`)
	b.Write(appendJSONString(nil, method))
	if params != nil {
		b.WriteString(`,"params":`)
		b.Write(params)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// initializeParams are the params of initialize: no client capabilities, members in the
// order json.Marshal gives a map (written out, since every connection sends one).
func initializeParams(o Options) json.RawMessage {
	b := make([]byte, 0, 128)
	b = append(b, `{"capabilities":{},"clientInfo":{"name":`...)
	b = appendJSONString(b, o.ClientName)
	b = append(b, `,"version":`...)
	b = appendJSONString(b, o.ClientVersion)
	b = append(b, `},"protocolVersion":`...)
	b = appendJSONString(b, o.ProtocolVersion)
	return append(b, '}')
}

// appendJSONString appends s as a JSON string; what the probe itself names (methods, its
// client name) is plain ASCII, which needs no encoder.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
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
