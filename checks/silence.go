package checks

import (
	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

func checkNotificationSilence(r *Capture, f *Finding) {
	// Legacy HTTP+SSE answers on one stream, as stdio does.
	if r.Transport == protocol.TransportStdio || r.Transport == protocol.TransportSSE {
		silenceOnStream(r, f)
		return
	}
	silenceOnHTTP(r, f)
}

// silenceOnStream judges stdio. A response without an id that comes after a notification
// answers that notification unless a request was outstanding at that moment that never got
// an answer of its own: then it most likely answers that request, with a null id, which
// jsonrpc.null-id judges. A response to an id never sent is jsonrpc.id-echo's.
func silenceOnStream(r *Capture, f *Finding) {
	type request struct {
		seq int
		key string
	}
	type connState struct {
		notified  int // Seq of the first notification sent, -1 before
		malformed bool
		requests  []request
		answered  map[string]bool // loose keys answered by a response carrying that id
	}
	conns := map[int]*connState{}
	state := func(conn int) *connState {
		c := conns[conn]
		if c == nil {
			c = &connState{notified: -1, answered: map[string]bool{}}
			conns[conn] = c
		}
		return c
	}
	for _, fr := range r.Frames {
		if fr.Kind != probe.KindMessage {
			continue
		}
		m := r.Message(fr.Seq)
		c := state(fr.Conn)
		switch {
		case fr.Dir == probe.Out && m.Kind == Request:
			c.requests = append(c.requests, request{seq: fr.Seq, key: looseIDKey(m.ID)})
		case fr.Dir == probe.In && m.IsResponse() && m.HasID && !m.NullID():
			c.answered[looseIDKey(m.ID)] = true
		}
	}
	// unanswered reports whether a request sent before seq never got an answer of its own.
	unanswered := func(c *connState, seq int) bool {
		for _, q := range c.requests {
			if q.seq < seq && !c.answered[q.key] {
				return true
			}
		}
		return false
	}
	notified := 0
	for _, fr := range r.Frames {
		if fr.Kind != probe.KindMessage {
			continue
		}
		m := r.Message(fr.Seq)
		c := state(fr.Conn)
		if fr.Dir == probe.Out {
			switch m.Kind {
			case Notification:
				if c.notified < 0 {
					c.notified = fr.Seq
					notified++
				}
			case NotJSON, NotObject, Malformed:
				c.malformed = true // a deliberate bad message: its -32700/-32600 is due
			}
			continue
		}
		if c.notified < 0 || !envelopeSubject(r, fr, m) || !m.IsResponse() {
			continue
		}
		if m.HasID && !m.NullID() {
			continue
		}
		if code, ok := errorCode(m); ok && c.malformed && (code == protocol.CodeParseError || code == protocol.CodeInvalidRequest) {
			continue
		}
		if unanswered(c, fr.Seq) {
			continue
		}
		f.Fail(Seqs(c.notified, fr.Seq), "expected no answer to a notification, got a response without a request id while every request had its own answer: %s", clipJSON(fr.Raw))
	}
	if notified == 0 {
		f.Untested("the probe sent no notification (initialize did not succeed)")
		return
	}
	f.Pass("no response to the notifications the probe sent")
}

// silenceOnHTTP judges Streamable HTTP: the answer to a notification POST is a status, not a
// message. A rejecting 4xx may carry an id-less error (G4); anything else is an answer.
func silenceOnHTTP(r *Capture, f *Finding) {
	notified := 0
	for _, ex := range httpExchanges(r) {
		if ex.msg == nil || ex.msg.Kind != Notification {
			continue
		}
		notified++
		status := ex.status(r)
		// The transport records an error status's JSON body twice, as the head's body and as
		// a message: judge the message then.
		bodyIsMessage := false
		for _, seq := range ex.in {
			if fr := r.Frames[seq]; fr.Kind == probe.KindMessage && fr.SSE == nil {
				bodyIsMessage = true
			}
		}
		for _, seq := range ex.in {
			fr := r.Frames[seq]
			var m *Message
			switch fr.Kind {
			case probe.KindMessage:
				m = r.Message(seq)
			case probe.KindHTTPResponse:
				if len(fr.Raw) == 0 || bodyIsMessage {
					continue
				}
				c := Classify(fr.Raw)
				m = &c
			default:
				continue
			}
			if m == nil || !m.IsResponse() {
				continue
			}
			if status >= 400 && m.HasError && (!m.HasID || m.NullID()) {
				continue
			}
			f.Fail(Seqs(ex.request, seq), "expected no JSON-RPC answer to notification %s, got HTTP %d with %s",
				Clip([]byte(ex.msg.Method)), status, clipJSON(fr.Raw))
		}
	}
	if notified == 0 {
		f.Untested("the probe sent no notification (initialize did not succeed)")
		return
	}
	f.Pass("no JSON-RPC answer to the %d notifications the probe posted", notified)
}
