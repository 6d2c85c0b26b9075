package checks

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

const specRequestMetadata = "https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#server-validation"

func statelessHeadersCheck() Check {
	return Check{ID: "stateless.headers", Area: "stateless", Rule: "G8", Spec: specRequestMetadata,
		Transport: protocol.TransportHTTP,
		Title:     "a POST whose MCP-Protocol-Version, Mcp-Method or Mcp-Name is missing or does not match the body gets 400 with -32020; header names are case-insensitive",
		Evaluate:  checkStatelessHeaders}
}

// headerProbe is one bent request of the stateless.headers probe and what it leaves out.
type headerProbe struct {
	step string
	what string
}

// headerProbes are the requests the server must refuse with 400 and -32020
// (2026-07-28 basic/transports/streamable-http, "Server Validation": "Servers that process
// the request body MUST reject requests where the values specified in the headers do not
// match the corresponding values in the request body" ... "MUST return HTTP status 400 Bad
// Request and MUST include a JSON-RPC error response" with -32020; a validation failure
// includes "A required standard header (MCP-Protocol-Version, Mcp-Method, Mcp-Name) is
// missing").
func headerProbes() []headerProbe {
	return []headerProbe{
		{probe.StepHeadersNoProtocolVersion, "a request without MCP-Protocol-Version"},
		{probe.StepHeadersProtocolMismatch, "MCP-Protocol-Version " + protocol.BogusStatelessRevision + " on a request whose _meta names the spoken revision"},
		{probe.StepHeadersNoMethod, "a request without Mcp-Method"},
		{probe.StepHeadersMethodMismatch, "Mcp-Method " + probe.HeadersMismatchedMethod + " on a server/discover request"},
		{probe.StepHeadersNoName, "a request without Mcp-Name"},
		{probe.StepHeadersNameMismatch, "an Mcp-Name that is not the body's name"},
	}
}

func checkStatelessHeaders(r *Capture, f *Finding) {
	if !needsStateless(r, f) {
		return
	}
	judged := 0
	for _, hp := range headerProbes() {
		st, ok := stepOn(r, probe.ConnStatelessHeaders, hp.step)
		if !ok {
			continue
		}
		judged++
		judgeHeaderRefusal(r, f, hp, st)
	}
	lower, ok := stepOn(r, probe.ConnStatelessHeaders, probe.StepHeadersLowercase)
	if ok {
		judged++
		// "Header names ... are case-insensitive. Clients and servers MUST use
		// case-insensitive comparisons for header names."
		if lower.Outcome != probe.OutcomeOK {
			f.Fail(Seqs(lower.Request, lower.Response),
				"expected a request whose header names are lowercase (mcp-protocol-version, mcp-method) served: header names are case-insensitive; got %s",
				httpAnswer(r, lower))
		}
	}
	padded, ok := stepOn(r, probe.ConnStatelessHeaders, probe.StepHeadersPadded)
	if ok {
		judged++
		// RFC 9110 §5.5: "A field value does not include leading or trailing whitespace.
		// When a specific version of HTTP allows such whitespace to appear in a message, a
		// field parsing implementation MUST exclude such whitespace prior to evaluating the
		// field value" (HTTP/1.1 allows it: field-line = field-name ":" OWS field-value OWS,
		// RFC 9112 §5).
		if padded.Outcome != probe.OutcomeOK {
			f.Fail(Seqs(padded.Request, padded.Response),
				"expected a request whose MCP-Protocol-Version and Mcp-Method values have a space before and after them served: whitespace around a field value is not part of it (RFC 9110 §5.5); got %s",
				httpAnswer(r, padded))
		}
	}
	if judged == 0 {
		f.notJudged(stoppedHere(r), "the header probes were not sent: %s", probeStopped(r))
		return
	}
	if len(f.Evidence) > 0 {
		return
	}
	headers, served := "MCP-Protocol-Version, Mcp-Method and Mcp-Name", "lowercase header names"
	var notProbed []string
	if _, named := stepOn(r, probe.ConnStatelessHeaders, probe.StepHeadersNoName); !named {
		headers = "MCP-Protocol-Version and Mcp-Method"
		notProbed = append(notProbed, "Mcp-Name was not probed: the server lists no resource and no prompt without arguments to read")
	}
	if ok {
		served += " and values padded with spaces"
	} else {
		notProbed = append(notProbed, "values padded with spaces were not sent: only a plain-http target lets the probe write them")
	}
	msg := fmt.Sprintf("missing and mismatched %s got 400 with -32020, %s were served", headers, served)
	if len(notProbed) > 0 {
		msg += "; " + strings.Join(notProbed, "; ")
	}
	f.Pass("%s", msg)
}

// judgeHeaderRefusal records a fault when a bent request was not refused with 400 and -32020.
func judgeHeaderRefusal(r *Capture, f *Finding, hp headerProbe, st probe.Step) {
	frames := Seqs(st.Request, st.Response)
	m := exchangeAnswer(r, st)
	code, hasCode := int64(0), false
	if m != nil && m.Kind == ErrorResponse {
		code, hasCode = errorCode(m)
	}
	if st.HTTPStatus == http.StatusBadRequest && hasCode && code == protocol.CodeHeaderMismatch {
		return
	}
	switch hp.step {
	case probe.StepHeadersProtocolMismatch:
		// The header names a revision the server cannot support: "If the server does not
		// implement the requested protocol version ... it MUST respond with 400 Bad Request
		// and an UnsupportedProtocolVersionError", which is as right as -32020.
		if st.HTTPStatus == http.StatusBadRequest && hasCode && code == protocol.CodeUnsupportedProtocolVersion {
			return
		}
	case probe.StepHeadersNoProtocolVersion:
		// "A server that supports clients implementing protocol versions earlier than
		// 2025-06-18 ... MAY treat a request that omits the header as protocol version
		// 2025-03-26. A server that does not support such clients MUST reject a request
		// without the header." Such a server may refuse the request as 2025-03-26 would;
		// serving it as a request of the stateless revision is wrong either way.
		if st.Outcome != probe.OutcomeOK && speaksBeforeProtocolHeader(r) {
			return
		}
	}
	f.Fail(frames, "%s: expected HTTP 400 with error %d (HeaderMismatch), got %s", hp.what, protocol.CodeHeaderMismatch, httpAnswer(r, st))
}

// speaksBeforeProtocolHeader reports whether the DiscoverResult lists a revision older than
// 2025-06-18, whose clients send no MCP-Protocol-Version.
func speaksBeforeProtocolHeader(r *Capture) bool {
	_, versions := supportedVersions(r)
	return slices.ContainsFunc(versions, func(v string) bool {
		return protocol.KnownRevision(v) && !protocol.SendsProtocolHeader(v)
	})
}
