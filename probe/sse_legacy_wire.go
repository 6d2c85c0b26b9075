package probe

// The legacy HTTP+SSE transport answers on a stream of its own rather than in the response
// to each POST; these are the two things the connection's wire must learn from it.

// answersOnStream tells the wire that a 2xx answer to a POST carries no response: the
// response comes on the event stream.
func (w *connWire) answersOnStream() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.streamAnswers = true
}

// answersArriveOnStream reports whether answers come on the event stream (see
// answersOnStream).
func (w *connWire) answersArriveOnStream() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.streamAnswers
}

// closeWaiters fails every request still waiting: the stream that would have carried their
// answers is gone.
func (w *connWire) closeWaiters(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.failAll(err)
}

// streamWire is what the legacy transport needs of a Wire beyond the interface (connWire has
// it; a test's recording wire may not).
type streamWire interface {
	answersOnStream()
	closeWaiters(err error)
}
