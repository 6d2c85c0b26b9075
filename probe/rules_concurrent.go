package probe

import (
	"context"
	"encoding/json"
	"sync"
)

// The http.concurrent-requests probe: two requests that change nothing, POSTed at the same
// time on one session (in the stateless era each self-contained, with its _meta and
// headers), each of which must be answered. Every request gets a response (JSON-RPC 2.0
// §4: "the Server MUST reply with a Response"), and Streamable HTTP gives every request a
// POST of its own, so a server that holds one request at a time and drops the next leaves a
// client with several requests in flight unanswered.

// Connections of the concurrency probe: its own against a server found stateless (no
// handshake), and in the session era the session of ConnProtocolHeader, whose probe sends
// the two requests first (see probeStreamAndHeader): they change nothing, so the session
// needs no handshake of its own.
const (
	ConnConcurrent        = 55
	ConnConcurrentSession = ConnProtocolHeader
)

// The two requests of the concurrency probe, sent together.
const (
	StepConcurrentFirst  = "concurrent-first"
	StepConcurrentSecond = "concurrent-second"
)

// probeConcurrent speaks the revision of a server found stateless and sends two
// server/discover requests (ping no longer exists) at once (see concurrentPair).
func probeConcurrent(ctx context.Context, c *ruleConn) {
	if c.statelessRevision == "" {
		return
	}
	c.speak(c.statelessRevision, true)
	c.concurrentPair(ctx, methodDiscover, json.RawMessage(`{}`))
}

// concurrentPair sends two requests of method, each on a POST of its own, both in flight
// before either is awaited. Each is bounded by the request timeout.
func (c *ruleConn) concurrentPair(ctx context.Context, method string, params json.RawMessage) {
	calls := []*pendingCall{
		c.prepare(StepConcurrentFirst, method, params, c.nextRequestID(), c.o.RequestTimeout, 0),
		c.prepare(StepConcurrentSecond, method, params, c.nextRequestID(), c.o.RequestTimeout, 0),
	}
	steps := make([]Step, len(calls))
	var wg sync.WaitGroup
	for i, p := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			steps[i] = c.exchange(ctx, p, nil)
		}()
	}
	wg.Wait()
	c.steps = append(c.steps, steps...)
}
