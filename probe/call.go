package probe

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// errNotAwaited is the Err of a step whose answer the probe stopped waiting for because it
// no longer mattered (era detection decided on the other request).
var errNotAwaited = errors.New("not awaited: era detection decided without it")

// errInterrupted is the Err of a step whose wait the caller's interrupt ended (see
// Result.Interrupted).
var errInterrupted = errors.New("interrupted: the probe stopped waiting")

// pendingCall is one request of a session: prepared in the session's goroutine, sent and
// awaited possibly in another (era detection races server/discover against initialize).
type pendingCall struct {
	st      Step
	msg     []byte
	key     string
	wt      *waiter
	timeout time.Duration
}

// prepare encodes a request and registers for its answer. Under a stateless revision the
// request carries the _meta that revision requires.
func (s *session) prepare(name, method string, params, id json.RawMessage, timeout time.Duration, page int) *pendingCall {
	if s.meta != "" {
		params = withMeta(params, requestMeta(s.meta, s.o))
	}
	p := &pendingCall{
		st:  Step{Name: name, Method: method, Conn: s.conn, ID: string(id), Page: page, Request: -1, Response: -1},
		msg: encodeMessage(id, method, params), key: idKey(id), timeout: timeout,
	}
	p.wt = s.wire.expect(p.key)
	return p
}

// nextRequestID hands out the session's integer ids.
func (s *session) nextRequestID() json.RawMessage {
	s.nextID++
	return json.RawMessage(strconv.Itoa(s.nextID))
}

// exchange sends p and waits for its answer up to its timeout, ctx's end, or abandon closing
// (nil: never). It does not touch s.steps, so that it may run beside the session goroutine.
// The observer hears of the wait before the request goes (an HTTP Send waits for the answer
// itself) and of its end.
func (s *session) exchange(ctx context.Context, p *pendingCall, abandon <-chan struct{}) Step {
	s.o.observe(Event{Kind: EventWait, Conn: s.conn, Step: p.st.Name, Method: p.st.Method, Bound: p.timeout})
	st := s.sendAndAwait(ctx, p, abandon)
	if st.Outcome != OutcomeOK && st.Outcome != OutcomeError && st.Err != errNotAwaited.Error() && s.o.wasInterrupted() {
		// Whatever the transport made of the cancelled context (a timeout, a failed
		// write), the server was not what ended the wait.
		st.Outcome, st.Err = OutcomeNoAnswer, errInterrupted.Error()
	}
	s.o.observe(Event{Kind: EventAnswered, Conn: s.conn, Step: st.Name, Method: st.Method, Outcome: st.Outcome, Err: st.Err})
	return st
}

// sendAndAwait is exchange without the observer.
func (s *session) sendAndAwait(ctx context.Context, p *pendingCall, abandon <-chan struct{}) Step {
	st := p.st
	defer s.wire.forget(p.key)

	seq, err := s.transport().Send(ctx, p.msg)
	st.Request = seq
	if err != nil && abandoned(abandon) {
		st.Outcome, st.Err = OutcomeNoAnswer, errNotAwaited.Error()
		return st
	}
	if err != nil {
		st.Outcome, st.Err = OutcomeTransport, err.Error()
		if errors.Is(err, ErrTimeout) {
			// The HTTP transport bounds a whole exchange itself and records the timeout.
			st.Outcome = OutcomeNoAnswer
		}
		// An HTTP exchange can fail after its head arrived; a stdio write after the server
		// died fails at once. Either way nothing more will come for this id.
		return st
	}
	sent, _ := s.transcript.Frame(seq)

	var a answer
	select {
	case a = <-p.wt.ch: // an HTTP answer is mostly in by the time Send returns: no timer then
	default:
		a = s.await(ctx, p, abandon)
	}
	if a.abandoned {
		st.Outcome, st.Err = OutcomeNoAnswer, errNotAwaited.Error()
		return st
	}
	a.settle(&st, sent)
	if a.err != nil {
		st.Err = a.err.Error()
		st.Outcome = OutcomeTransport
		if errors.Is(a.err, ErrUnanswered) && st.HTTPStatus >= 200 && st.HTTPStatus <= 299 {
			st.Outcome = OutcomeNoAnswer
		}
		if a.err == ErrTimeout {
			st.Outcome = OutcomeNoAnswer
			s.wire.Record(Frame{Dir: In, Kind: KindNote, Note: NoteTimeout, Exchange: sent.Exchange,
				Detail: fmt.Sprintf("no answer to %s (id %s) within %s", st.Method, st.ID, p.timeout)})
		}
		return st
	}
	st.Outcome, st.Result, st.ErrorCodeRaw, st.ErrorCode = decodeAnswer(a.env)
	return st
}

