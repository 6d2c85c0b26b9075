package checks

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpwatch/mcpwatch/checks/mcpschema"
	"github.com/mcpwatch/mcpwatch/jsondoc"
	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

const (
	specDiscover   = "https://modelcontextprotocol.io/specification/2026-07-28/server/discover"
	specVersioning = "https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning"
	specMeta       = "https://modelcontextprotocol.io/specification/2026-07-28/basic#_meta"
	specErrorCodes = "https://modelcontextprotocol.io/specification/2026-07-28/basic#error-codes"
)

// statelessChecks judge what the stateless revision (2026-07-28) adds: server/discover, the
// answers to an unsupported revision and to a request without _meta, and what every result
// must carry.
func statelessChecks(schemas *mcpschema.Validator) []Check {
	return []Check{
		{ID: "discover.result", Area: "discover", Rule: "C'", Spec: specDiscover,
			Title: "server/discover returns a DiscoverResult (supportedVersions, capabilities, resultType, ttlMs, cacheScope)",
			Evaluate: func(r *Capture, f *Finding) {
				checkDiscoverResult(r, f, schemas)
			}},
		{ID: "discover.unsupported-version", Area: "discover", Rule: "C'", Spec: specVersioning,
			Title:    "a request naming an unsupported revision gets error -32022 with data.supported",
			Evaluate: checkUnsupportedVersion},
		{ID: "discover.meta-required", Area: "discover", Rule: "C'", Spec: specMeta,
			Title:    "a request without the required _meta keys gets error -32602",
			Evaluate: checkMetaRequired},
		{ID: "results.result-type", Area: "results", Rule: "A9", Spec: specErrorCodes,
			Title:    "every result carries resultType complete or input_required",
			Evaluate: checkResultType},
		{ID: "results.cache-hints", Area: "results", Rule: "C'", Spec: specDiscover,
			Title:    "list and resources/read results carry ttlMs and cacheScope, one scope across the pages of a listing",
			Evaluate: checkCacheHints},
		statelessHeadersCheck(),
	}
}

// skipUnderStateless skips a check whose rule the stateless revision removed.
func skipUnderStateless(r *Capture, f *Finding, what string) bool {
	if !r.Stateless() {
		return false
	}
	f.Skip("%s does not exist under %s (stateless: no initialize, no session)", what, r.Revision())
	return true
}

// needsStateless skips a check of the stateless revision on a session-era run, saying what
// era detection saw when it asked.
func needsStateless(r *Capture, f *Finding) bool {
	if r.Stateless() {
		return true
	}
	// Some fifteen checks skip with this reason on every session-era run: it is worked out
	// once per capture.
	r.sessionEraOnce.Do(func() { r.sessionEra = sessionEraReason(r) })
	f.skipReason = r.sessionEra
	return false
}

// sessionEraReason is why a check of the stateless revision does not apply to a session-era
// run.
func sessionEraReason(r *Capture) string {
	rev := r.Revision()
	if st, ok := r.FirstStep(probe.StepDiscover); ok {
		return fmt.Sprintf("the server speaks %s, a revision with sessions (server/discover got %s)", rev, describeAnswer(r, st))
	}
	return fmt.Sprintf("the probe spoke %s, a revision with sessions: this rule exists from %s on", rev, protocol.Revision20260728)
}

// discoverFailedReason is the skip reason of checks that need the DiscoverResult.
func discoverFailedReason(r *Capture) string {
	st, ok := r.FirstStep(probe.StepDiscover)
	if !ok {
		if r.Err != "" {
			return "server/discover was never sent: " + Clip([]byte(r.Err))
		}
		return "server/discover was never sent"
	}
	return "server/discover did not succeed (" + describeAnswer(r, st) + ")"
}

