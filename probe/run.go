package probe

import (
	"context"
	"fmt"
	"sort"
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
	o.observe(Event{Kind: EventStart, Target: t.String(), Bound: o.Timeout})
	transcript := NewTranscript()
	res := &Result{
		Target: t.String(), Transport: t.Kind(), Requested: o.ProtocolVersion,
		InitializedAt: -1, Start: transcript.Start(), RulesElsewhere: o.RulesElsewhere,
	}
	// The moment the caller cancels (not a deadline of its own, which is a timeout like
	// o.Timeout) is an interrupt: what was cut short then was not the server's doing.
	var interruptedAt atomic.Int64
	o.caller = ctx
	stopWatching := context.AfterFunc(ctx, func() {
		if o.wasInterrupted() {
			interruptedAt.Store(int64(max(time.Since(res.Start), time.Nanosecond)))
		}
	})
	defer stopWatching()
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()

	main := newSession(ConnMain, t, o, transcript, dial)
	// The other connections share keep-alive sockets (see http1Shared); the main one keeps
	// its own.
	shared := o
	shared.sockets = newHTTP1Shared(t, o)
	defer shared.sockets.close()
	neg := newRuleConn(ConnNegotiation, t, shared, transcript, dial)
	// The negotiation connection's probes depend on the era the main connection detects,
	// and the rule probes on how its handshake went.
	era, handshake := newEraShare(), newHandoff[Step]()
	main.era, neg.era = era, era
	main.mainHandshake, neg.mainHandshake = handshake, handshake
	sessionEra := newSessionEraProbe(t, ruleOptions(shared), transcript, dial)
	main.sessionEra, neg.sessionEra = sessionEra, sessionEra
	// The robustness probes ride the negotiation connection when it is initialized (on stdio
	// that spares a server process); robust says whether they are taken care of: they rode
	// it, or there is no point in a connection of their own.
	robust := make(chan bool, 1)
	rules := startRules(ctx, t, shared, transcript, dial, era, handshake, sessionEra, robust)

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
	if o.wasInterrupted() {
		at := time.Duration(interruptedAt.Load())
		if at == 0 { // the watcher runs in a goroutine of its own, and may not have yet
			at = time.Since(res.Start)
		}
		res.Interrupted = at
		res.Err = fmt.Sprintf("interrupted after %s, before the probe finished", at.Round(time.Millisecond))
	} else if res.Err == "" && ctx.Err() != nil {
		res.Err = fmt.Sprintf("probe did not finish within %s", o.Timeout)
	}
	if len(res.Calls) == 0 {
		res.Calls = callsNeverReached(o.Calls, res.Err)
	}
	o.observe(Event{Kind: EventFinish, Err: res.Err})
	return res, nil
}
