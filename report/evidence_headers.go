package report

import (
	"net/http"
	"strings"

	"github.com/mcpwatch/mcpwatch/protocol"
)

// frameHeaderIndent sets a frame's header line under its content, past the frame number,
// arrow, time and connection.
const frameHeaderIndent = "                     "

// ruleHeaders names the HTTP headers a check's rule is about, as the specification spells
// them: those of the probe's request and those of the server's answer. Evidence frames show
// these (present or not) under the frame line, so that a reader sees what was sent and what
// came back without the verbose transcript.
func ruleHeaders(id string) (request, response []string) {
	switch id {
	case "http.origin":
		return []string{"Origin"}, nil
	case "http.session":
		return []string{protocol.HeaderSessionID}, []string{protocol.HeaderSessionID}
	case "http.delete-session":
		return []string{protocol.HeaderSessionID}, []string{"Allow"}
	case "http.protocol-version-header":
		return []string{protocol.HeaderProtocolVersion}, nil
	case "stateless.headers":
		return []string{protocol.HeaderProtocolVersion, protocol.HeaderMethod, protocol.HeaderName}, nil
	case "http.content-type", "http.sse-framing", "sse.message-events", "sse.endpoint-event":
		return []string{"Accept"}, []string{"Content-Type"}
	case "http.get-stream":
		return []string{"Accept"}, []string{"Content-Type", "Allow"}
	case "http.notification-accepted":
		return nil, []string{"Content-Type", "Content-Length"}
	case "http.status":
		return nil, []string{"Content-Type", "Location"}
	case "auth.challenge":
		return []string{"Authorization"}, []string{"WWW-Authenticate"}
	case "auth.resource-metadata":
		return nil, []string{"Content-Type", "WWW-Authenticate"}
	case "auth.invalid-token":
		return []string{"Authorization"}, []string{"WWW-Authenticate"}
	case "auth.scope":
		return nil, []string{"WWW-Authenticate", "Content-Type"}
	case "auth.server-metadata", "auth.pkce", "auth.client-registration":
		return nil, []string{"Content-Type", "Location"}
	}
	return nil, nil
}

// headerEvidence renders the headers check id is about that frame f carries ("(none)" for
// one it lacks: a missing header is often the fault), or "" when the frame is not HTTP or
// the rule names no header on its side.
func headerEvidence(id string, f Frame) string {
	if f.HTTP == nil {
		return ""
	}
	request, response := ruleHeaders(id)
	names := response
	if f.Dir == "out" {
		names = request
	} else if f.HTTP.Status == 0 {
		// Body frames of a response repeat nothing of its head.
		return ""
	}
	if len(names) == 0 {
		return ""
	}
	parts := make([]string, 0, len(names))
	for _, name := range names {
		v := "(none)"
		if vs, ok := lookupHeader(f.HTTP.Header, name); ok {
			v = strings.Join(vs, ", ")
		}
		parts = append(parts, name+": "+v)
	}
	return strings.Join(parts, " · ")
}

// lookupHeader finds a header whatever the case its name was recorded in.
func lookupHeader(h map[string][]string, name string) ([]string, bool) {
	if vs, ok := h[http.CanonicalHeaderKey(name)]; ok {
		return vs, true
	}
	for k, vs := range h {
		if strings.EqualFold(k, name) {
			return vs, true
		}
	}
	return nil, false
}