func checkDiscoverResult(r *Capture, f *Finding, schemas *mcpschema.Validator) {
	if !needsStateless(r, f) {
		return
	}
	st, ok := r.FirstStep(probe.StepDiscover)
	if !ok {
		f.Untested("%s", discoverFailedReason(r))
		return
	}
	frames := Seqs(st.Request, st.Response)
	if st.Outcome != probe.OutcomeOK {
		f.Fail(frames, "expected a DiscoverResult, got %s", describeAnswer(r, st))
		return
	}
	if interimResult(st.Result) {
		f.Skip("server/discover answered resultType input_required, which results.input-required judges")
		return
	}
	members, ok := objectMembers(st.Result)
	if !ok {
		f.Fail(frames, "expected a DiscoverResult object, got a JSON %s %s", jsonType(st.Result), clipJSON(st.Result))
		return
	}
	rev := r.Revision()
	if requireType(f, frames, "supportedVersions", members["supportedVersions"], "array") {
		var versions []string
		if json.Unmarshal(members["supportedVersions"], &versions) != nil {
			f.Fail(frames, "expected supportedVersions to be an array of strings, got %s", clipJSON(members["supportedVersions"]))
		} else if !slices.Contains(versions, r.Requested) {
			f.Fail(frames, "asked in %s, expected supportedVersions to list it (else the answer is -32022), got %s",
				r.Requested, clipJSON(members["supportedVersions"]))
		}
	}
	requireType(f, frames, "capabilities", members["capabilities"], "object")
	judgeResultType(f, frames, "the DiscoverResult", members)
	judgeCacheHints(f, frames, "the DiscoverResult", members)
	if len(f.Evidence) == 0 {
		err := schemas.Validate(rev, "DiscoverResult", st.Result)
		switch {
		case err == nil:
		case isSchemaGap(err):
			// The probe's own limits, not the server's fault: the members were judged above.
		default:
			f.Fail(frames, "expected a DiscoverResult of %s, got one that does not match: %s", rev, Clip([]byte(err.Error())))
		}
	}
	if !hasServerInfo(members) {
		f.Warn(frames, "expected _meta.%s (name and version) in the DiscoverResult, got none", protocol.MetaServerInfo)
	}
	f.Pass("a valid DiscoverResult of %s listing %s", rev, clipJSON(members["supportedVersions"]))
}

// hasServerInfo reports whether a result's _meta names the server (name and version strings).
func hasServerInfo(members map[string]json.RawMessage) bool {
	meta, _ := objectMembers(members["_meta"])
	info, ok := objectMembers(meta[protocol.MetaServerInfo])
	if !ok {
		return false
	}
	_, named := jsondoc.Str(info["name"])
	_, versioned := jsondoc.Str(info["version"])
	return named && versioned
}

func checkUnsupportedVersion(r *Capture, f *Finding) {
	if !needsStateless(r, f) {
		return
	}
	st, ok := r.FirstStep(probe.StepDiscoverUnsupported)
	if !ok {
		f.notJudged(stoppedHere(r), "the negotiation connection sent no server/discover (%s)", probeStopped(r))
		return
	}
	frames := Seqs(st.Request, st.Response)
	m := exchangeAnswer(r, st)
	offered := fmt.Sprintf("named %s in _meta", protocol.BogusStatelessRevision)
	if m == nil || m.Kind != ErrorResponse {
		f.Fail(frames, "%s, expected error -32022 with data.supported, got %s", offered, describeAnswer(r, st))
		return
	}
	if code, ok := errorCode(m); !ok || code != protocol.CodeUnsupportedProtocolVersion {
		f.Fail(frames, "%s, expected error -32022 with data.supported, got %s", offered, describeError(m))
		return
	}
	e, _ := objectMembers(m.Error)
	data, ok := objectMembers(e["data"])
	switch {
	case !ok:
		f.Fail(frames, "%s, expected error -32022 with data {supported, requested}, got data %s", offered, clipOrNone(e["data"]))
	case jsonType(data["supported"]) != "array":
		f.Fail(frames, "%s, expected data.supported to list the revisions the server supports, got %s", offered, clipOrNone(data["supported"]))
	default:
		if _, isString := jsondoc.Str(data["requested"]); !isString {
			f.Fail(frames, "%s, expected data.requested to name the revision asked for, got %s", offered, clipOrNone(data["requested"]))
		}
	}
	if isHTTPish(r) && st.HTTPStatus != 400 {
		f.Fail(frames, "%s, expected HTTP status 400 with the -32022 error, got HTTP %d", offered, st.HTTPStatus)
	}
	f.Pass("%s: -32022 with data.supported %s", offered, clipJSON(data["supported"]))
}

// isHTTPish reports whether the run spoke an HTTP transport (where the stateless revision
// prescribes statuses too).
func isHTTPish(r *Capture) bool { return r.Transport == protocol.TransportHTTP }

// metaProbe is one request of discover.meta-required: a _meta lacking something.
type metaProbe struct {
	step string
	what string
	// unnamed: the request names no revision in _meta, which over stdio is all that marks a
	// request as a stateless one.
	unnamed bool
}

