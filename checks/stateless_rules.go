package checks

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"

	"github.com/mcpwatch/mcpwatch/jsondoc"
	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// The rules of what the stateless revision (2026-07-28) took away: the removed methods, the
// session, the GET stream and DELETE, and requests from the server; and what a server that
// speaks only that revision owes a client of the session era that sends it initialize.

const (
	specStreamableHTTP = "https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http"
	specProtocolHeader = specStreamableHTTP + "#protocol-version-header"
	specEarlierHTTP    = specStreamableHTTP + "#earlier-streamable-http-revisions"
	specReceiving      = specStreamableHTTP + "#receiving-messages"
	specVersionCompat  = specVersioning + "#backward-compatibility-with-initialization-based-versions"
)

func statelessRuleChecks() []Check {
	return []Check{
		{ID: "stateless.removed-methods", Area: "stateless", Rule: "26", Spec: specProtocolHeader,
			Title:    "ping, logging/setLevel, resources/subscribe, resources/unsubscribe (and initialize on a server of the stateless era only) get -32601, over HTTP with 404",
			Evaluate: checkRemovedMethods},
		{ID: "stateless.no-session", Area: "stateless", Rule: "26", Spec: specEarlierHTTP, Transport: protocol.TransportHTTP,
			Title:    "a server of the stateless revision only mints no Mcp-Session-Id and ignores one a client sends",
			Evaluate: checkNoSession},
		{ID: "stateless.get-delete", Area: "stateless", Rule: "26", Spec: specEarlierHTTP, Transport: protocol.TransportHTTP,
			Title:    "a server of the stateless revision only answers GET and DELETE of the endpoint with 405",
			Evaluate: checkGetDelete},
		{ID: "stateless.server-requests", Area: "stateless", Rule: "F6, 26", Spec: specReceiving,
			Title:    "no JSON-RPC request from the server on stdout or on a POST's stream under the stateless revision",
			Evaluate: checkServerRequests},
		{ID: "discover.version-error", Area: "discover", Rule: "26", Spec: specVersionCompat,
			Title:    "a server of the stateless era only names the revisions it supports in its error to initialize",
			Evaluate: checkVersionError},
	}
}

// removedMethodStep reports whether a step sends one of the methods the stateless revision
// removed (its status is stateless.removed-methods' to judge).
func removedMethodStep(name string) bool {
	for _, rm := range probe.RemovedMethods() {
		if rm.Step == name {
			return true
		}
	}
	return false
}

// checkRemovedMethods: 2026-07-28 changelog, "Remove ping, logging/setLevel, and
// notifications/roots/list_changed", "Replace the HTTP GET endpoint and
// resources/subscribe/resources/unsubscribe with subscriptions/listen", "remove the
// initialize/notifications/initialized handshake"; basic/transports/streamable-http,
// Protocol Version Header: "If the server does not implement the requested RPC method, it
// MUST respond with 404 Not Found and a JSON-RPC error with code -32601 (Method not found)";
// over stdio JSON-RPC 2.0 §5.1's -32601 "The method does not exist / is not available".
func checkRemovedMethods(r *Capture, f *Finding) {
	if !needsStateless(r, f) {
		return
	}
	overHTTP := r.Transport == protocol.TransportHTTP
	var judged []string
	for _, rm := range probe.RemovedMethods() {
		st, ok := stepOn(r, probe.ConnStatelessRemoved, rm.Step)
		if !ok || st.Outcome == probe.OutcomeTransport && st.HTTPStatus == 0 {
			continue
		}
		judged = append(judged, rm.Method)
		code, hasCode := int64(0), false
		if m := exchangeAnswer(r, st); m != nil && m.Kind == ErrorResponse {
			code, hasCode = errorCode(m)
		}
		switch {
		case !hasCode || code != protocol.CodeMethodNotFound:
			want := "error -32601 (Method not found)"
			if overHTTP {
				want = "HTTP 404 with " + want
			}
			f.Fail(Seqs(st.Request, st.Response), "%s under %s: expected %s, the method does not exist in this revision; got %s",
				rm.Method, r.Revision(), want, httpAnswer(r, st))
		case overHTTP && st.HTTPStatus != http.StatusNotFound:
			f.Fail(Seqs(st.Request, st.Response), "%s under %s: expected HTTP 404 with error -32601, got HTTP %d with -32601",
				rm.Method, r.Revision(), st.HTTPStatus)
		}
	}
	if len(judged) == 0 {
		f.notJudged(stoppedHere(r), "the removed methods were not sent: %s", probeStopped(r))
		return
	}
	if len(f.Evidence) > 0 {
		return
	}
	msg := fmt.Sprintf("%s got -32601", strings.Join(judged, ", "))
	if overHTTP {
		msg = fmt.Sprintf("%s got HTTP 404 with -32601", strings.Join(judged, ", "))
	}
	if _, sent := stepOn(r, probe.ConnStatelessRemoved, probe.StepStatelessInitialize); !sent {
		msg += "; initialize was not sent: " + initializeNotSentReason(r)
	}
	f.Pass("%s", msg)
}

