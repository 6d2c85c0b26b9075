package probe

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"sync"
	"time"

	"github.com/mcpwatch/mcpwatch/jsondoc"
)

// answer is what a waiting request gets: the frame that answered it, or why nothing will.
type answer struct {
	seq   int
	frame Frame
	env   envelope // of frame, when it is the answer message
	err   error    // ErrClosed, ErrLimit or a transport error: no message will come
	// abandoned: the caller stopped waiting (see session.exchange), not an answer at all.
	abandoned bool
}

// settle records on st where the answer came and how long after sent it took (no-op when no
// frame came).
func (a answer) settle(st *Step, sent Frame) {
	if a.seq < 0 {
		return
	}
	st.Response = a.seq
	st.Latency = a.frame.At - sent.At
	if a.frame.HTTP != nil {
		st.HTTPStatus = a.frame.HTTP.Status
	}
}

type waiter struct {
	ch       chan answer
	exchange int
	done     bool
}

// connWire is the Wire of one connection: it appends to the shared transcript, routes
// answers to the request waiting for them (matched by id value, loosely, so that a server
// that echoes 1 as "1" still lets the probe go on; the checks judge the echo strictly), and
// hands server-to-client requests to the session.
type connWire struct {
	conn       int
	transcript *Transcript
	limits     Limits
	onRequest  func(f Frame, id json.RawMessage, method string)

	mu        sync.Mutex
	waiters   map[string]*waiter
	heads     map[int]int // exchange -> Seq of its response head (or JSON message frame)
	processes []ProcessInfo
	frames    int
	bytes     int64
	closed    error
	// limitWhy says which limit closed the wire, when closed is ErrLimit.
	limitWhy string
	// streamAnswers: answers arrive on a stream of their own, not in the response to the
	// POST that carried the request (legacy HTTP+SSE), so a 2xx head fails nothing.
	streamAnswers bool
}

var _ Wire = (*connWire)(nil)

func newConnWire(conn int, t *Transcript, l Limits, onRequest func(Frame, json.RawMessage, string)) *connWire {
	return &connWire{
		conn: conn, transcript: t, limits: l, onRequest: onRequest,
		waiters: map[string]*waiter{}, heads: map[int]int{},
	}
}

func (w *connWire) Now() time.Duration { return time.Since(w.transcript.Start()) }

func (w *connWire) Stamp(seq int, at time.Duration) { w.transcript.SetAt(seq, at) }

func (w *connWire) Process(p ProcessInfo) {
	p.Conn = w.conn
	w.mu.Lock()
	defer w.mu.Unlock()
	for i := range w.processes {
		if w.processes[i].PID == p.PID {
			w.processes[i] = p
			return
		}
	}
	w.processes = append(w.processes, p)
}

// expect registers interest in the answer to id before the request is sent.
func (w *connWire) expect(id string) *waiter {
	wt := &waiter{ch: make(chan answer, 1)}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed != nil {
		wt.done = true
		wt.ch <- answer{seq: -1, err: w.closed}
		return wt
	}
	w.waiters[id] = wt
	return wt
}

func (w *connWire) forget(id string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.waiters, id)
}

// head returns the Seq of the response head of an HTTP exchange, or -1.
func (w *connWire) head(exchange int) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	if s, ok := w.heads[exchange]; ok {
		return s
	}
	return -1
}

