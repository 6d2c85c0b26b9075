package checks

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// protocolHeaderSince is the revision that introduced MCP-Protocol-Version (basic/transports, Protocol Version Header).
const protocolHeaderSince = protocol.Revision20250618

// httpRuleChecks judge the session and header rules of Streamable HTTP (basic/transports, Streamable HTTP).
// Each rule is probed on a session of its own.
func httpRuleChecks() []Check {
	return []Check{
		{ID: "http.session", Area: "http", Rule: "G7", Spec: httpSpec + "#session-management",
			Transport: protocol.TransportHTTP,
			Title:     "session ids are visible ASCII; a missing id gets 400, an unknown or deleted one 404",
			Evaluate:  checkHTTPSession},
		{ID: "http.protocol-version-header", Area: "http", Rule: "G8", Spec: httpSpec + "#protocol-version-header",
			Transport: protocol.TransportHTTP,
			Title:     "an invalid MCP-Protocol-Version header gets 400 (2025-06-18 and later)",
			Evaluate:  checkProtocolVersionHeader},
		{ID: "http.get-stream", Area: "http", Rule: "G6", Spec: httpSpec + "#listening-for-messages-from-the-server",
			Transport: protocol.TransportHTTP,
			Title:     "GET of the endpoint is answered with text/event-stream or 405",
			Evaluate:  checkGetStream},
		// Both HTTP transports: Streamable HTTP and legacy HTTP+SSE have the Origin rule.
		{ID: "http.origin", Area: "http", Rule: "G9", Spec: httpSpec + "#security-warning",
			Title:    "a request from a foreign Origin is refused: 403 from 2025-11-25, any refusal before",
			Evaluate: checkOrigin},
		{ID: "http.delete-session", Area: "http", Rule: "G7", Spec: httpSpec + "#session-management",
			Transport: protocol.TransportHTTP,
			Title:     "DELETE of a session is answered with 2xx or 405",
			Evaluate:  checkDeleteSession},
	}
}

// sessionIDOf is the session id a step's response issued ("" for none).
func sessionIDOf(r *Capture, st probe.Step) string {
	if f, ok := r.Frame(st.Response); ok && f.HTTP != nil {
		return f.HTTP.Header.Get(protocol.HeaderSessionID)
	}
	return ""
}

// badSessionByte finds the first byte of a session id outside visible ASCII (0x21-0x7E).
func badSessionByte(id string) (int, byte, bool) {
	for i := 0; i < len(id); i++ {
		if c := id[i]; c < 0x21 || c > 0x7E {
			return i, c, true
		}
	}
	return 0, 0, false
}

func checkHTTPSession(r *Capture, f *Finding) {
	ids := judgeSessionIDs(r, f)
	init, ok := stepOn(r, probe.ConnSession, probe.StepRuleInitialize)
	switch {
	case ok && init.Outcome == probe.OutcomeOK && sessionIDOf(r, init) == "":
		if ids == 0 && len(f.Evidence) == 0 {
			f.Skip("the server issues no session ids (Mcp-Session-Id), so there is no session to judge")
		}
		return
	case !ok || init.Outcome != probe.OutcomeOK:
		if ids == 0 {
			f.notJudged(ruleUnsentHere(r, probe.ConnSession), "%s", ruleMissing(r, probe.ConnSession, "the first session probe"))
		}
		return
	}
	if st, ok := stepOn(r, probe.ConnSession, probe.StepSessionMissing); ok && st.HTTPStatus != http.StatusBadRequest {
		f.Warn(Seqs(st.Request, st.Response), "a request without Mcp-Session-Id: expected HTTP 400, got %s", httpAnswer(r, st))
	}
	// The MUST of 404 names terminated sessions; an id the server never issued is only
	// expected to get what a terminated one gets.
	if st, ok := stepOn(r, probe.ConnSession, probe.StepSessionUnknown); ok && st.HTTPStatus != http.StatusNotFound {
		f.Warn(Seqs(st.Request, st.Response), "a request with a session id the server never issued: expected HTTP 404 (as for a terminated session), got %s", httpAnswer(r, st))
	}
	deleted := "it does not let clients end a session"
	if del, ok := stepOn(r, probe.ConnSession, probe.StepDeleteSession); ok && twoHundred(del.HTTPStatus) {
		deleted = "a deleted one got 404"
		if st, ok := stepOn(r, probe.ConnSession, probe.StepSessionDeleted); ok && st.HTTPStatus != http.StatusNotFound {
			f.Fail(Seqs(del.Request, st.Request, st.Response), "a request with the session id ended by DELETE (HTTP %d): expected HTTP 404, got %s", del.HTTPStatus, httpAnswer(r, st))
		}
	} else if ok && del.HTTPStatus != http.StatusMethodNotAllowed {
		deleted = fmt.Sprintf("a deleted one was not tried: DELETE got %s", httpAnswer(r, del))
	}
	f.Pass("session ids are visible ASCII (%d seen); a missing id got 400, an unknown one 404; %s", ids, deleted)
}