// initializeNotSentReason says why the stateless initialize was not sent.
func initializeNotSentReason(r *Capture) string {
	switch speaksOnlyStateless(r) {
	case eraDual:
		return "the server speaks a session revision too, and a dual-era server reads initialize as a session-era opening (2026-07-28 basic/versioning)"
	case eraUnknown:
		return "the probe could not tell whether the server also speaks a session revision"
	}
	return probeStopped(r)
}

// speaksOnlyStateless is sessionEraOf with the era probe's initialize refused over HTTP
// with a 4xx and no JSON-RPC error counted as a refusal too: a server of the stateless era
// refuses a request without its headers with 400, whatever the body (basic/versioning,
// Compatibility Matrix: "the request is missing the required headers and is rejected per
// server validation with 400 Bad Request").
func speaksOnlyStateless(r *Capture) serverEra {
	era := sessionEraOf(r)
	if era != eraUnknown {
		return era
	}
	st, ok := stepOn(r, probe.ConnSessionEra, probe.StepEraInitialize)
	if ok && st.Outcome != probe.OutcomeOK && st.HTTPStatus >= 400 && st.HTTPStatus <= 499 &&
		st.HTTPStatus != http.StatusUnauthorized && st.HTTPStatus != http.StatusForbidden {
		return eraStatelessOnly
	}
	return eraUnknown
}

// needsStatelessOnly skips a rule of "a server that supports only this revision" on any
// other server, and leaves it untested when the probe could not tell.
func needsStatelessOnly(r *Capture, f *Finding) bool {
	if !needsStateless(r, f) {
		return false
	}
	switch speaksOnlyStateless(r) {
	case eraDual:
		f.Skip("the rule is for a server that supports only the stateless revision; this one speaks a session revision too")
		return false
	case eraUnknown:
		if era, ok := stepOn(r, probe.ConnSessionEra, probe.StepEraInitialize); ok {
			f.Untested("the probe could not tell whether the server also speaks a session revision (initialize got %s)", describeAnswer(r, era))
			return false
		}
		f.notJudged(stoppedHere(r), "the probe could not tell whether the server also speaks a session revision: %s", probeStopped(r))
		return false
	}
	return true
}

