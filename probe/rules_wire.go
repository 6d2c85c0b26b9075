package probe

import (
	"bytes"
	"slices"
	"sync"
)

// watchedWire is the wire of a rule probe's connection: the connection's own wire, plus
// watches that look for the answer to a message the router cannot route, one sent without
// a readable id or without a method (lifecycle.parse-error, lifecycle.invalid-request).
type watchedWire struct {
	*connWire

	mu      sync.Mutex
	watches []*rawWatch
}

var _ Wire = (*watchedWire)(nil)

func (w *watchedWire) Record(f Frame) int {
	seq := w.connWire.Record(f)
	w.mu.Lock()
	ws := slices.Clone(w.watches)
	w.mu.Unlock()
	if len(ws) > 0 {
		fr, _ := w.transcript.Frame(seq)
		for _, x := range ws {
			x.see(fr)
		}
	}
	return seq
}

// watch starts looking for the answer to raw, to be sent next; id is its id when it has a
// readable one (nil otherwise).
func (w *watchedWire) watch(raw, id []byte) *rawWatch {
	x := &rawWatch{raw: raw, out: -1, found: make(chan answer, 1), onStream: w.answersArriveOnStream()}
	if id != nil {
		x.id, x.rawID, x.hasID = idKey(id), string(id), true
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.watches = append(w.watches, x)
	return x
}

func (w *watchedWire) unwatch(x *rawWatch) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.watches = slices.DeleteFunc(w.watches, func(y *rawWatch) bool { return y == x })
}

// rawWatch waits for the answer to one message: a response carrying its id, or (since the
// server could not read one) a response without an id or with "id": null. On Streamable HTTP only the
// frames of the message's own exchange count; on legacy HTTP+SSE those of the stream too.
type rawWatch struct {
	raw   []byte
	id    string
	rawID string // the id as sent
	hasID bool
	// batch: raw is a batch, and these are the (loose keys of the) ids still unanswered.
	batch map[string]bool
	found chan answer
	// onStream: answers come on the legacy HTTP+SSE event stream, not in the exchange of
	// the POST that sent the message.
	onStream bool

	mu       sync.Mutex
	out      int // Seq of the message once it was recorded (-1 before)
	exchange int
	done     bool
}

func (x *rawWatch) see(f Frame) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.done {
		return
	}
	if x.out < 0 {
		if f.Dir == Out && f.Kind == KindMessage && bytes.Equal(f.Raw, x.raw) {
			x.out, x.exchange = f.Seq, f.Exchange
		}
		return
	}
	if f.Dir != In {
		return
	}
	switch {
	case f.Kind == KindNote && (f.Note == NoteProcessExit || f.Note == NoteStdoutClosed || f.Note == NoteReadError ||
		f.Note == NoteTooLarge || f.Note == NoteTooMany):
		if f.Exchange == 0 || f.Exchange == x.exchange {
			x.deliver(answer{seq: f.Seq, frame: f, err: ErrClosed})
		}
	case f.Kind == KindMessage && x.batch != nil:
		// Told apart by their ids, which nothing else uses: over legacy HTTP+SSE the answers
		// come on the event stream, not in the POST's exchange.
		if x.batchAnswered(f.Raw) {
			x.deliver(answer{seq: f.Seq, frame: f})
		}
	case f.Exchange != x.exchange && !x.onStream:
	case f.Kind == KindNote && (f.Note == NoteStreamEnded || f.Note == NoteStreamNoAnswer):
		x.deliver(answer{seq: f.Seq, frame: f, err: ErrUnanswered})
	case f.Kind == KindMessage:
		env, ok := peekEnvelope(f.Raw)
		if ok && !env.hasMethod && (!env.hasID || x.hasID && idKey(env.id) == x.id) {
			x.deliver(answer{seq: f.Seq, frame: f, env: env})
		}
	}
}

// deliver hands over the answer; x.mu is held.
func (x *rawWatch) deliver(a answer) {
	x.done = true
	x.found <- a
}

// poll returns the answer if it has come.
func (x *rawWatch) poll() (answer, bool) {
	select {
	case a := <-x.found:
		return a, true
	default:
		return answer{}, false
	}
}
