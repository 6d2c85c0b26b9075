package checks

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/mcpwatch/mcpwatch/jsondoc"
	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

const (
	specMRTR          = "https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr#supported-requests"
	specSubscriptions = "https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions"
)

// resultsChecks judge what the stateless revision says of results and errors beyond their
// shape: which requests may answer input_required, which error codes a server may send, and
// the stream subscriptions/listen opens.
func resultsChecks() []Check {
	return []Check{
		{ID: "results.input-required", Area: "results", Rule: "A9", Spec: specMRTR,
			Title:    "only prompts/get, resources/read and tools/call answer resultType input_required",
			Evaluate: checkInputRequired},
		{ID: "errors.codes", Area: "errors", Rule: "B", Spec: specErrorCodes,
			Title:    "no retired code (-32002, -32042), no undefined code of MCP's range -32020…-32099, no legacy code -32000…-32019",
			Evaluate: checkErrorCodes},
		subscriptionsListenCheck(),
	}
}

// inputRequiredMethods are the requests that may answer an InputRequiredResult (2026-07-28
// basic/patterns/mrtr, "Supported Requests"): "Servers MUST NOT send InputRequiredResult
// responses on any other client requests."
func inputRequiredMethods() []string { return []string{"prompts/get", "resources/read", "tools/call"} }

// interimResult reports whether a result is an InputRequiredResult: resultType
// input_required. Such a result is no answer of its method (it carries no tools, no
// contents, no cache hints), so the checks of the method's result leave it to
// results.input-required.
func interimResult(result []byte) bool {
	// A member named resultType shows its name in the bytes unless the name is escaped: a
	// result with neither the name nor a backslash anywhere has none, and its members (a
	// tools/list result is kilobytes) need not be read.
	if !bytes.Contains(result, []byte("resultType")) && bytes.IndexByte(result, '\\') < 0 {
		return false
	}
	members, ok := objectMembers(result)
	if !ok {
		return false
	}
	v, _ := jsondoc.Str(members["resultType"])
	return v == "input_required"
}

// checkInputRequired judges every result of a stateless request: an input_required result
// to a method the revision does not let answer it fails.
func checkInputRequired(r *Capture, f *Finding) {
	if !needsStateless(r, f) {
		return
	}
	judged, allowed := 0, 0
	for _, st := range r.Steps {
		if st.Outcome != probe.OutcomeOK || !statelessRequest(r, st) {
			continue
		}
		judged++
		if !interimResult(st.Result) {
			continue
		}
		if slices.Contains(inputRequiredMethods(), st.Method) {
			allowed++
			continue
		}
		f.Fail(Seqs(st.Request, st.Response), "%s: expected a complete result (only %s may answer input_required), got resultType input_required",
			describeStepName(st), joinMethods(inputRequiredMethods()))
	}
	if judged == 0 && len(f.Evidence) == 0 {
		f.Untested("no stateless request got a result (%s)", discoverFailedReason(r))
		return
	}
	if allowed > 0 {
		f.Pass("%d results; the %d input_required among them answer requests that may ask for input", judged, allowed)
		return
	}
	f.Pass("%d results, none input_required where the revision forbids it", judged)
}

func joinMethods(ms []string) string {
	switch len(ms) {
	case 0:
		return ""
	case 1:
		return ms[0]
	}
	out := ms[0]
	for _, m := range ms[1 : len(ms)-1] {
		out += ", " + m
	}
	return out + " and " + ms[len(ms)-1]
}