// checkNoSession: 2026-07-28 basic/transports/streamable-http, Earlier Streamable HTTP
// Revisions: "A server that supports only this revision and receives such traffic from an
// older client SHOULD respond as follows: ... An Mcp-Session-Id header on a request: ignore
// it, and do not mint or echo session IDs."
func checkNoSession(r *Capture, f *Finding) {
	if !needsStatelessOnly(r, f) {
		return
	}
	heads := 0
	for _, ex := range httpExchanges(r) {
		if ex.head < 0 {
			continue
		}
		head := r.Frames[ex.head].HTTP
		heads++
		if id := head.Header.Get(protocol.HeaderSessionID); id != "" {
			f.Warn(Seqs(ex.request, ex.head), "expected no %s from a server of the stateless revision only, got %s: %s on an HTTP %d answer",
				protocol.HeaderSessionID, protocol.HeaderSessionID, Clip([]byte(id)), head.Status)
		}
	}
	st, sent := stepOn(r, probe.ConnStatelessSession, probe.StepStatelessSessionID)
	if sent && st.Outcome != probe.OutcomeOK && !(st.Outcome == probe.OutcomeTransport && st.HTTPStatus == 0) {
		f.Warn(Seqs(st.Request, st.Response), "server/discover with an %s the server never issued: expected it served as without the header (ignored), got %s",
			protocol.HeaderSessionID, httpAnswer(r, st))
	}
	if len(f.Evidence) > 0 {
		return
	}
	if heads == 0 {
		f.notJudged(stoppedHere(r), "no HTTP answer to read: %s", probeStopped(r))
		return
	}
	msg := fmt.Sprintf("no %s on %d HTTP answers", protocol.HeaderSessionID, heads)
	if sent && st.Outcome == probe.OutcomeOK {
		msg += "; a request with a session id the server never issued was served"
	} else {
		msg += "; the request with a made-up session id was not sent: " + probeStopped(r)
	}
	f.Pass("%s", msg)
}

// checkGetDelete: 2026-07-28 basic/transports/streamable-http, Earlier Streamable HTTP
// Revisions: "A server that supports only this revision and receives such traffic from an
// older client SHOULD respond as follows: HTTP GET or DELETE to the MCP endpoint: respond
// with 405 Method Not Allowed."
func checkGetDelete(r *Capture, f *Finding) {
	if !needsStatelessOnly(r, f) {
		return
	}
	judged := 0
	for _, name := range []string{probe.StepStatelessGet, probe.StepStatelessDelete} {
		st, ok := stepOn(r, probe.ConnStatelessGetDelete, name)
		if !ok || st.HTTPStatus == 0 {
			continue
		}
		judged++
		if st.HTTPStatus != http.StatusMethodNotAllowed {
			f.Warn(Seqs(st.Request, st.Response), "%s of the endpoint: expected HTTP 405 (the stateless revision has no GET stream and no session to delete), got HTTP %d%s",
				st.Method, st.HTTPStatus, describeBody(r, st.Response))
		}
	}
	if judged == 0 {
		f.notJudged(stoppedHere(r), "GET and DELETE of the endpoint got no HTTP answer: %s", probeStopped(r))
		return
	}
	if len(f.Evidence) == 0 {
		f.Pass("GET and DELETE of the endpoint got HTTP 405")
	}
}

// checkServerRequests: 2026-07-28 basic/transports/stdio, Receiving Messages: "The server
// MUST NOT write JSON-RPC requests to stdout"; basic/transports/streamable-http, Receiving
// Messages: "The server MUST NOT send independent JSON-RPC requests on this stream."
// Only what answers a request of the stateless revision is judged: a dual-era server may
// send requests in a session it opened on initialize.
func checkServerRequests(r *Capture, f *Finding) {
	if !needsStateless(r, f) {
		return
	}
	n := 0
	switch r.Transport {
	case protocol.TransportHTTP:
		for _, ex := range httpExchanges(r) {
			if ex.msg == nil || ex.msg.Kind != Request || !statelessMessage(ex.msg) {
				continue
			}
			n++
			for _, seq := range ex.in {
				if m := r.Message(seq); m != nil && m.Kind == Request {
					f.Fail(Seqs(ex.request, seq), "expected no request from the server on the answer to %s under %s, got %s",
						Clip([]byte(ex.msg.Method)), r.Revision(), Clip([]byte(m.Method)))
				}
			}
		}
	case protocol.TransportStdio:
		n = judgeStdioServerRequests(r, f)
	default:
		f.Skip("the stateless revision is not spoken over %s", r.Transport)
		return
	}
	if len(f.Evidence) > 0 {
		return
	}
	if n == 0 {
		f.notJudged(stoppedHere(r), "no request of the stateless revision was answered: %s", probeStopped(r))
		return
	}
	f.Pass("no request from the server while it was spoken to in %s (%d requests)", r.Revision(), n)
}

