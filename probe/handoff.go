package probe

import (
	"context"
	"sync"
)

// handoff is a value one connection settles once and the others wait for: what the main
// connection found out (its era, whether its handshake succeeded) decides what the rule
// connections probe.
type handoff[T any] struct {
	once sync.Once
	done chan struct{}
	v    T
}

func newHandoff[T any]() *handoff[T] { return &handoff[T]{done: make(chan struct{})} }

// publish settles the value; later calls change nothing.
func (h *handoff[T]) publish(v T) {
	h.once.Do(func() {
		h.v = v
		close(h.done)
	})
}

// settled returns the value without waiting, and whether it is settled yet.
func (h *handoff[T]) settled() (T, bool) {
	select {
	case <-h.done:
		return h.v, true
	default:
		var zero T
		return zero, false
	}
}

// wait returns the value, or T's zero value if ctx ends first.
func (h *handoff[T]) wait(ctx context.Context) T {
	select {
	case <-h.done:
		return h.v
	case <-ctx.Done():
		var zero T
		return zero
	}
}
