package checks

import (
	"github.com/mcpwatch/mcpwatch/jsondoc"
	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

const (
	envelopeSpec = "https://modelcontextprotocol.io/specification/2025-11-25/basic"
)

func envelopeChecks() []Check {
	return []Check{
		{ID: "jsonrpc.parse", Area: "jsonrpc", Rule: "A1", Spec: envelopeSpec,
			Title:    "every HTTP body and SSE data the server sends is one JSON object in UTF-8",
			Evaluate: checkParse},
		{ID: "jsonrpc.version", Area: "jsonrpc", Rule: "A1", Spec: envelopeSpec,
			Title:    `every message carries "jsonrpc": "2.0"`,
			Evaluate: checkVersion},
		{ID: "jsonrpc.message-shape", Area: "jsonrpc", Rule: "A1, A5", Spec: envelopeSpec,
			Title:    "every message is a request, a notification or a response with exactly one of result and error",
			Evaluate: checkMessageShape},
		{ID: "jsonrpc.id-echo", Area: "jsonrpc", Rule: "A2, A4", Spec: envelopeSpec + "#responses",
			Title:    "every response carries the id of one request the probe sent, with its JSON type, once",
			Evaluate: checkIDEcho},
		{ID: "jsonrpc.error-shape", Area: "jsonrpc", Rule: "A6", Spec: envelopeSpec + "#responses",
			Title:    "an error is an object with an integer code and a string message",
			Evaluate: checkErrorShape},
		{ID: "jsonrpc.null-id", Area: "jsonrpc", Rule: "A4", Spec: envelopeSpec + "#responses",
			Title:    `"id": null only on a parse error or invalid-request error`,
			Evaluate: checkNullID},
		{ID: "jsonrpc.notification-silence", Area: "jsonrpc", Rule: "A7", Spec: envelopeSpec + "#notifications",
			Title:    "nothing answers a notification",
			Evaluate: checkNotificationSilence},
		batchCheck(),
	}
}

// envelopeSubject reports whether an inbound message frame is judged by the envelope checks.
// A frame cut by the probe's own size limit cannot be judged, and on stdio a line that is no
// JSON-RPC message at all (a banner, a log line) is stdio.stdout-purity's to report, once.
func envelopeSubject(r *Capture, f probe.Frame, m *Message) bool {
	if f.Truncated || m == nil {
		return false
	}
	if r.Transport == protocol.TransportStdio {
		_, junk := stdoutJunk(m)
		return !junk
	}
	return !authAnswer(r, f, m)
}

// authAnswer reports whether f is the body of an answer of HTTP authentication rather than of
// MCP, which does not claim to be JSON-RPC (no "jsonrpc" member): a 401 or 403 (the
// authorization pages' Error Handling: "401 Unauthorized - Authorization required or token
// invalid", "403 Forbidden - Invalid scopes or insufficient permissions"), or any error
// answer to the probe's bogus bearer token. RFC 6750 §3 puts an OAuth error in
// WWW-Authenticate and leaves the body to the server ({"error": "invalid_token"} is common):
// judging it as a JSON-RPC message would fail a server for answering as OAuth has it. Its
// status is the evidence of the auth checks, and of lifecycle.initialize's "needs credentials".
func authAnswer(r *Capture, f probe.Frame, m *Message) bool {
	if f.HTTP == nil || f.HTTP.Status < 400 || m.HasJSONRPC && m.Kind != NotJSON && m.Kind != NotObject {
		return false
	}
	if credentialsStatus(f.HTTP.Status) {
		return true
	}
	for _, st := range r.Steps {
		if st.Name == probe.StepAuthInvalidToken && st.Conn == f.Conn {
			req, ok := r.Frame(st.Request)
			return ok && req.Exchange == f.Exchange
		}
	}
	return false
}

// frameWhere names where a message frame came from, for messages.
func frameWhere(f probe.Frame) string {
	switch {
	case f.SSE != nil:
		return "SSE event data"
	case f.HTTP != nil || f.Exchange != 0:
		return "HTTP body"
	}
	return "stdout line"
}

// batchesAllowed: 2025-03-26 alone let an implementation send JSON-RPC batches (A8, F5).
func batchesAllowed(r *Capture) bool { return r.Revision() == protocol.Revision20250326 }

func checkParse(r *Capture, f *Finding) {
	if r.Transport == protocol.TransportStdio {
		f.Skip("on stdio every stdout line is judged by stdio.stdout-purity")
		return
	}
	n := 0
	batch := batchAnswers(r)
	r.Inbound(func(fr probe.Frame, m *Message) {
		if fr.Truncated || m == nil || batch[fr.Seq] || authAnswer(r, fr, m) {
			return
		}
		n++
		where := frameWhere(fr)
		switch m.Kind {
		case NotJSON:
			if m.BadUTF8 {
				f.Fail(Seqs(fr.Seq), "%s: expected one JSON object in UTF-8, got invalid UTF-8 %s", where, Clip(fr.Raw))
				return
			}
			f.Fail(Seqs(fr.Seq), "%s: expected one JSON object, got text that is not JSON (%s) %s", where, m.ParseErr, Clip(fr.Raw))
		case NotObject:
			t := jsonType(fr.Raw)
			if t == "array" && batchesAllowed(r) {
				f.Warn(Seqs(fr.Seq), "%s: a JSON-RPC batch; 2025-03-26 allowed batches, but the probe expects one message per body", where)
				return
			}
			f.Fail(Seqs(fr.Seq), "%s: expected one JSON object, got a JSON %s %s", where, t, clipJSON(fr.Raw))
		}
	})
	if n == 0 {
		f.Untested("the server sent no message")
		return
	}
	f.Pass("%d messages, each one JSON object", n)
}

func checkVersion(r *Capture, f *Finding) {
	n := 0
	r.Inbound(func(fr probe.Frame, m *Message) {
		if !envelopeSubject(r, fr, m) || m.Kind == NotJSON || m.Kind == NotObject {
			return
		}
		n++
		switch {
		case !m.HasJSONRPC:
			f.Fail(Seqs(fr.Seq), `expected "jsonrpc": "2.0", got no jsonrpc member in %s`, clipJSON(fr.Raw))
		default:
			if s, ok := jsondoc.Str(m.JSONRPC); !ok || s != "2.0" {
				f.Fail(Seqs(fr.Seq), `expected "jsonrpc": "2.0", got "jsonrpc": %s`, clipJSON(m.JSONRPC))
			}
		}
	})
	if n == 0 {
		f.Untested("the server sent no JSON-RPC message")
		return
	}
	f.Pass(`%d messages, each with "jsonrpc": "2.0"`, n)
}

func checkMessageShape(r *Capture, f *Finding) {
	n := 0
	r.Inbound(func(fr probe.Frame, m *Message) {
		if !envelopeSubject(r, fr, m) || m.Kind == NotJSON || m.Kind == NotObject {
			return
		}
		n++
		if why := shapeFault(m); why != "" {
			f.Fail(Seqs(fr.Seq), "expected a request, notification or response, got %s: %s", why, clipJSON(fr.Raw))
		}
	})
	if n == 0 {
		f.Untested("the server sent no JSON-RPC message")
		return
	}
	f.Pass("%d messages, each a well-formed request, notification or response", n)
}

// shapeFault says what makes an object no JSON-RPC message ("" when it is one).
func shapeFault(m *Message) string {
	if m.Kind == Malformed {
		switch {
		case m.HasMethod && jsonType(m.MethodRaw) != "string":
			return "a method that is a JSON " + jsonType(m.MethodRaw)
		case m.HasMethod && m.HasResult:
			return "both method and result"
		case m.HasMethod && m.HasError:
			return "both method and error"
		case m.HasResult && m.HasError:
			return "both result and error"
		default:
			return "neither method, result nor error"
		}
	}
	if m.Kind == Request {
		switch t := jsonType(m.ID); t {
		case "string", "null": // null is jsonrpc.null-id's to report
		case "number":
			if _, ok := jsondoc.Int64(m.ID); !ok {
				return "a request id that is not an integer (" + clipJSON(m.ID) + ")"
			}
		default:
			return "a request id that is a JSON " + t
		}
	}
	if (m.Kind == Request || m.Kind == Notification) && m.Params != nil && jsonType(m.Params) != "object" {
		return "params that are a JSON " + jsonType(m.Params) + ", not an object"
	}
	return ""
}

func checkErrorShape(r *Capture, f *Finding) {
	n := 0
	r.Inbound(func(fr probe.Frame, m *Message) {
		if !envelopeSubject(r, fr, m) || !m.HasError || m.HasMethod {
			return
		}
		n++
		e, ok := errorOf(m)
		switch {
		case !ok:
			f.Fail(Seqs(fr.Seq), "expected error to be an object, got a JSON %s %s", jsonType(m.Error), clipJSON(m.Error))
			return
		case e.Code == nil:
			f.Fail(Seqs(fr.Seq), "expected an integer error code, got none in %s", clipJSON(m.Error))
		default:
			if _, ok := jsondoc.Int64(e.Code); !ok {
				f.Fail(Seqs(fr.Seq), "expected an integer error code, got a JSON %s %s", jsonType(e.Code), clipJSON(e.Code))
			}
		}
		switch {
		case e.Message == nil:
			f.Fail(Seqs(fr.Seq), "expected a string error message, got none in %s", clipJSON(m.Error))
		case jsonType(e.Message) != "string":
			f.Fail(Seqs(fr.Seq), "expected a string error message, got a JSON %s %s", jsonType(e.Message), clipJSON(e.Message))
		}
	})
	if n == 0 {
		f.Untested("the server sent no error response")
		return
	}
	f.Pass("%d error responses, each with an integer code and a string message", n)
}

func checkNullID(r *Capture, f *Finding) {
	n, seen := 0, 0
	r.Inbound(func(fr probe.Frame, m *Message) {
		if !envelopeSubject(r, fr, m) {
			return
		}
		seen++
		switch {
		case m.Kind == Request && m.NullID():
			n++
			f.Warn(Seqs(fr.Seq), `expected a string or integer request id, got "id": null on a %s request`, Clip([]byte(m.Method)))
		case m.IsResponse() && m.HasError && (m.NullID() || !m.HasID):
			n++
			if code, ok := errorCode(m); ok && (code == protocol.CodeParseError || code == protocol.CodeInvalidRequest) {
				return
			}
			if fr.HTTP != nil && fr.HTTP.Status >= 400 && fr.SSE == nil {
				// The body of an HTTP error status may be an id-less error (G4, G9): the
				// status, not the id, ties it to the POST.
				return
			}
			idText := `"id": null`
			if !m.HasID {
				idText = "no id"
			}
			f.Warn(Seqs(fr.Seq), "expected the id of the request (null only on a -32700 or -32600 error), got %s on %s", idText, describeError(m))
		case m.IsResponse() && m.NullID():
			n++
			f.Warn(Seqs(fr.Seq), `expected the id of the request, got "id": null on a result %s`, clipJSON(m.Result))
		}
	})
	switch {
	case seen == 0:
		f.Untested("the server sent no JSON-RPC message")
	case n == 0:
		f.Pass(`no message with "id": null`)
	default:
		f.Pass(`"id": null only on parse or invalid-request errors (%d)`, n)
	}
}
