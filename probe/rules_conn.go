package probe

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/mcpwatch/mcpwatch/jsondoc"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// fenceGrace is how long a rule probe still waits for the answer to a malformed message once
// the server has answered the ping sent after it. A server that works through its input in
// order has answered by then; one that answers concurrently gets this much slack.
const fenceGrace = 50 * time.Millisecond

// ruleConn is the connection of one rule probe: a session of its own (so that nothing the
// probe bends shows in another rule's evidence) on a wire that can also find the answers to
// messages the router cannot route.
type ruleConn struct {
	*session
	watched *watchedWire
	bent    *bentTransport // nil on stdio

	version string          // the revision the connection speaks once initialize succeeded
	init    json.RawMessage // the initialize result
	// statelessRevision is the revision of a server found stateless, for the probes that
	// run without initialize ("" in the session era).
	statelessRevision string
}

func newRuleConn(conn int, t Target, o Options, tr *Transcript, dial dialFunc) *ruleConn {
	s := newSession(conn, t, o, tr, dial)
	return &ruleConn{session: s, watched: &watchedWire{connWire: s.wire}}
}

// open dials through the watched wire; an HTTP transport is wrapped so that requests can be
// bent.
func (c *ruleConn) open(ctx context.Context) error {
	defer close(c.ready)
	c.o.observe(Event{Kind: EventOpen, Conn: c.conn, Target: c.target.String()})
	tr, err := c.dial(ctx, c.target, c.conn, c.watched, c.o)
	if err != nil {
		return err
	}
	switch t := tr.(type) {
	case *httpTransport:
		c.bent = &bentTransport{httpTransport: t}
		tr = c.bent
	case *sseTransport:
		// Fetches go through the stream's HTTP transport; bent POSTs through the stream.
		c.bent = &bentTransport{httpTransport: t.h}
		tr = &bentSSE{sseTransport: t, bent: c.bent}
	}
	c.setTransport(tr)
	return nil
}

// handshake initializes the connection as the main session does (initialize, then
// initialized) and reports whether the server accepted it.
func (c *ruleConn) handshake(ctx context.Context) bool {
	init := c.call(ctx, StepRuleInitialize, "initialize", initializeParams(c.o), c.o.InitTimeout, 0)
	return c.initialized(ctx, init)
}

// initialized completes the handshake whose initialize step is init: when the server
// accepted it with a revision of the session era, the connection speaks that revision and
// sends initialized. It reports whether the connection is now initialized.
func (c *ruleConn) initialized(ctx context.Context, init Step) bool {
	if init.Outcome != OutcomeOK {
		return false
	}
	c.init = init.Result
	c.version = c.o.ProtocolVersion
	if v := answeredRevision(init.Result); protocol.KnownRevision(v) {
		c.version = v
	}
	if va, ok := c.transport().(VersionAware); ok {
		va.SetProtocolVersion(c.version)
	}
	c.notify(ctx, StepRuleInitialized, "notifications/initialized")
	return true
}

// callBent is call with the headers of this request changed by edit (HTTP only).
func (c *ruleConn) callBent(ctx context.Context, name, method string, params json.RawMessage, timeout time.Duration, edit func(http.Header)) Step {
	c.nextID++
	id := strconv.Itoa(c.nextID)
	c.bent.bend(id, edit)
	return c.callWithID(ctx, name, method, params, json.RawMessage(id), timeout, 0)
}

// callTo is call with this request sent as to says (HTTP only).
func (c *ruleConn) callTo(ctx context.Context, name, method string, params json.RawMessage, timeout time.Duration, to exchangeTarget) Step {
	c.nextID++
	id := strconv.Itoa(c.nextID)
	c.bent.bendTo(id, to)
	return c.callWithID(ctx, name, method, params, json.RawMessage(id), timeout, 0)
}

// fetchStep makes a request without a message (see httpTransport.fetch) and records it as a
// step named name.
func (c *ruleConn) fetchStep(ctx context.Context, name, method string, to exchangeTarget) Step {
	res, err := c.bent.fetch(ctx, method, to)
	return c.fetchedStep(name, method, res, err)
}

// deleteStep ends the connection's session with a DELETE, recorded as a step named name.
func (c *ruleConn) deleteStep(ctx context.Context, name string) Step {
	res, err := c.bent.endSession(ctx)
	return c.fetchedStep(name, http.MethodDelete, res, err)
}

func (c *ruleConn) fetchedStep(name, method string, res fetched, err error) Step {
	st := Step{Name: name, Method: method, Conn: c.conn, Request: res.out, Response: res.head, HTTPStatus: res.status}
	switch {
	case err != nil:
		st.Outcome, st.Err = OutcomeTransport, err.Error()
	case res.status >= 200 && res.status <= 299:
		st.Outcome = OutcomeOK
	default:
		st.Outcome = OutcomeTransport
	}
	if out, ok := c.transcript.Frame(res.out); ok {
		if head, ok := c.transcript.Frame(res.head); ok {
			st.Latency = head.At - out.At
		}
	}
	c.steps = append(c.steps, st)
	return st
}