var metaProbes = []metaProbe{
	{probe.StepMetaNoClientCapabilities, "a request whose _meta lacks only " + protocol.MetaClientCapabilities, false},
	{probe.StepMetaNoProtocolVersion, "a request whose _meta lacks only " + protocol.MetaProtocolVersion, true},
	{probe.StepMetaMissing, "a request without _meta", true},
}

// checkMetaRequired judges the requests the negotiation connection sent with a _meta lacking
// a key. 2026-07-28 basic/index, "_meta", per-request protocol fields: protocolVersion and
// clientCapabilities are required, and "A request missing any required field is malformed;
// the server MUST reject it with JSON-RPC error code -32602 (Invalid params). On HTTP, the
// response status MUST be 400 Bad Request." Over HTTP, a _meta without protocolVersion
// also leaves MCP-Protocol-Version unmatched, for which basic/transports/streamable-http,
// "Server Validation", prescribes 400 with -32020 (HeaderMismatch): either code is right
// there. clientInfo is optional ("Required: No"; "Clients SHOULD include
// io.modelcontextprotocol/clientInfo on every request unless specifically configured not to
// do so"): a request without it is well formed and is to be served; refusing it breaks no
// MUST, so a refusal is a warning.
func checkMetaRequired(r *Capture, f *Finding) {
	if !needsStateless(r, f) {
		return
	}
	era := sessionEraOf(r)
	judged, legacyRead := 0, 0
	for _, p := range metaProbes {
		st, ok := stepOn(r, probe.ConnNegotiation, p.step)
		if !ok {
			continue
		}
		judged++
		if judgeMetaRefusal(r, f, p, st, era) {
			legacyRead++
		}
	}
	if st, ok := stepOn(r, probe.ConnNegotiation, probe.StepMetaNoClientInfo); ok {
		judged++
		if st.Outcome != probe.OutcomeOK {
			f.Warn(Seqs(st.Request, st.Response), "a request whose _meta lacks only the optional %s: expected it served, got %s",
				protocol.MetaClientInfo, describeAnswer(r, st))
		}
	}
	if judged == 0 {
		f.notJudged(stoppedHere(r), "the negotiation connection sent no request with an incomplete _meta (%s)", probeStopped(r))
		return
	}
	if legacyRead > 0 {
		f.Pass("every request lacking a required _meta key was refused (%d naming no revision as a session-era request, which the server also speaks); one without clientInfo was served", legacyRead)
		return
	}
	f.Pass("every request lacking a required _meta key was refused as the revision asks; one without clientInfo was served")
}

// judgeMetaRefusal judges the answer to one request whose _meta lacks a required key; it
// reports whether the server refused it the way a session-era server may.
func judgeMetaRefusal(r *Capture, f *Finding, p metaProbe, st probe.Step, era serverEra) (legacyRead bool) {
	frames := Seqs(st.Request, st.Response)
	m := exchangeAnswer(r, st)
	if m != nil && m.Kind == ErrorResponse {
		code, _ := errorCode(m)
		accepted := code == protocol.CodeInvalidParams || isHTTPish(r) && p.unnamed && code == protocol.CodeHeaderMismatch
		if accepted {
			if isHTTPish(r) && st.HTTPStatus != 400 {
				f.Fail(frames, "%s got %d, expected it with HTTP status 400, got HTTP %d", p.what, code, st.HTTPStatus)
			}
			return false
		}
	}
	expected := "error -32602"
	if isHTTPish(r) && p.unnamed {
		expected = "error -32602 (or -32020) with HTTP 400"
	} else if isHTTPish(r) {
		expected = "error -32602 with HTTP 400"
	}
	if !p.unnamed || r.Transport != protocol.TransportStdio {
		f.Fail(frames, "%s: expected %s, got %s", p.what, expected, describeAnswer(r, st))
		return false
	}
	// Over stdio nothing but _meta's protocolVersion names the revision of a request. A
	// server that also speaks session revisions may read one that names none as a session-era
	// request sent before initialize (2026-07-28 basic/versioning: "A request carrying modern
	// per-request _meta is served statelessly according to this revision"), to which
	// "legacy servers respond ... with implementation-defined errors (commonly -32601 or
	// -32602) or not at all" (basic/transports/stdio, "Backward Compatibility"). Serving it
	// as a stateless request without the key is wrong either way.
	served := st.Outcome == probe.OutcomeOK
	switch {
	case era == eraDual && !served:
		return true
	case era == eraDual:
		f.Fail(frames, "%s: expected error -32602 (or, read as a session-era request, any error), got %s", p.what, describeAnswer(r, st))
	case era == eraStatelessOnly:
		f.Fail(frames, "%s: expected %s, got %s (the server speaks no session revision that could read it otherwise)", p.what, expected, describeAnswer(r, st))
	default:
		f.Warn(frames, "%s: expected %s, got %s (whether the server also speaks a session revision, which may read it as one, is unknown)",
			p.what, expected, describeAnswer(r, st))
	}
	return false
}