func (w *connWire) Record(f Frame) int {
	f.Conn = w.conn
	if f.At == 0 {
		f.At = w.Now()
	}
	seq := w.transcript.Append(f)
	f.Seq = seq

	w.mu.Lock()
	defer w.mu.Unlock()
	if f.Dir == In {
		w.frames++
		w.bytes += int64(len(f.Raw))
	}
	if f.Exchange != 0 && f.Dir == In && f.HTTP != nil {
		if _, ok := w.heads[f.Exchange]; !ok {
			w.heads[f.Exchange] = seq
		}
	}
	switch {
	case f.Dir == Out && f.Kind == KindMessage && f.Exchange != 0:
		if env, ok := peekEnvelope(f.Raw); ok && env.hasID && env.hasMethod {
			if wt := w.waiters[idKey(env.id)]; wt != nil {
				wt.exchange = f.Exchange
			}
		}
	case f.Dir == In && f.Kind == KindMessage:
		env, ok := peekEnvelope(f.Raw)
		if !ok {
			if f.Exchange != 0 && f.SSE == nil {
				w.failBody(seq, f)
			}
			break
		}
		if env.hasMethod {
			if env.hasID && w.onRequest != nil {
				go w.onRequest(f, env.id, env.method)
			}
			break
		}
		if env.hasID {
			if wt := w.waiters[idKey(env.id)]; wt != nil && !wt.done {
				wt.done = true
				wt.ch <- answer{seq: seq, frame: f, env: env}
			}
		}
		if f.Exchange != 0 && f.SSE == nil {
			// A plain JSON body is all an exchange will ever answer: a request of that
			// exchange still waiting (wrong id, not a response) gets nothing more.
			w.failBody(seq, f)
		}
	case f.Dir == In && f.Kind == KindHTTPResponse && f.Exchange != 0:
		// A response head whose body carries no message: the request of that exchange will
		// get no answer. (An SSE head is followed by events, so it does not count here.)
		if f.HTTP != nil && isEventStream(f.HTTP.ContentType) && f.HTTP.Status == 200 {
			break
		}
		if w.streamAnswers && f.HTTP != nil && f.HTTP.Status >= 200 && f.HTTP.Status <= 299 {
			break
		}
		if errorBodyFollows(f) {
			break // the message frame recorded next settles the exchange
		}
		w.failExchange(f.Exchange, seq, f, ErrUnanswered)
	case f.Dir == In && f.Kind == KindNote:
		switch f.Note {
		case NoteStreamNoAnswer, NoteStreamEnded:
			if f.Exchange != 0 {
				w.failExchange(f.Exchange, seq, f, ErrUnanswered)
			}
		case NoteStdoutClosed, NoteProcessExit, NoteReadError:
			w.failAll(ErrClosed)
		case NoteTooLarge, NoteTooMany:
			w.failLimit(f.Detail)
		}
	}
	if f.Dir == In && w.closed == nil {
		switch {
		case w.frames >= w.limits.MaxFrames:
			w.failLimit(fmt.Sprintf("the transcript holds %d frames, as many as it may", w.limits.MaxFrames))
		case w.bytes >= w.limits.MaxTotalBytes:
			w.failLimit(fmt.Sprintf("the connection read %d bytes, as many as it may", w.limits.MaxTotalBytes))
		}
	}
	return seq
}

// overLimit reports whether the connection has read all it may (transports stop reading),
// and which limit it reached.
func (w *connWire) overLimit() (why string, over bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if errors.Is(w.closed, ErrLimit) {
		return w.limitWhy, true
	}
	return "", false
}

// failLimit gives the connection up because it reached a limit (why says which): the
// requests still waiting fail with an error that names it. w.mu is held.
func (w *connWire) failLimit(why string) {
	err := ErrLimit
	if why != "" {
		err = fmt.Errorf("the connection was given up: %s: %w", why, ErrLimit)
	}
	if w.closed == nil {
		w.limitWhy = why
	}
	w.failAll(err)
}

// failBody settles the requests of a body's exchange that it did not answer: with the
// response head when the body came with an error status (the head is what says the request
// failed), else with the body itself. w.mu is held.
func (w *connWire) failBody(seq int, f Frame) {
	if head, ok := w.heads[f.Exchange]; ok && head != seq {
		if hf, ok := w.transcript.Frame(head); ok && errorBodyFollows(hf) {
			w.failExchange(f.Exchange, head, hf, ErrUnanswered)
			return
		}
	}
	w.failExchange(f.Exchange, seq, f, ErrUnanswered)
}

func (w *connWire) failExchange(exchange, seq int, f Frame, err error) {
	for _, wt := range w.waiters {
		if wt.exchange == exchange && !wt.done {
			wt.done = true
			wt.ch <- answer{seq: seq, frame: f, err: err}
		}
	}
}

func (w *connWire) failAll(err error) {
	if w.closed == nil {
		w.closed = err
	}
	for _, wt := range w.waiters {
		if !wt.done {
			wt.done = true
			wt.ch <- answer{seq: -1, err: err}
		}
	}
}

func (w *connWire) processInfo() []ProcessInfo {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]ProcessInfo(nil), w.processes...)
}

// errorBodyFollows reports whether a response head is one whose JSON body the transport
// records next as a message (see httpTransport.recordBody): an error status whose body may
// be the JSON-RPC error answering the request, as the stateless revision prescribes (400 for
// invalid params, 404 for an unknown method).
func errorBodyFollows(f Frame) bool {
	return f.HTTP != nil && f.HTTP.Status >= 400 && len(f.Raw) > 0 && !f.Truncated &&
		isMediaType(f.HTTP.ContentType, "application/json")
}

// idKey is the loose identity of an id: 7 and "7" share it.
func idKey(id json.RawMessage) string {
	id = bytes.TrimSpace(id)
	if s, ok := jsondoc.Str(id); ok {
		return s
	}
	return string(id)
}

func isEventStream(contentType string) bool {
	if fast, sure := quickMediaType(contentType, "text/event-stream"); sure {
		return fast
	}
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "text/event-stream"
}