// judgeSessionIDs fails every session id (each judged once) with a byte outside visible
// ASCII and returns how many distinct ids the server issued.
func judgeSessionIDs(r *Capture, f *Finding) int {
	seen := map[string]bool{}
	// Header.Values canonicalizes the name on every call: once is enough for every frame.
	name := http.CanonicalHeaderKey(protocol.HeaderSessionID)
	for _, fr := range r.Frames {
		if fr.Dir != probe.In || fr.HTTP == nil || fr.SSE != nil {
			continue
		}
		for _, id := range fr.HTTP.Header[name] {
			if seen[id] {
				continue
			}
			seen[id] = true
			if i, c, bad := badSessionByte(id); bad || id == "" {
				what := "it is empty"
				if bad {
					what = fmt.Sprintf("byte 0x%02X at offset %d", c, i)
				}
				f.Fail(Seqs(fr.Seq), "expected a session id of visible ASCII (0x21-0x7E), got %s: %s", Clip([]byte(id)), what)
			}
		}
	}
	return len(seen)
}

func checkProtocolVersionHeader(r *Capture, f *Finding) {
	if rev := r.Revision(); rev < protocolHeaderSince {
		f.Skip("MCP-Protocol-Version exists from %s on; the server speaks %s", protocolHeaderSince, rev)
		return
	}
	st, ok := stepOn(r, probe.ConnProtocolHeader, probe.StepProtocolHeaderInvalid)
	if !ok {
		f.notJudged(ruleUnsentHere(r, probe.ConnProtocolHeader), "%s", ruleMissing(r, probe.ConnProtocolHeader, "the request with an invalid MCP-Protocol-Version"))
		return
	}
	if st.HTTPStatus != http.StatusBadRequest {
		f.Fail(Seqs(st.Request, st.Response), "MCP-Protocol-Version: %s: expected HTTP 400, got %s", protocol.BogusRevision, httpAnswer(r, st))
		return
	}
	f.Pass("MCP-Protocol-Version: %s got HTTP 400", protocol.BogusRevision)
}

func checkGetStream(r *Capture, f *Finding) {
	st, ok := stepOn(r, probe.ConnGetStream, probe.StepGetStream)
	if !ok {
		f.notJudged(ruleUnsentHere(r, probe.ConnGetStream), "%s", ruleMissing(r, probe.ConnGetStream, "the GET"))
		return
	}
	frames := Seqs(st.Request, st.Response)
	head, _ := r.Frame(st.Response)
	switch {
	case st.HTTPStatus == http.StatusMethodNotAllowed:
		f.Pass("GET got 405 Method Not Allowed")
	case st.HTTPStatus == http.StatusOK && head.HTTP != nil && mediaType(head.HTTP.ContentType) == "text/event-stream":
		f.Pass("GET got an event stream")
	case st.HTTPStatus == 0:
		f.Fail(frames, "GET: expected text/event-stream or 405 Method Not Allowed, got no response (%s)", describeStep(st))
	default:
		f.Fail(frames, "GET: expected text/event-stream or 405 Method Not Allowed, got HTTP %d%s", st.HTTPStatus, describeBody(r, st.Response))
	}
}

// originRefusedSince is the revision from which a foreign Origin MUST get 403 Forbidden;
// before it the server MUST validate the Origin, and any refusal shows it did.
const originRefusedSince = protocol.Revision20251125