// codeOwner names the check that prescribes the error code of a step, if any: a wrong code
// there is that check's finding, not errors.codes' (one fault, one finding). On some
// connections every code is prescribed: the bent headers of stateless.headers, the removed
// methods of stateless.removed-methods.
func codeOwner(st probe.Step) string {
	switch st.Conn {
	case probe.ConnStatelessHeaders:
		return "stateless.headers"
	case probe.ConnStatelessRemoved:
		return "stateless.removed-methods"
	}
	switch st.Name {
	case probe.StepDiscoverUnsupported:
		return "discover.unsupported-version"
	case probe.StepMetaMissing, probe.StepMetaNoProtocolVersion, probe.StepMetaNoClientCapabilities, probe.StepMetaNoClientInfo:
		return "discover.meta-required"
	case probe.StepUnknownMethod:
		return "lifecycle.unknown-method"
	case probe.StepInvalidCursor:
		return "tools.invalid-cursor"
	case probe.StepResourcesReadUnknown:
		return "resources.read-unknown"
	case probe.StepPromptGetUnknown, probe.StepPromptGetMissingArgument:
		return "prompts.get-invalid"
	case probe.StepParseError:
		return "lifecycle.parse-error"
	case probe.StepInvalidRequest:
		return "lifecycle.invalid-request"
	case probe.StepSetLevelInvalid:
		return "logging.set-level"
	}
	return ""
}

// checkErrorCodes judges the code of every error the server sent to a request of the
// stateless revision (2026-07-28 basic, "Error Codes"): a retired code (-32002, -32042)
// "MUST NOT" be emitted; a code of MCP's own range (-32020 to -32099) the revision does not
// define "MUST NOT" be emitted, and a defined one used "only with [its] specified meanings";
// "new implementations SHOULD NOT use codes from" the legacy range (-32000 to -32019), and
// codes of their own "SHOULD be allocated outside the JSON-RPC reserved range".
func checkErrorCodes(r *Capture, f *Finding) {
	if !needsStateless(r, f) {
		return
	}
	rev := r.Revision()
	judged, owned := 0, 0
	for _, st := range r.Steps {
		if st.Outcome != probe.OutcomeError && st.Outcome != probe.OutcomeTransport || !statelessRequest(r, st) {
			continue
		}
		m := exchangeAnswer(r, st)
		if m == nil || m.Kind != ErrorResponse {
			continue
		}
		code, ok := errorCode(m)
		if !ok {
			continue // jsonrpc.error-shape judges a code that is no integer
		}
		if codeOwner(st) != "" {
			owned++
			continue
		}
		judged++
		judgeErrorCode(r, f, rev, st, code)
	}
	if judged == 0 && len(f.Evidence) == 0 {
		if owned > 0 {
			f.Pass("no error beyond the %d whose code another check prescribes", owned)
			return
		}
		f.Pass("the server sent no error to a request of %s", rev)
		return
	}
	f.Pass("%d error codes, each one JSON-RPC or %s defines, or the server's own outside the reserved range", judged, rev)
}

// judgeErrorCode records what is wrong with one error code.
func judgeErrorCode(r *Capture, f *Finding, rev string, st probe.Step, code int64) {
	frames := Seqs(st.Request, st.Response)
	what := fmt.Sprintf("%s got error %d", describeStepName(st), code)
	if name, retired := protocol.RetiredErrorCode(rev, code); retired {
		f.Fail(frames, "%s (%s), a code of an earlier revision that %s forbids: expected a code this revision defines", what, name, rev)
		return
	}
	name, defined := protocol.DefinesErrorCode(rev, code)
	switch {
	case code >= protocol.CodeMCPFirst && code <= protocol.CodeMCPLast && !defined:
		f.Fail(frames, "%s, in the range -32099…-32020 that only the specification allocates, which defines no such code in %s", what, rev)
	case code == protocol.CodeHeaderMismatch && r.Transport != protocol.TransportHTTP:
		f.Fail(frames, "%s (%s) over %s, which has no headers to mismatch: expected a code meant for the fault", what, name, r.Transport)
	case code >= protocol.CodeLegacyFirst && code <= protocol.CodeLegacyLast:
		f.Warn(frames, "%s, in the legacy range -32019…-32000 that new implementations should not use: expected a code of JSON-RPC, of %s, or one of the server's own outside -32768…-32000", what, rev)
	case code >= protocol.CodeReservedFirst && code < protocol.CodeMCPFirst && !protocol.JSONRPCErrorCode(code):
		f.Warn(frames, "%s, in JSON-RPC's reserved range -32768…-32100 but none of its codes: expected a code of the server's own outside -32768…-32000", what)
	}
}
