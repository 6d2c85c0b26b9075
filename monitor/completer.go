package monitor

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/mcpwatch/mcpwatch/store"
)

// completeLinger is how long the completer waits, once a lease is handed to it, for the
// others that come with it: the buffer makes runs durable a write at a time, and the probes
// of one write then all complete their leases within a moment. Small next to any lease's
// margin, and to the claim loop's ClaimInterval.
const completeLinger = 5 * time.Millisecond

// maxCompleteBatch bounds the leases completed in one statement.
const maxCompleteBatch = 500

// completer completes the worker's leases in batches: one round trip to the database for
// all the slots that end together, rather than one each (a twentieth of a probe's CPU was the
// worker's single-lease Complete, most of it in the write and read of its round trip).
type completer struct {
	st   SlotClaimer
	wake chan struct{}

	mu    sync.Mutex
	queue []*completion
}

// completion is one lease waiting to be completed, and then its result.
type completion struct {
	c    store.Completion
	done chan struct{}
	// held says that the lease was completed, err that the batch failed; set before done
	// is closed.
	held bool
	err  error
}

func newCompleter(st SlotClaimer) *completer {
	return &completer{st: st, wake: make(chan struct{}, 1)}
}

// complete completes one lease with the next batch, as SlotClaimer's Complete would: an error
// wrapping store.ErrLeaseLost when the lease was not held any more.
func (q *completer) complete(ctx context.Context, c store.Completion) error {
	req := &completion{c: c, done: make(chan struct{})}
	q.mu.Lock()
	q.queue = append(q.queue, req)
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
	select {
	case <-req.done:
	case <-ctx.Done():
		return ctx.Err()
	}
	switch {
	case req.err != nil:
		return req.err
	case !req.held:
		return fmt.Errorf("server %d in %q: %w", c.Lease.ServerID, c.Lease.Region, store.ErrLeaseLost)
	}
	return nil
}

// run completes what is queued, a batch at a time, until ctx is done. A lease whose caller
// stopped waiting is completed all the same: whether it was could not be known anyway.
func (q *completer) run(ctx context.Context) {
	for {
		select {
		case <-q.wake:
		case <-ctx.Done():
			return
		}
		if !sleep(ctx, nil, nil, completeLinger) {
			return
		}
		for q.completeBatch(ctx) {
		}
	}
}

// completeBatch completes up to maxCompleteBatch queued leases and reports whether more wait.
func (q *completer) completeBatch(ctx context.Context) bool {
	q.mu.Lock()
	n := min(len(q.queue), maxCompleteBatch)
	batch := q.queue[:n:n]
	q.queue = q.queue[n:]
	more := len(q.queue) > 0
	q.mu.Unlock()
	if n == 0 {
		return false
	}
	cs := make([]store.Completion, n)
	for i, req := range batch {
		cs[i] = req.c
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	held, err := q.st.CompleteLeases(cctx, cs)
	cancel()
	for i, req := range batch {
		if err != nil {
			req.err = err
		} else {
			req.held = held[i]
		}
		close(req.done)
	}
	return more
}