func checkOrigin(r *Capture, f *Finding) {
	if r.Transport != protocol.TransportHTTP && r.Transport != protocol.TransportSSE {
		f.Skip("applies to the http and sse transports only")
		return
	}
	steps := append(stepsOn(r, probe.ConnOrigin, probe.StepForeignOriginStream), stepsOn(r, probe.ConnOrigin, probe.StepForeignOrigin)...)
	if len(steps) == 0 {
		f.notJudged(ruleUnsentHere(r, probe.ConnOrigin), "%s", ruleMissing(r, probe.ConnOrigin, "the request from a foreign Origin"))
		return
	}
	rev := r.Revision()
	var refused []string
	for _, st := range steps {
		what := fmt.Sprintf("%s with Origin: %s", originRequest(st), probe.ForeignOrigin)
		status := requestStatus(r, st)
		frames := Seqs(st.Request, st.Response)
		switch {
		case status == http.StatusForbidden:
		case status == http.StatusUnauthorized:
			// The server wants credentials before anything else: whether it would have
			// refused the Origin went unseen.
			f.Untested("%s got HTTP 401: the server needs credentials, so its Origin check went unseen; %s", what, credentialsHint)
			return
		case status >= 400 && status <= 499 && rev >= originRefusedSince:
			// 403 is what the rule names; another 4xx still refuses the request.
			f.Warn(frames, "%s: expected HTTP 403 Forbidden (%s), got HTTP %d%s", what, rev, status, describeBody(r, st.Response))
		case status >= 400 && status <= 499:
		case status == 0 && !answeredHTTP(r):
			// A server that answers nobody (down, wrong port) says nothing about how it
			// treats a foreign Origin; one that answers others but drops this request does.
			f.Untested("the server answered no HTTP request at all, so its Origin check went unseen (%s)", describeAnswer(r, st))
			return
		case status == 0:
			f.Fail(frames, "%s: expected HTTP 403 Forbidden, got %s", what, describeAnswer(r, st))
			continue
		default:
			f.Fail(frames, "%s: expected HTTP 403 Forbidden, got %s", what, originAnswer(r, st, status))
			continue
		}
		refused = append(refused, fmt.Sprintf("%s got HTTP %d", originRequest(st), status))
	}
	f.Pass("Origin: %s refused: %s", probe.ForeignOrigin, strings.Join(refused, ", "))
}

// originRequest names what a step of the Origin probe sent.
func originRequest(st probe.Step) string {
	if st.Name == probe.StepForeignOriginStream {
		return "GET of the event stream"
	}
	return st.Method
}

// requestStatus is the HTTP status of the response to a step's own request: on legacy
// HTTP+SSE the POST's, not that of the stream its answer came on.
func requestStatus(r *Capture, st probe.Step) int {
	if req, ok := r.Frame(st.Request); ok && req.Exchange != 0 {
		for _, ex := range httpExchanges(r) {
			if ex.conn == req.Conn && ex.number == req.Exchange {
				return ex.status(r)
			}
		}
	}
	return st.HTTPStatus
}

// originAnswer describes an answer that accepted a foreign Origin: the POST's status, and
// what answered the request when it came elsewhere (the legacy event stream).
func originAnswer(r *Capture, st probe.Step, status int) string {
	if status == st.HTTPStatus || st.Response < 0 {
		return httpAnswer(r, st)
	}
	return fmt.Sprintf("HTTP %d, and the request was served (%s)", status, describeAnswer(r, st))
}

// answeredHTTP reports whether any HTTP request of the probe got a response head.
func answeredHTTP(r *Capture) bool {
	for _, f := range r.Frames {
		if f.Dir == probe.In && f.HTTP != nil {
			return true
		}
	}
	return false
}

func checkDeleteSession(r *Capture, f *Finding) {
	st, ok := stepOn(r, probe.ConnDeleteSession, probe.StepDeleteSession)
	if !ok {
		if init, ok := stepOn(r, probe.ConnDeleteSession, probe.StepRuleInitialize); ok && init.Outcome == probe.OutcomeOK {
			f.Skip("the server issued no session id, so there is no session to end")
			return
		}
		f.notJudged(ruleUnsentHere(r, probe.ConnDeleteSession), "%s", ruleMissing(r, probe.ConnDeleteSession, "the DELETE"))
		return
	}
	if twoHundred(st.HTTPStatus) || st.HTTPStatus == http.StatusMethodNotAllowed {
		f.Pass("DELETE of the session got HTTP %d", st.HTTPStatus)
		return
	}
	got := httpAnswer(r, st)
	if st.HTTPStatus == 0 {
		got = "no response (" + describeStep(st) + ")"
	}
	f.Warn(Seqs(st.Request, st.Response), "DELETE of the session: expected 2xx or 405 Method Not Allowed, got %s", got)
}