// await waits for the answer to p up to its timeout, ctx's end, or abandon closing.
func (s *session) await(ctx context.Context, p *pendingCall, abandon <-chan struct{}) answer {
	timer := time.NewTimer(p.timeout)
	defer timer.Stop()
	select {
	case a := <-p.wt.ch:
		return a
	case <-timer.C:
	case <-ctx.Done():
	case <-abandon:
		return answer{seq: -1, abandoned: true}
	}
	return answer{seq: -1, err: ErrTimeout}
}

// transport is the connection's transport: it changes once, when a target whose transport
// is detected turns out to speak legacy HTTP+SSE, and answers to server requests read it
// from other goroutines.
func (s *session) transport() Transport {
	s.trMu.Lock()
	defer s.trMu.Unlock()
	return s.tr
}

func (s *session) setTransport(tr Transport) {
	s.trMu.Lock()
	defer s.trMu.Unlock()
	s.tr = tr
}

// abandoned reports whether the probe stopped waiting for a request (abandon closed).
func abandoned(abandon <-chan struct{}) bool {
	select {
	case <-abandon:
		return true
	default:
		return false
	}
}

func encodeMessage(id json.RawMessage, method string, params json.RawMessage) []byte {
	var b bytes.Buffer
	b.WriteString(`{"jsonrpc":"2.0"`)
	if id != nil {
		b.WriteString(`,"id":`)
		b.Write(id)
	}
	b.WriteString(`,"method":`)
	b.Write(appendJSONString(nil, method))
	if params != nil {
		b.WriteString(`,"params":`)
		b.Write(params)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// appendJSONString appends s as a JSON string; what the probe itself names (methods, its
// client name) is plain ASCII, which needs no encoder.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

func (s *session) call(ctx context.Context, name, method string, params json.RawMessage, timeout time.Duration, page int) Step {
	s.nextID++
	return s.callWithID(ctx, name, method, params, json.RawMessage(strconv.Itoa(s.nextID)), timeout, page)
}

func (s *session) callWithID(ctx context.Context, name, method string, params, id json.RawMessage, timeout time.Duration, page int) Step {
	st := s.exchange(ctx, s.prepare(name, method, params, id, timeout, page), nil)
	s.steps = append(s.steps, st)
	return st
}

func (s *session) notify(ctx context.Context, name, method string) Step {
	return s.notifyWith(ctx, name, method, s.notificationParams())
}

// notifyWith is notify with params of the caller's (notifications/cancelled names a request).
func (s *session) notifyWith(ctx context.Context, name, method string, params json.RawMessage) Step {
	st := Step{Name: name, Method: method, Conn: s.conn, Request: -1, Response: -1, Outcome: OutcomeSent}
	seq, err := s.transport().Send(ctx, encodeMessage(nil, method, params))
	st.Request = seq
	if err != nil {
		st.Outcome, st.Err = OutcomeTransport, err.Error()
	} else if sent, _ := s.transcript.Frame(seq); sent.Exchange != 0 {
		if head := s.wire.head(sent.Exchange); head >= 0 {
			hf, _ := s.transcript.Frame(head)
			st.Response = head
			st.Latency = hf.At - sent.At
			st.HTTPStatus = hf.HTTP.Status
			st.Outcome = OutcomeOK
			if hf.HTTP.Status < 200 || hf.HTTP.Status > 299 {
				st.Outcome = OutcomeTransport
			}
		}
	}
	s.steps = append(s.steps, st)
	return st
}