// judgeStdioServerRequests fails every request a stdio server wrote while the connection
// spoke only the stateless revision: after a stateless request, before anything that a
// dual-era server may read as the session era (initialize, or a message whose _meta names
// no stateless revision). It returns how many stateless requests it saw.
func judgeStdioServerRequests(r *Capture, f *Finding) int {
	type connState struct{ spoken, left bool }
	conns := map[int]*connState{}
	n := 0
	for _, fr := range r.Frames {
		if fr.Kind != probe.KindMessage {
			continue
		}
		m := r.Message(fr.Seq)
		if m == nil || m.Kind != Request && m.Kind != Notification {
			continue
		}
		cs := conns[fr.Conn]
		if cs == nil {
			cs = &connState{}
			conns[fr.Conn] = cs
		}
		switch {
		case fr.Dir == probe.Out && (m.Method == "initialize" || !statelessMessage(m)):
			cs.left = true
		case fr.Dir == probe.Out:
			cs.spoken = true
			if m.Kind == Request {
				n++
			}
		case m.Kind == Request && cs.spoken && !cs.left:
			f.Fail(Seqs(fr.Seq), "expected no request from the server on stdout under %s, got %s", r.Revision(), Clip([]byte(m.Method)))
		}
	}
	return n
}

// statelessMessage reports whether a message the probe sent names a stateless revision in
// its _meta.
func statelessMessage(m *Message) bool {
	params, _ := objectMembers(m.Params)
	meta, _ := objectMembers(params["_meta"])
	v, ok := jsondoc.Str(meta[protocol.MetaProtocolVersion])
	return ok && protocol.Stateless(v)
}

// checkVersionError: 2026-07-28 basic/versioning, Backward Compatibility with
// Initialization-Based Versions: "A server that supports only modern versions SHOULD name
// the protocol versions it supports in any error it returns to an initialize request, on any
// transport: legacy clients have no fall-forward mechanism, and this message may be the only
// diagnostic they can surface to users."
func checkVersionError(r *Capture, f *Finding) {
	if !needsStatelessOnly(r, f) {
		return
	}
	_, versions := supportedVersions(r)
	if len(versions) == 0 {
		versions = []string{r.Revision()}
	}
	judged := 0
	for _, at := range []struct {
		conn int
		step string
		what string
	}{
		{probe.ConnSessionEra, probe.StepEraInitialize, "initialize of the session era"},
		{probe.ConnStatelessRemoved, probe.StepStatelessInitialize, "initialize with the stateless revision's _meta"},
	} {
		st, ok := stepOn(r, at.conn, at.step)
		if !ok || st.Outcome == probe.OutcomeOK || st.Response < 0 {
			continue
		}
		judged++
		text := r.Frames[st.Response].Raw
		if m := exchangeAnswer(r, st); m != nil && m.Kind == ErrorResponse {
			text = m.Error
		}
		var missing []string
		for _, v := range versions {
			if !bytes.Contains(text, []byte(v)) {
				missing = append(missing, v)
			}
		}
		if len(missing) > 0 {
			f.Warn(Seqs(st.Request, st.Response), "%s: expected the error to name the revisions the server supports (%s), e.g. in data.supported; got %s without %s",
				at.what, strings.Join(versions, ", "), httpAnswer(r, st), strings.Join(missing, ", "))
		}
	}
	if judged == 0 {
		f.notJudged(stoppedHere(r), "no initialize was refused with an answer to read: %s", probeStopped(r))
		return
	}
	if len(f.Evidence) == 0 {
		f.Pass("the error to initialize names %s", strings.Join(versions, ", "))
	}
}