// serverEra is what the probe knows of the eras a stateless server speaks.
type serverEra int

const (
	eraUnknown       serverEra = iota
	eraDual                    // it also speaks a session revision
	eraStatelessOnly           // it refused initialize
)

// sessionEraOf says whether a stateless server also speaks a session revision: its
// DiscoverResult lists one, or the era probe's initialize (on a connection of its own,
// probe.ConnSessionEra) was answered with one; a JSON-RPC error to it says it does not.
func sessionEraOf(r *Capture) serverEra {
	if alsoSpeaksSessionRevisions(r) {
		return eraDual
	}
	st, ok := stepOn(r, probe.ConnSessionEra, probe.StepEraInitialize)
	switch {
	case !ok:
		return eraUnknown
	case st.Outcome == probe.OutcomeOK && protocol.KnownSessionRevision(answeredRevision(st.Result)):
		return eraDual
	case st.Outcome == probe.OutcomeError:
		return eraStatelessOnly
	}
	return eraUnknown
}

// alsoSpeaksSessionRevisions reports whether the DiscoverResult lists a session revision.
func alsoSpeaksSessionRevisions(r *Capture) bool {
	_, versions := supportedVersions(r)
	return slices.ContainsFunc(versions, protocol.KnownSessionRevision)
}

// supportedVersions is the supportedVersions member of the DiscoverResult, raw (nil when
// there is none) and as the strings it lists (none when it is not an array of strings).
func supportedVersions(r *Capture) (raw json.RawMessage, versions []string) {
	members, _ := objectMembers(r.Discover)
	raw = members["supportedVersions"]
	_ = json.Unmarshal(raw, &versions)
	return raw, versions
}

// statelessRequest reports whether the probe sent a step's request under a stateless
// revision: its _meta names one. Only such requests owe a stateless result.
func statelessRequest(r *Capture, st probe.Step) bool {
	m := r.Message(st.Request)
	if m == nil || m.Kind != Request {
		return false
	}
	params, _ := objectMembers(m.Params)
	meta, _ := objectMembers(params["_meta"])
	v, ok := jsondoc.Str(meta[protocol.MetaProtocolVersion])
	return ok && protocol.Stateless(v)
}

// resultTypes are the values of resultType (2026-07-28 basic, ResultType); any other is invalid.
var resultTypes = []string{"complete", "input_required"}

// judgeResultType records a missing or unknown resultType of a result.
func judgeResultType(f *Finding, frames []int, what string, members map[string]json.RawMessage) {
	raw, present := members["resultType"]
	v, isString := jsondoc.Str(raw)
	switch {
	case !present:
		f.Fail(frames, "%s: expected resultType %s, got none", what, strings.Join(resultTypes, " or "))
	case !isString || !slices.Contains(resultTypes, v):
		f.Fail(frames, "%s: expected resultType %s, got %s", what, strings.Join(resultTypes, " or "), clipJSON(raw))
	}
}

// judgeCacheHints records a missing or invalid ttlMs or cacheScope of a cacheable result.
func judgeCacheHints(f *Finding, frames []int, what string, members map[string]json.RawMessage) {
	ttl, present := members["ttlMs"]
	if n, ok := jsondoc.Int64(ttl); !present || !ok || n < 0 {
		f.Fail(frames, "%s: expected ttlMs (an integer >= 0), got %s", what, clipOrNone(ttl))
	}
	scope, present := members["cacheScope"]
	if v, ok := jsondoc.Str(scope); !present || !ok || (v != "public" && v != "private") {
		f.Fail(frames, "%s: expected cacheScope public or private, got %s", what, clipOrNone(scope))
	}
}

// describeStepName names a step for a message: its method, and its page when it has one.
func describeStepName(st probe.Step) string {
	if st.Page > 1 {
		return fmt.Sprintf("%s (page %d)", st.Method, st.Page)
	}
	return st.Method
}

