package checks

import (
	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// http.sse-priming: 2025-11-25 basic/transports, "Sending Messages to the Server", item 6:
// "The server SHOULD immediately send an SSE event consisting of an event ID and an empty
// data field in order to prime the client to reconnect (using that event ID as
// Last-Event-ID)"; "After the server has sent an SSE event with an event ID to the client,
// the server MAY close the connection (without terminating the SSE stream) at any time";
// "If the server does close the connection prior to terminating the SSE stream, it SHOULD
// send an SSE event with a standard retry field before closing the connection." Both are
// SHOULDs of 2025-11-25 alone: earlier revisions have neither, and 2026-07-28 dropped
// resumable streams ("Resumable SSE streams via Last-Event-ID are not supported").
//
// One fault, one finding: a stream that ended before its response without ever sending an
// event id is not a polling close but a stream without its response, http.sse-framing's.

// streamShape is what the events of one event-stream answer show.
type streamShape struct {
	primed     bool // an event with an id and no data came before the first message
	firstData  int  // Seq of the first message event (-1 when none)
	idSeen     bool // some event carried an id before the stream ended
	retrySeen  bool // some event carried a retry field
	answered   bool // the response to the exchange's request came on this stream
	endedEarly int  // Seq of the end of a stream that ended before its response (-1 otherwise)
}

// shapeOf reads the events of an event-stream exchange. answered holds the loose ids the
// connection got responses to anywhere (a response may come on another stream); a stream the
// probe gave up on (timeout, limits) did not end early by the server's doing.
func shapeOf(r *Capture, ex *httpExchange, answered map[string]bool) streamShape {
	s := streamShape{firstData: -1, endedEarly: -1}
	gaveUp := false
	for _, seq := range ex.in {
		fr := r.Frames[seq]
		switch {
		case fr.Kind == probe.KindSSEEvent && fr.SSE != nil:
			if fr.SSE.ID != "" {
				s.idSeen = true
				if s.firstData < 0 {
					s.primed = true
				}
			}
			s.retrySeen = s.retrySeen || fr.SSE.Retry != ""
		case fr.Kind == probe.KindMessage && fr.SSE != nil:
			if s.firstData < 0 {
				s.firstData = seq
			}
			s.idSeen = s.idSeen || fr.SSE.ID != ""
			s.retrySeen = s.retrySeen || fr.SSE.Retry != ""
			if m := r.Message(seq); m != nil && m.IsResponse() && m.HasID && ex.msg != nil && looseIDKey(m.ID) == looseIDKey(ex.msg.ID) {
				s.answered = true
			}
		case fr.Kind == probe.KindNote:
			switch fr.Note {
			case probe.NoteTimeout, probe.NoteTooLarge, probe.NoteTooMany:
				gaveUp = true
			case probe.NoteStreamNoAnswer, probe.NoteStreamEnded, probe.NoteReadError:
				if s.endedEarly < 0 && !gaveUp && !s.answered && ex.msg != nil && !answered[looseIDKey(ex.msg.ID)] {
					s.endedEarly = seq
				}
			}
		}
	}
	return s
}

// pollingClose reports whether an event stream that ended before its response was closed as
// 2025-11-25 allows: after an event with an id, so that the client can resume it. Whether
// the server sent retry first is http.sse-priming's to judge, not http.sse-framing's.
func pollingClose(r *Capture, ex *httpExchange) bool {
	if exchangeRevision(r, ex) != protocol.Revision20251125 {
		return false
	}
	for _, seq := range ex.in {
		if fr := r.Frames[seq]; fr.SSE != nil && fr.SSE.ID != "" {
			return true
		}
	}
	return false
}

// exchangeRevision is the revision a request was sent in: its MCP-Protocol-Version header,
// or, on the initialize that has none, the revision of the probe's session.
func exchangeRevision(r *Capture, ex *httpExchange) string {
	if ex.request >= 0 {
		if out := r.Frames[ex.request]; out.HTTP != nil {
			if v := out.HTTP.Header.Get(protocol.HeaderProtocolVersion); v != "" {
				return v
			}
		}
	}
	if r.Stateless() {
		return ""
	}
	return r.Revision()
}

// answeredByConn are the loose ids of the responses each connection received.
func answeredByConn(r *Capture) map[int]map[string]bool {
	out := map[int]map[string]bool{}
	r.Inbound(func(fr probe.Frame, m *Message) {
		if m != nil && m.IsResponse() && m.HasID {
			if out[fr.Conn] == nil {
				out[fr.Conn] = map[string]bool{}
			}
			out[fr.Conn][looseIDKey(m.ID)] = true
		}
	})
	return out
}

func checkSSEPriming(r *Capture, f *Finding) {
	answered := answeredByConn(r)
	streams := 0
	for _, ex := range httpExchanges(r) {
		if !ex.eventStream(r) || ex.msg == nil || ex.msg.Kind != Request || exchangeRevision(r, &ex) != protocol.Revision20251125 {
			continue
		}
		s := shapeOf(r, &ex, answered[ex.conn])
		if s.endedEarly >= 0 && !s.idSeen {
			continue // a stream without its response: http.sse-framing's
		}
		streams++
		if !s.primed {
			first := "no event at all"
			if s.firstData >= 0 {
				first = "a message event first"
			}
			f.Warn(Seqs(ex.request, ex.head, s.firstData), "%s: expected the event stream to open with a priming event (an event id and empty data), got %s",
				ex.describe(), first)
		}
		if s.endedEarly >= 0 && !s.retrySeen {
			f.Warn(Seqs(ex.request, ex.head, s.endedEarly), "%s: expected a retry field before the server closed the stream ahead of its response, got the stream closed without one",
				ex.describe())
		}
	}
	if streams == 0 {
		if !r.Stateless() && r.Revision() != protocol.Revision20251125 {
			f.Skip("the priming event and retry are rules of 2025-11-25; the server was probed in %s", r.Revision())
			return
		}
		f.Skip("the server answered no request of 2025-11-25 with an event stream")
		return
	}
	if len(f.Evidence) == 0 {
		f.Pass("%d event streams, each opened with a priming event (and none closed before its response without retry)", streams)
	}
}
