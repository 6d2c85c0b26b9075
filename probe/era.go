package probe

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/mcpwatch/mcpwatch/protocol"
)

// Step names of era detection and of the stateless revision.
const (
	// StepDiscover is server/discover on the main connection: the first request under a
	// stateless revision, and the probe of era detection.
	StepDiscover = "server/discover"
	// StepDiscoverUnsupported is server/discover naming protocol.BogusStatelessRevision, on the
	// negotiation connection of a stateless server (2026-07-28 basic/versioning: -32022 expected).
	StepDiscoverUnsupported = "discover-unsupported-version"
	// StepMetaMissing is a stateless request without the _meta it requires (-32602 expected).
	StepMetaMissing = "request-without-meta"
	// StepMetaNoProtocolVersion and StepMetaNoClientCapabilities are stateless requests whose
	// _meta lacks only that required key (-32602 expected); StepMetaNoClientInfo is one whose
	// _meta lacks only the optional clientInfo (to be served).
	StepMetaNoProtocolVersion    = "request-without-protocol-version"
	StepMetaNoClientCapabilities = "request-without-client-capabilities"
	StepMetaNoClientInfo         = "request-without-client-info"
	// StepEraInitialize is the era probe's initialize, on a connection of its own
	// (ConnSessionEra): does the server speak a session revision too?
	StepEraInitialize = "initialize-era-detection"
	// StepTransportProbe is a POST the server refused while the transport was being
	// detected: the target turned out to speak legacy HTTP+SSE.
	StepTransportProbe = "transport-detection"
)

// eraWindow is how long era detection waits for the answer to server/discover before the era
// probe sends initialize on a connection of its own (see settleEra). A server of the session
// era may ignore a method it does not know before initialize; this bounds what that costs,
// while a stateless server that is still starting is recognised all the same by its answer
// to server/discover, which comes first.
const eraWindow = 2 * time.Second

// eraDecision is what the main connection found out about the server's era; the
// negotiation connection waits for it to know which probes make sense.
type eraDecision struct {
	stateless bool
	revision  string // the stateless revision spoken (when stateless)
	// transport is the one the main connection speaks once settled (protocol.TransportSSE when a
	// detected transport turned out to be legacy HTTP+SSE); "" when it never got that far.
	transport string
	// refused: the server refused the stateless revision it was explicitly asked in, so
	// there is nothing for the negotiation connection to probe.
	refused bool
}

// eraShare hands the main connection's decision to the other connections, once; waiting
// in vain (the probe's context ended) gets the session era.
type eraShare = handoff[eraDecision]

func newEraShare() *eraShare { return newHandoff[eraDecision]() }

// publishSessionEra tells the other connections that the server has sessions, unless the
// transport is still to be detected: then run publishes once initialize settled it.
func (s *session) publishSessionEra() {
	if !s.target.detectsTransport() {
		s.era.publish(eraDecision{transport: s.kind})
	}
}

// speak sets the revision the connection's requests name: in _meta, and (HTTP) in
// MCP-Protocol-Version and the stateless headers. "" is the session era before initialize.
func (s *session) speak(revision string, meta bool) {
	s.statelessEra.Store(protocol.Stateless(revision))
	s.meta = ""
	if meta {
		s.meta = revision
	}
	if va, ok := s.transport().(VersionAware); ok {
		va.SetProtocolVersion(revision)
	}
}

// speakingOver is o for a connection over transport kind: legacy HTTP+SSE belongs to the
// session era (nothing stateless travels over it), so a revision left to detection is the
// newest session one there.
func (o Options) speakingOver(kind string) Options {
	if o.detectEra && kind == protocol.TransportSSE && protocol.Stateless(o.ProtocolVersion) {
		o.ProtocolVersion = protocol.LatestSessionRevision
	}
	return o
}

