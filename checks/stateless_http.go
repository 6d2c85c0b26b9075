package checks

import (
	"net/http"

	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// prescribedStatus is the HTTP status the stateless revision prescribes for an error code, 0
// when it prescribes none. 2026-07-28 basic/transports/streamable-http prescribes 404 for
// -32601 and 400 for -32020 and -32022; basic/index, Request metadata, 400 for -32021. Its
// 400 for -32602 is for "a request missing any required field" of _meta only, which
// discover.meta-required judges: -32602 for an unknown tool or a bad cursor comes with no
// prescribed status.
func prescribedStatus(code int64) int {
	switch code {
	case protocol.CodeMethodNotFound:
		return http.StatusNotFound
	case protocol.CodeHeaderMismatch, protocol.CodeUnsupportedProtocolVersion, protocol.CodeMissingClientCapability:
		return http.StatusBadRequest
	}
	return 0
}

// addEraExemptions marks (in bent, by request Seq) the exchanges whose HTTP status is not
// http.status's to judge: era detection's server/discover on a server that turned out to
// have sessions (it was refused as the session era refuses it), an initialize era detection
// sent to a server that turned out stateless, and, under a stateless revision, an error
// answered with exactly the status that revision prescribes for its code.
func addEraExemptions(r *Capture, bent map[int]bool) {
	stateless := r.Stateless()
	for _, st := range r.Steps {
		if st.Request < 0 {
			continue
		}
		switch {
		case st.Name == probe.StepEraInitialize, st.Name == probe.StepDiscover && !stateless:
			bent[st.Request] = true
		case stateless && st.HTTPStatus != 0 && st.HTTPStatus != http.StatusOK:
			m := exchangeAnswer(r, st)
			if m == nil || m.Kind != ErrorResponse {
				continue
			}
			if code, ok := errorCode(m); ok && prescribedStatus(code) == st.HTTPStatus {
				bent[st.Request] = true
			}
		}
	}
}
