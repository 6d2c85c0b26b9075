package probe

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/mcpwatch/mcpwatch/protocol"
)

// ConnSessionEra is the connection of the era probe: initialize on a connection (over stdio a
// server process) of its own, which nothing stateless ever reaches. It tells whether a server
// also speaks a session revision without changing the era of a connection the probe judges:
// a dual-era server may hold a process in the era its opening chose, and initialize selects
// the session era for the whole process (2026-07-28 basic/versioning, "Backward
// Compatibility": "An initialize request selects legacy semantics, scoped to the stdio
// process (stdio) or the session (HTTP)").
const ConnSessionEra = 40

// sessionEraProbe runs the era probe at most once, when someone needs its answer: era
// detection, for a stdio server slow to answer server/discover; the rule probes of the
// session era, against an HTTP server found stateless; discover.meta-required, to know how a
// server may read a request that names no revision.
type sessionEraProbe struct {
	s      *session
	once   sync.Once
	begun  atomic.Bool
	wg     sync.WaitGroup
	result *handoff[Step]
	// abandon, closed by stop, ends a wait that no longer matters.
	abandon  chan struct{}
	stopOnce sync.Once
}

func newSessionEraProbe(t Target, o Options, tr *Transcript, dial dialFunc) *sessionEraProbe {
	o.ProtocolVersion = protocol.LatestSessionRevision
	return &sessionEraProbe{
		s:      newSession(ConnSessionEra, t, o, tr, dial),
		result: newHandoff[Step](),
		// Closed by stop only.
		abandon: make(chan struct{}),
	}
}

// start opens the connection and sends initialize, once; the answer is published to result.
// A probe without the connection (nil) never starts.
func (p *sessionEraProbe) start(ctx context.Context) {
	if p == nil {
		return
	}
	p.once.Do(func() {
		p.begun.Store(true)
		// Stopping also cancels the exchange: an HTTP Send waits for the response head.
		ctx, cancel := context.WithCancel(ctx)
		go func() {
			select {
			case <-p.abandon:
				cancel()
			case <-ctx.Done():
			}
		}()
		p.wg.Go(func() {
			defer cancel()
			s := p.s
			if err := s.open(ctx); err != nil {
				p.result.publish(Step{Name: StepEraInitialize, Method: "initialize", Conn: s.conn,
					Request: -1, Response: -1, Outcome: OutcomeTransport, Err: err.Error()})
				return
			}
			defer s.close(ctx)
			ip := s.prepare(StepEraInitialize, "initialize", initializeParams(s.o), s.nextRequestID(), s.o.InitTimeout, 0)
			st := s.exchange(ctx, ip, p.abandon)
			s.steps = append(s.steps, st)
			p.result.publish(st)
		})
	})
}

// wait is the era probe's initialize once answered (the zero Step when it never started or
// ctx ended first).
func (p *sessionEraProbe) wait(ctx context.Context) Step {
	if p == nil || !p.started() {
		return Step{}
	}
	return p.result.wait(ctx)
}

func (p *sessionEraProbe) started() bool { return p.begun.Load() }

// stop stops waiting for an answer that no longer matters (era detection decided without it).
func (p *sessionEraProbe) stop() {
	if p != nil {
		p.stopOnce.Do(func() { close(p.abandon) })
	}
}

// finish waits for the probe's connection to end and returns its steps and processes.
func (p *sessionEraProbe) finish() ([]Step, []ProcessInfo) {
	if p == nil {
		return nil, nil
	}
	p.wg.Wait()
	return p.s.steps, p.s.wire.processInfo()
}

// speaksSessionEra reports whether the era probe's initialize was answered with a result
// naming a session revision.
func speaksSessionEra(st Step) bool {
	return st.Outcome == OutcomeOK && protocol.KnownSessionRevision(answeredRevision(st.Result))
}