// detectEra settles the era of the main connection (2026-07-28 basic/versioning): server/discover first; a
// DiscoverResult or an error only a stateless server sends means stateless, any other answer
// or none means the session era, whose initialize it then sends (and returns). With an
// explicit stateless revision there is no fallback: the server is probed statelessly
// whatever it answers.
func (s *session) detectEra(ctx context.Context, res *Result) (stateless bool, disc Step, init *Step) {
	// A URL found to be legacy HTTP+SSE on the way (a target given as such is settled in run).
	if o := s.o.speakingOver(s.kind); o.ProtocolVersion != s.o.ProtocolVersion {
		s.o, res.Requested = o, o.ProtocolVersion
	}
	rev := s.o.ProtocolVersion
	if !protocol.Stateless(rev) {
		s.publishSessionEra()
		return false, Step{}, nil
	}
	s.speak(rev, true)
	dp := s.prepare(StepDiscover, methodDiscover, json.RawMessage(`{}`), s.nextRequestID(), s.o.InitTimeout, 0)
	if !s.o.detectEra {
		disc = s.exchange(ctx, dp, nil)
		s.steps = append(s.steps, disc)
		s.mainHandshake.publish(disc)
		s.era.publish(eraDecision{stateless: true, revision: rev, transport: s.kind, refused: disc.Outcome != OutcomeOK})
		return true, disc, nil
	}
	return s.settleEra(ctx, res, dp, rev)
}

// settleEra is era detection once server/discover is ready to go: it must never change the
// era of the connection it judges. initialize selects the session era for a whole stdio
// process, or an HTTP session whose id would then ride on the stateless requests
// (2026-07-28 basic/versioning, "Backward Compatibility": "An initialize request selects
// legacy semantics, scoped to the stdio process (stdio) or the session (HTTP)"), so the main
// connection gets no initialize while its server/discover may still be answered.
// server/discover is awaited up to the init timeout (a server may take seconds to start);
// after the era window the era probe sends initialize on a connection of its own. The
// answer to server/discover decides, unless the era probe's initialize is answered first
// and server/discover stays unanswered as long again as that initialize took (at most an
// era window more): the server is up and speaks a session revision, and the main
// connection, opened earlier, ignores server/discover (a session-era server may: 2026-07-28
// basic/transports/stdio, "Backward Compatibility"). Only then does the main connection get
// its initialize, which run judges as the session's. The grace is for a dual-era server
// slow to start: both of its processes start alike, so on a loaded machine the era probe's
// may answer first although the main process, opened an era window earlier, is about to
// answer server/discover; without it the same server was judged in either era from run to
// run.
func (s *session) settleEra(ctx context.Context, res *Result, dp *pendingCall, rev string) (bool, Step, *Step) {
	discovered := make(chan Step, 1)
	// Abandoning server/discover also cancels its exchange: an HTTP Send waits for the
	// response head, which a server that ignores the method may never send.
	abandonDiscover := make(chan struct{})
	discCtx, cancelDiscover := context.WithCancel(ctx)
	defer cancelDiscover()
	go func() { discovered <- s.exchange(discCtx, dp, abandonDiscover) }()
	window := time.NewTimer(min(eraWindow, s.o.InitTimeout/2))
	defer window.Stop()

	var disc Step
	var eraAnswered <-chan struct{}
	var graceOver <-chan time.Time
	var eraStarted time.Time
	initTimeout := s.o.InitTimeout
wait:
	for {
		select {
		case disc = <-discovered:
			if statelessAnswer(s, disc, rev) {
				s.steps = append(s.steps, disc)
				s.mainHandshake.publish(disc)
				s.era.publish(eraDecision{stateless: true, revision: rev, transport: s.kind})
				return true, disc, nil
			}
			if disc.Outcome == OutcomeNoAnswer {
				if st, ok := s.sessionEra.result.settled(); !ok || !speaksSessionEra(st) {
					// Nothing came within the init timeout: initialize gets the era window,
					// so that a server that never answers costs one init timeout, not two.
					initTimeout = min(eraWindow, s.o.InitTimeout/2)
				}
			}
			break wait
		case <-window.C:
			eraStarted = time.Now()
			s.sessionEra.start(ctx)
			eraAnswered = s.sessionEra.result.done
		case <-eraAnswered:
			eraAnswered = nil
			if st, _ := s.sessionEra.result.settled(); speaksSessionEra(st) {
				grace := time.NewTimer(min(time.Since(eraStarted), eraWindow))
				defer grace.Stop()
				graceOver = grace.C
			}
		case <-graceOver:
			close(abandonDiscover)
			cancelDiscover()
			disc = <-discovered
			break wait
		}
	}
	s.sessionEra.stop()
	s.steps = append(s.steps, disc)
	s.speak("", false)
	s.o.ProtocolVersion = protocol.LatestSessionRevision
	res.Requested = protocol.LatestSessionRevision
	init := s.call(ctx, StepInitialize, "initialize", initializeParams(s.o), initTimeout, 0)
	// The handshake before the era: a connection woken by the era sees it. A transport still
	// to be detected is settled by run, which may fall back to legacy HTTP+SSE and publishes
	// both once initialize went through there.
	if !s.target.detectsTransport() {
		s.mainHandshake.publish(init)
	}
	s.publishSessionEra()
	return false, disc, &init
}