// rawCall sends raw, a message the router cannot route an answer to (no readable id, or no
// method), and records what answered it as a step named name. id is its id when it has a
// readable one. When fence names a step, a ping follows the message: once the server has
// answered that ping it has read past the message, so the probe need not wait out the
// request timeout for an answer that is not coming (and the ping shows whether the server
// still answers at all).
func (c *ruleConn) rawCall(ctx context.Context, name string, raw, id json.RawMessage, fence, fenceMethod string) Step {
	return c.watchedCall(ctx, name, raw, c.watched.watch(raw, id), fence, fenceMethod)
}

// watchedCall is rawCall with the watch for the answer made by the caller.
func (c *ruleConn) watchedCall(ctx context.Context, name string, raw json.RawMessage, x *rawWatch, fence, fenceMethod string) Step {
	st := Step{Name: name, Conn: c.conn, Request: -1, Response: -1}
	if x.hasID {
		st.ID = x.rawID
	}
	defer c.watched.unwatch(x)

	seq, err := c.transport().Send(ctx, raw)
	st.Request = seq
	if err != nil {
		st.Outcome, st.Err = OutcomeTransport, err.Error()
		c.steps = append(c.steps, st)
		return st
	}
	sent, _ := c.transcript.Frame(seq)
	a, ok := x.poll()
	if !ok {
		a, ok = c.bodyAnswer(sent)
	}
	var fenced chan Step
	if fence != "" {
		fenced = make(chan Step, 1)
		go func() {
			var params json.RawMessage
			if fenceMethod != "ping" {
				params = json.RawMessage(`{}`)
			}
			fenced <- c.callWithID(ctx, fence, fenceMethod, params, json.RawMessage(strconv.Quote(fence)), c.o.RequestTimeout, 0)
		}()
	}
	if !ok {
		a = c.awaitRaw(ctx, x, fenced)
	}
	if fenced != nil {
		<-fenced // its step is recorded; c.steps is not touched concurrently below
	}
	a.settle(&st, sent)
	switch {
	case a.err == ErrTimeout:
		st.Outcome, st.Err = OutcomeNoAnswer, a.err.Error()
	case a.err != nil:
		st.Outcome, st.Err = OutcomeTransport, a.err.Error()
	default:
		st.Outcome, st.Result, st.ErrorCodeRaw, st.ErrorCode = decodeAnswer(a.env)
	}
	c.steps = append(c.steps, st)
	return st
}

// bodyAnswer is how an HTTP exchange that is not an event stream ended, once Send returned
// (its frames are all recorded then): with no message for the watch, the response head is
// all the answer there is.
func (c *ruleConn) bodyAnswer(sent Frame) (answer, bool) {
	if sent.Exchange == 0 {
		return answer{}, false
	}
	head := c.wire.head(sent.Exchange)
	hf, ok := c.transcript.Frame(head)
	if !ok || hf.HTTP == nil || (hf.HTTP.Status == http.StatusOK && isEventStream(hf.HTTP.ContentType)) {
		return answer{}, false
	}
	// Over legacy HTTP+SSE a POST that the server accepted (2xx) is answered on the event
	// stream; only a refusal of the POST itself answers here.
	if c.wire.answersArriveOnStream() && hf.HTTP.Status >= 200 && hf.HTTP.Status <= 299 {
		return answer{}, false
	}
	return answer{seq: head, frame: hf, err: ErrUnanswered}, true
}

// awaitRaw waits for the watched answer, until the request timeout or, when a fence ping
// runs, until shortly after the server answered it (or at once if it did not: the server
// stopped answering). The fence's step is put back for the caller.
func (c *ruleConn) awaitRaw(ctx context.Context, x *rawWatch, fenced chan Step) answer {
	timeout := time.NewTimer(c.o.RequestTimeout)
	defer timeout.Stop()
	var grace <-chan time.Time
	fence := fenced
	for {
		select {
		case a := <-x.found:
			return a
		case st := <-fence:
			fenced <- st
			fence = nil
			if st.Outcome != OutcomeOK && st.Outcome != OutcomeError {
				return answer{seq: -1, err: ErrTimeout}
			}
			g := time.NewTimer(fenceGrace)
			defer g.Stop()
			grace = g.C
		case <-grace:
			return answer{seq: -1, err: ErrTimeout}
		case <-timeout.C:
			return answer{seq: -1, err: ErrTimeout}
		case <-ctx.Done():
			return answer{seq: -1, err: ErrTimeout}
		}
	}
}

// decodeAnswer reads the outcome of a response: a result, or an error with its code.
func decodeAnswer(env envelope) (Outcome, json.RawMessage, json.RawMessage, *int64) {
	if env.errValue == nil || jsondoc.IsNull(env.errValue) {
		return OutcomeOK, env.result, nil, nil
	}
	var e struct {
		Code json.RawMessage `json:"code"`
	}
	if json.Unmarshal(env.errValue, &e) != nil || e.Code == nil {
		return OutcomeError, nil, nil, nil
	}
	if code, err := strconv.ParseInt(string(e.Code), 10, 64); err == nil {
		return OutcomeError, nil, e.Code, &code
	}
	return OutcomeError, nil, e.Code, nil
}

// randomSuffix makes the names of things the probe invents (a tool, a cursor, a session)
// unguessable, so that no server can happen to know them.
func randomSuffix() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