func checkResultType(r *Capture, f *Finding) {
	if !needsStateless(r, f) {
		return
	}
	n := 0
	for _, st := range r.Steps {
		// A result to a removed method is stateless.removed-methods' fault, not this one's.
		if st.Outcome != probe.OutcomeOK || !statelessRequest(r, st) || st.Conn == probe.ConnStatelessRemoved {
			continue
		}
		n++
		members, ok := objectMembers(st.Result)
		if !ok {
			f.Fail(Seqs(st.Response), "%s: expected a result object with resultType, got a JSON %s", describeStepName(st), jsonType(st.Result))
			continue
		}
		judgeResultType(f, Seqs(st.Response), describeStepName(st), members)
	}
	if n == 0 && len(f.Evidence) == 0 {
		f.Untested("no stateless request got a result (%s)", discoverFailedReason(r))
		return
	}
	f.Pass("%d results, each with resultType complete or input_required", n)
}

// cacheableMethods are the list (and read) methods whose results must carry cache hints.
// server/discover is cacheable too; discover.result judges its hints with the rest of it.
var cacheableMethods = []string{"tools/list", "resources/list", "resources/templates/list", "prompts/list", "resources/read"}

// checkCacheHints judges the cache hints of every complete result of a cacheable method
// (2026-07-28 server/utilities/caching, "Cacheable Results": "Servers MUST include caching
// hints on results with resultType: "complete""; "Servers MUST provide a ttlMs value that is
// >= 0"), and that the pages of one listing share their scope ("Interaction with
// Pagination": "Servers MUST apply the same cacheScope to all response pages for a given
// list request"). An input_required result is no cacheable result ("Interim results ...
// carry no caching hints"): results.input-required judges whether it may come at all.
func checkCacheHints(r *Capture, f *Finding) {
	if !needsStateless(r, f) {
		return
	}
	n, reads, interim := 0, 0, 0
	// first is the scope of page 1 of the listing each connection and step is in.
	type listing struct {
		conn int
		step string
	}
	first := map[listing]scopeOfPage{}
	for _, st := range r.Steps {
		if st.Outcome != probe.OutcomeOK || !slices.Contains(cacheableMethods, st.Method) || !statelessRequest(r, st) {
			continue
		}
		if interimResult(st.Result) {
			interim++
			continue
		}
		n++
		if st.Method == "resources/read" {
			reads++
		}
		members, ok := objectMembers(st.Result)
		if !ok {
			f.Fail(Seqs(st.Response), "%s: expected a result object with ttlMs and cacheScope, got a JSON %s", describeStepName(st), jsonType(st.Result))
			continue
		}
		judgeCacheHints(f, Seqs(st.Response), describeStepName(st), members)
		if st.Method == "resources/read" {
			continue
		}
		key := listing{st.Conn, st.Name}
		scope, _ := jsondoc.Str(members["cacheScope"])
		if st.Page <= 1 {
			first[key] = scopeOfPage{scope: scope, seq: st.Response}
			continue
		}
		if p1, ok := first[key]; ok && validScope(p1.scope) && validScope(scope) && scope != p1.scope {
			f.Fail(Seqs(p1.seq, st.Response), "%s: expected the cacheScope of page 1 (%s) on every page of the listing, got %s",
				describeStepName(st), p1.scope, scope)
		}
	}
	if n == 0 && len(f.Evidence) == 0 {
		if interim > 0 {
			f.Pass("no complete result of a cacheable method; %d input_required results carry no hints, as the revision says", interim)
			return
		}
		f.notJudged(sentAny(r, cacheableMethods) || r.Err != "", "no list method got a result (the server declares none of tools, resources and prompts, or they failed)")
		return
	}
	f.Pass("%d list results and %d resources/read results, each with ttlMs and cacheScope, one scope across the pages of each listing", n-reads, reads)
}

// scopeOfPage is the cacheScope of a listing's first page and the frame that says it.
type scopeOfPage struct {
	scope string
	seq   int
}

func validScope(s string) bool { return s == "public" || s == "private" }

// isSchemaGap reports whether a schema error is the probe's own limit (no schema for the
// revision or definition) rather than the document's fault.
func isSchemaGap(err error) bool {
	return errors.Is(err, mcpschema.ErrUnknownRevision) || errors.Is(err, mcpschema.ErrUnknownDefinition)
}

// answeredRevision is the protocolVersion an initialize result names ("" when none).
func answeredRevision(result json.RawMessage) string {
	var ir struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = json.Unmarshal(result, &ir)
	return ir.ProtocolVersion
}