// statelessAnswer reads the answer to server/discover the way era detection must: a result
// that is a DiscoverResult naming the offered revision (or naming none), or an error only a
// stateless server sends, means stateless. No single error code decides: -32601 and the
// like, an HTTP error page or silence mean the session era. A DiscoverResult or an
// unsupported-version error that names only session revisions sends the probe to those.
func statelessAnswer(s *session, disc Step, offered string) bool {
	switch disc.Outcome {
	case OutcomeOK:
		vs, ok := supportedVersions(disc.Result)
		if !ok {
			return true
		}
		return slices.Contains(vs, offered) || !anySessionRevision(vs)
	case OutcomeError, OutcomeTransport:
		// Over HTTP a stateless server answers errors with 400 or 404 and the error in the
		// body: the step failed at the status, the body tells the era.
		code, ok := errorCodeOf(s, disc)
		if !ok {
			return false
		}
		switch code {
		case protocol.CodeHeaderMismatch, protocol.CodeMissingClientCapability:
			return true
		case protocol.CodeUnsupportedProtocolVersion:
			return !anySessionRevision(supportedInError(s, disc))
		}
		// Any other error: stateless only when its data names stateless revisions as the
		// ones supported (a server that speaks a newer stateless revision than the probe).
		supported := supportedInError(s, disc)
		return len(supported) > 0 && !anySessionRevision(supported) && anyStateless(supported)
	}
	return false
}

// errorCodeOf is the JSON-RPC error code that answered a step: its own, or that of the JSON
// body of the error status that answered it over HTTP.
func errorCodeOf(s *session, st Step) (int64, bool) {
	if st.ErrorCode != nil {
		return *st.ErrorCode, true
	}
	f, ok := errorFrame(s, st)
	if !ok {
		return 0, false
	}
	var m struct {
		Error *struct {
			Code *int64 `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(f.Raw, &m) != nil || m.Error == nil || m.Error.Code == nil {
		return 0, false
	}
	return *m.Error.Code, true
}

// errorFrame is the message that answered a step: the response frame, or the message the
// HTTP transport recorded from the body of an error status of the step's exchange.
func errorFrame(s *session, st Step) (Frame, bool) {
	f, ok := s.transcript.Frame(st.Response)
	if !ok {
		return Frame{}, false
	}
	if f.Kind == KindMessage {
		return f, true
	}
	if f.Exchange == 0 || f.Kind != KindHTTPResponse {
		return Frame{}, false
	}
	for _, g := range s.transcript.Frames()[f.Seq+1:] {
		if g.Conn == f.Conn && g.Exchange == f.Exchange && g.Dir == In && g.Kind == KindMessage {
			return g, true
		}
	}
	return Frame{}, false
}

// supportedInError reads error.data.supported of the answer to a step.
func supportedInError(s *session, st Step) []string {
	f, ok := errorFrame(s, st)
	if !ok {
		return nil
	}
	var m struct {
		Error struct {
			Data struct {
				Supported []string `json:"supported"`
			} `json:"data"`
		} `json:"error"`
	}
	_ = json.Unmarshal(f.Raw, &m)
	return m.Error.Data.Supported
}

// supportedVersions reads the supportedVersions of a DiscoverResult; false when the result
// names none.
func supportedVersions(discover json.RawMessage) ([]string, bool) {
	var r struct {
		SupportedVersions []string `json:"supportedVersions"`
	}
	if json.Unmarshal(discover, &r) != nil || r.SupportedVersions == nil {
		return nil, false
	}
	return r.SupportedVersions, true
}

func anySessionRevision(vs []string) bool {
	return slices.ContainsFunc(vs, protocol.KnownSessionRevision)
}

func anyStateless(vs []string) bool { return slices.ContainsFunc(vs, protocol.Stateless) }
