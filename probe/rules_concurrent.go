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

// ConnConcurrent is the connection of the concurrency probe.
const ConnConcurrent = 55

// The two requests of the concurrency probe, sent together.
const (
	StepConcurrentFirst  = "concurrent-first"
	StepConcurrentSecond = "concurrent-second"
)

// probeConcurrent initializes (or, against a stateless server, speaks its revision) and
// sends two pings, or two server/discover requests where ping no longer exists, each on a
// POST of its own, both in flight before either is awaited. Each is bounded by the request
// timeout.
func probeConcurrent(ctx context.Context, c *ruleConn) {
	method, params := "ping", json.RawMessage(nil)
	if c.statelessRevision != "" {
		c.speak(c.statelessRevision, true)
		method, params = methodDiscover, json.RawMessage(`{}`)
	} else if !c.handshake(ctx) {
		return
	}
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
