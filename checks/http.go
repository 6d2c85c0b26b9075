package checks

import (
	"github.com/mcpwatch/mcpwatch/probe"
)

const httpSpec = "https://modelcontextprotocol.io/specification/2025-11-25/basic/transports"

func httpChecks() []Check {
	return []Check{
		{ID: "http.status", Area: "http", Rule: "G3", Spec: httpSpec + "#sending-messages-to-the-server",
			Transport: probe.TransportHTTP,
			Title:     "a POSTed request is answered with HTTP 200",
			Evaluate:  checkHTTPStatus},
		{ID: "http.content-type", Area: "http", Rule: "G3", Spec: httpSpec + "#sending-messages-to-the-server",
			Transport: probe.TransportHTTP,
			Title:     "the answer to a request is application/json or text/event-stream",
			Evaluate:  checkHTTPContentType},
		{ID: "http.notification-accepted", Area: "http", Rule: "G4", Spec: httpSpec + "#sending-messages-to-the-server",
			Transport: probe.TransportHTTP,
			Title:     "a POSTed notification is answered 202 Accepted with no body",
			Evaluate:  checkNotificationAccepted},
		{ID: "http.sse-framing", Area: "http", Rule: "G5", Spec: httpSpec + "#sending-messages-to-the-server",
			Transport: probe.TransportHTTP,
			Title:     "an event stream is well framed and carries the response it was opened for",
			Evaluate:  checkSSEFraming},
	}
}

// bodyOf is a clipped response body for a message, "" when the head frame carries none.
func bodyOf(r *Run, ex *httpExchange) string {
	if ex.head < 0 || len(r.Frames[ex.head].Raw) == 0 {
		return ""
	}
	return " and body " + clipJSON(r.Frames[ex.head].Raw)
}

func checkHTTPStatus(r *Run, f *Finding) {
	n := 0
	bent := deliberateRequests(r)
	addEraExemptions(r, bent)
	for _, ex := range httpExchanges(r) {
		if ex.msg == nil || ex.msg.Kind != Request || ex.head < 0 || bent[ex.request] {
			continue
		}
		n++
		if st := ex.status(r); st != 200 {
			f.Fail(Seqs(ex.request, ex.head), "%s: expected HTTP 200, got HTTP %d%s", ex.describe(), st, bodyOf(r, &ex))
		}
	}
	if n == 0 {
		f.Untested("no request the probe posted got an HTTP response")
		return
	}
	f.Pass("%d requests, each answered with HTTP 200", n)
}

func checkHTTPContentType(r *Run, f *Finding) {
	n := 0
	bent := deliberateRequests(r)
	addEraExemptions(r, bent)
	for _, ex := range httpExchanges(r) {
		// Other statuses are http.status's; their bodies may be anything.
		if ex.msg == nil || ex.msg.Kind != Request || ex.status(r) != 200 || bent[ex.request] {
			continue
		}
		n++
		switch mt := ex.mediaType(r); mt {
		case "application/json", "text/event-stream":
		case "":
			f.Fail(Seqs(ex.request, ex.head), "%s: expected Content-Type application/json or text/event-stream, got none", ex.describe())
		default:
			f.Fail(Seqs(ex.request, ex.head), "%s: expected Content-Type application/json or text/event-stream, got %s",
				ex.describe(), Clip([]byte(r.Frames[ex.head].HTTP.ContentType)))
		}
	}
	if n == 0 {
		f.Untested("no request the probe posted was answered with HTTP 200")
		return
	}
	f.Pass("%d answers, each application/json or text/event-stream", n)
}

func checkNotificationAccepted(r *Run, f *Finding) {
	n := 0
	for _, ex := range httpExchanges(r) {
		if ex.msg == nil || ex.msg.Kind != Notification || ex.head < 0 {
			continue
		}
		n++
		st := ex.status(r)
		// The body is the head's (a JSON body or an error status's), or a stream's events.
		body := len(r.Frames[ex.head].Raw)
		for _, seq := range ex.in {
			if fr := r.Frames[seq]; fr.SSE != nil {
				body += len(fr.Raw)
			}
		}
		what := ex.describe()
		switch {
		case st == 202 && body == 0:
		case st == 202:
			f.Fail(Seqs(ex.request, ex.head), "%s: expected 202 Accepted with no body, got 202 with a body of %d bytes%s", what, body, bodyOf(r, &ex))
		case st >= 400 && ex.msg.Method == probe.UnknownNotificationMethod:
			// G4 lets a server refuse a notification it cannot accept; ignoring an unknown
			// one is what JSON-RPC asks for, so a refusal is a warning only.
			f.Warn(Seqs(ex.request, ex.head), "%s: expected 202 Accepted (an unknown notification is ignored), got HTTP %d%s", what, st, bodyOf(r, &ex))
		default:
			f.Fail(Seqs(ex.request, ex.head), "%s: expected 202 Accepted with no body, got HTTP %d%s", what, st, bodyOf(r, &ex))
		}
	}
	if n == 0 {
		f.Untested("no notification the probe posted got an HTTP response (initialize did not succeed)")
		return
	}
	f.Pass("%d notifications, each answered 202 Accepted with no body", n)
}

func checkSSEFraming(r *Run, f *Finding) {
	answeredIDs := map[int]map[string]bool{} // by connection: loose ids of the responses seen
	r.Inbound(func(fr probe.Frame, m *Message) {
		if m != nil && m.IsResponse() && m.HasID {
			if answeredIDs[fr.Conn] == nil {
				answeredIDs[fr.Conn] = map[string]bool{}
			}
			answeredIDs[fr.Conn][looseIDKey(m.ID)] = true
		}
	})
	streams := 0
	for _, ex := range httpExchanges(r) {
		isStream := ex.eventStream(r)
		if isStream {
			streams++
		}
		gaveUp := false // the probe stopped waiting: how the stream ended is not the server's doing
		endReported := false
		for _, seq := range ex.in {
			fr := r.Frames[seq]
			if fr.SSE != nil && fr.SSE.Malformed != "" {
				f.Fail(Seqs(ex.request, seq), "%s: expected a well-formed event stream, got %s", ex.describe(), Clip([]byte(fr.SSE.Malformed)))
			}
			if fr.Kind != probe.KindNote {
				continue
			}
			switch fr.Note {
			case probe.NoteTimeout, probe.NoteTooLarge, probe.NoteTooMany:
				gaveUp = true
			case probe.NoteStreamNoAnswer, probe.NoteStreamEnded, probe.NoteReadError:
				if !isStream || gaveUp || endReported || ex.msg == nil || ex.msg.Kind != Request {
					continue
				}
				if fr.Note != probe.NoteStreamNoAnswer && answeredIDs[ex.conn][looseIDKey(ex.msg.ID)] {
					continue
				}
				endReported = true
				detail := ""
				if fr.Detail != "" {
					detail = " (" + Clip([]byte(fr.Detail)) + ")"
				}
				f.Fail(Seqs(ex.request, ex.head, seq), "%s: expected the stream to carry the response, got the stream ended without it%s", ex.describe(), detail)
			}
		}
	}
	if streams == 0 && len(f.Evidence) == 0 {
		f.Skip("the server answered no request with an event stream")
		return
	}
	f.Pass("%d event streams, each well framed and carrying its response", streams)
}
