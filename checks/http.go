package checks

import (
	"fmt"
	"net/http"

	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

const httpSpec = "https://modelcontextprotocol.io/specification/2025-11-25/basic/transports"

func httpChecks() []Check {
	return []Check{
		{ID: "http.status", Area: "http", Rule: "G3", Spec: httpSpec + "#sending-messages-to-the-server",
			Transport: protocol.TransportHTTP,
			Title:     "a POSTed request is neither redirected nor answered with a server error",
			Evaluate:  checkHTTPStatus},
		{ID: "http.content-type", Area: "http", Rule: "G3", Spec: httpSpec + "#sending-messages-to-the-server",
			Transport: protocol.TransportHTTP,
			Title:     "the answer to a request is application/json or text/event-stream",
			Evaluate:  checkHTTPContentType},
		{ID: "http.notification-accepted", Area: "http", Rule: "G4", Spec: httpSpec + "#sending-messages-to-the-server",
			Transport: protocol.TransportHTTP,
			Title:     "a POSTed notification is answered 202 Accepted with no body, or refused with a 4xx",
			Evaluate:  checkNotificationAccepted},
		{ID: "http.sse-framing", Area: "http", Rule: "G5", Spec: httpSpec + "#sending-messages-to-the-server",
			Transport: protocol.TransportHTTP,
			Title:     "an event stream is well framed and carries the response it was opened for",
			Evaluate:  checkSSEFraming},
	}
}

// bodyOf is a clipped response body for a message, "" when the head frame carries none.
func bodyOf(r *Capture, ex *httpExchange) string {
	if ex.head < 0 || len(r.Frames[ex.head].Raw) == 0 {
		return ""
	}
	return " and body " + clipJSON(r.Frames[ex.head].Raw)
}

// errorProvokingStep reports whether a step asks for a JSON-RPC error on purpose (an unknown
// method, a bogus revision, an unknown tool, a cursor never handed out, a revision the server
// does not support, a request without _meta): the check of each judges the whole answer,
// whatever its status or Content-Type, so the transport checks leave it alone (one fault, one
// finding).
func errorProvokingStep(name string) bool {
	switch name {
	case probe.StepUnknownMethod, probe.StepInitializeBogus, probe.StepUnknownTool,
		probe.StepInvalidCursor, probe.StepDiscoverUnsupported,
		probe.StepResourcesReadUnknown:
		return true
	}
	return metaRefusalStep(name) || removedMethodStep(name)
}

// statusJudgedByItsCheck reports whether the check of a step's rule judges the HTTP status of
// its answer too (discover.unsupported-version, discover.meta-required,
// stateless.removed-methods, and http.concurrent-requests, for which an error status without
// a JSON-RPC answer is a request left unanswered), so that http.status does not judge it
// again (one fault, one finding).
func statusJudgedByItsCheck(name string) bool {
	return name == probe.StepDiscoverUnsupported || name == probe.StepConcurrentFirst || name == probe.StepConcurrentSecond ||
		metaRefusalStep(name) || removedMethodStep(name)
}

// metaRefusalStep reports whether a step sends a request whose _meta lacks a required key.
func metaRefusalStep(name string) bool {
	switch name {
	case probe.StepMetaMissing, probe.StepMetaNoProtocolVersion, probe.StepMetaNoClientCapabilities:
		return true
	}
	return false
}

// provokedErrors are the Seqs of the requests of errorProvokingStep.
func provokedErrors(r *Capture) map[int]bool { return stepRequests(r, errorProvokingStep) }

// stepRequests are the Seqs of the requests of the steps whose names match.
func stepRequests(r *Capture, match func(name string) bool) map[int]bool {
	out := map[int]bool{}
	for _, st := range r.Steps {
		if st.Request >= 0 && match(st.Name) {
			out[st.Request] = true
		}
	}
	return out
}

// credentialsStatus reports whether an HTTP status says the request lacked credentials (or
// lacked the rights): the authorization checks' evidence, not a transport fault.
func credentialsStatus(status int) bool {
	return status == http.StatusUnauthorized || status == http.StatusForbidden
}

// credentialsHint tells the user how to give the probe the server's credentials.
const credentialsHint = "pass them with --bearer-token TOKEN (or --bearer-token-env VAR, or --header 'Name: value')"

// statusOwned reports whether http.status judges the answer to a request: a redirect (no
// rule lets a POSTed message be answered elsewhere), or a server error to a well-formed
// request the server must answer with a result or a JSON-RPC error. Every other status is
// the evidence of the rule the request tests (an unknown method's -32601, a 401's
// challenge, a content type).
func statusOwned(status int, provoked bool) bool {
	return (status >= 300 && status < 400) || (status >= 500 && !provoked)
}

func checkHTTPStatus(r *Capture, f *Finding) {
	n, locked := 0, 0
	bent := deliberateRequests(r)
	addEraExemptions(r, bent)
	provoked := provokedErrors(r)
	ownStatus := stepRequests(r, statusJudgedByItsCheck)
	stateless := r.Stateless()
	for _, ex := range httpExchanges(r) {
		if ex.msg == nil || ex.msg.Kind != Request || ex.head < 0 || bent[ex.request] {
			continue
		}
		n++
		st := ex.status(r)
		switch {
		case credentialsStatus(st):
			locked++
		case st >= 300 && st < 400:
			f.Fail(Seqs(ex.request, ex.head), "%s: expected the answer (a result or a JSON-RPC error), got a redirect: HTTP %d%s", ex.describe(), st, locationOf(r, &ex))
		case ownStatus[ex.request]:
			// Its own check judges the status.
		case stateless && prescribedMismatch(r, &ex, st):
			// 2026-07-28 basic/transports, Streamable HTTP: "it MUST respond with 404 Not
			// Found and a JSON-RPC error with code -32601" (400 for -32602 and -32022).
			code, _ := errorCode(ex.answer(r))
			f.Fail(Seqs(ex.request, ex.head), "%s: expected HTTP %d with error %d (%s), got HTTP %d", ex.describe(), prescribedStatus(code), code, r.Revision(), st)
		case statusOwned(st, provoked[ex.request]):
			f.Fail(Seqs(ex.request, ex.head), "%s: expected a result or a JSON-RPC error, got a server error: HTTP %d%s", ex.describe(), st, bodyOf(r, &ex))
		}
	}
	switch {
	case n == 0:
		f.Untested("no request the probe posted got an HTTP response")
	case locked == n:
		f.Untested("the server needs credentials: every request got HTTP 401 or 403; %s", credentialsHint)
	case locked > 0:
		f.Pass("%d requests, none redirected nor answered with a server error; %d got HTTP 401 or 403: the server needs credentials, %s", n, locked, credentialsHint)
	default:
		f.Pass("%d requests, none redirected nor answered with a server error", n)
	}
}

// locationOf is the Location a redirect names, "" when none.
func locationOf(r *Capture, ex *httpExchange) string {
	if loc := r.Frames[ex.head].HTTP.Header.Get("Location"); loc != "" {
		return " to " + Clip([]byte(loc))
	}
	return ""
}

// answer is the first JSON-RPC response read from the exchange's answer (nil when none).
func (ex *httpExchange) answer(r *Capture) *Message {
	for _, seq := range ex.in {
		if m := r.Message(seq); m != nil && m.IsResponse() {
			return m
		}
	}
	return nil
}

// prescribedMismatch reports whether an error answer carries a code for which the stateless
// revision prescribes an HTTP status, under another status.
func prescribedMismatch(r *Capture, ex *httpExchange, status int) bool {
	m := ex.answer(r)
	if m == nil || m.Kind != ErrorResponse {
		return false
	}
	code, ok := errorCode(m)
	return ok && prescribedStatus(code) != 0 && prescribedStatus(code) != status
}

// carriesMessage reports whether a JSON-RPC message was read from the exchange's answer.
func (ex *httpExchange) carriesMessage(r *Capture) bool {
	for _, seq := range ex.in {
		if r.Frames[seq].Kind == probe.KindMessage {
			return true
		}
	}
	return false
}

func checkHTTPContentType(r *Capture, f *Finding) {
	n := 0
	bent := deliberateRequests(r)
	addEraExemptions(r, bent)
	provoked := provokedErrors(r)
	for _, ex := range httpExchanges(r) {
		if ex.msg == nil || ex.msg.Kind != Request || ex.head < 0 || bent[ex.request] {
			continue
		}
		st := ex.status(r)
		// One answer, one finding: a 401/403 is the authorization checks' evidence, a redirect
		// or server error http.status's, and an answer to a request that asks for an error is
		// its own check's when no JSON-RPC message could be read from it (that check already
		// says what came back, Content-Type included).
		if credentialsStatus(st) || statusOwned(st, provoked[ex.request]) ||
			(provoked[ex.request] && !ex.carriesMessage(r)) {
			continue
		}
		n++
		status := ""
		if st != http.StatusOK {
			status = fmt.Sprintf(" (HTTP %d)", st)
		}
		switch mt := ex.mediaType(r); mt {
		case "application/json", "text/event-stream":
		case "":
			f.Fail(Seqs(ex.request, ex.head), "%s: expected Content-Type application/json or text/event-stream, got none%s%s", ex.describe(), status, bodyOf(r, &ex))
		default:
			f.Fail(Seqs(ex.request, ex.head), "%s: expected Content-Type application/json or text/event-stream, got %s%s",
				ex.describe(), Clip([]byte(r.Frames[ex.head].HTTP.ContentType)), status)
		}
	}
	if n == 0 {
		f.Untested("no request the probe posted got an answer this check judges")
		return
	}
	f.Pass("%d answers, each application/json or text/event-stream", n)
}

func checkNotificationAccepted(r *Capture, f *Finding) {
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
		case st == http.StatusAccepted && body == 0:
		case st >= 400 && st < 500:
			// A notification the server cannot accept gets an HTTP error status, which may
			// carry an id-less JSON-RPC error: a refusal is no fault.
		case st == http.StatusAccepted:
			f.Fail(Seqs(ex.request, ex.head), "%s: expected 202 Accepted with no body, got 202 with a body of %d bytes%s", what, body, bodyOf(r, &ex))
		default:
			f.Fail(Seqs(ex.request, ex.head), "%s: expected 202 Accepted with no body (or a 4xx refusal), got HTTP %d%s", what, st, bodyOf(r, &ex))
		}
	}
	if n == 0 {
		f.Untested("no notification the probe posted got an HTTP response (initialize did not succeed)")
		return
	}
	f.Pass("%d notifications, each answered 202 Accepted with no body or refused with a 4xx", n)
}

func checkSSEFraming(r *Capture, f *Finding) {
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
				if pollingClose(r, &ex) {
					continue // closed as 2025-11-25 allows, after an event id: http.sse-priming judges it
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
