package checks

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/mcpwatch/mcpwatch/checks/mcpschema"
	"github.com/mcpwatch/mcpwatch/jsondoc"
	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

const (
	lifecycleSpec = "https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle"
)

func lifecycleChecks(schemas *mcpschema.Validator) []Check {
	return []Check{
		{ID: "lifecycle.initialize", Area: "lifecycle", Rule: "C1, C2", Spec: lifecycleSpec + "#initialization",
			Title:    "initialize gets a successful result within the timeout",
			Evaluate: checkInitialize},
		{ID: "lifecycle.initialize-result", Area: "lifecycle", Rule: "C2", Spec: lifecycleSpec + "#initialization",
			Title: "the initialize result is an InitializeResult of the negotiated revision",
			Evaluate: func(r *Capture, f *Finding) {
				checkInitializeResult(r, f, schemas)
			}},
		{ID: "lifecycle.version-negotiation", Area: "lifecycle", Rule: "C3", Spec: lifecycleSpec + "#version-negotiation",
			Title:    "the server answers a known revision, also when offered one it cannot support",
			Evaluate: checkVersionNegotiation},
		{ID: "lifecycle.ping", Area: "lifecycle", Rule: "C6",
			Spec:     "https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/ping",
			Title:    "ping returns an empty result",
			Evaluate: checkPing},
		{ID: "lifecycle.unknown-method", Area: "lifecycle", Rule: "B",
			Spec:     "https://modelcontextprotocol.io/specification/2025-11-25/basic#responses",
			Title:    "an unknown method gets error -32601",
			Evaluate: checkUnknownMethod},
		{ID: "lifecycle.capabilities", Area: "lifecycle", Rule: "C5, E5", Spec: lifecycleSpec + "#capability-negotiation",
			Title:    "declared capabilities work, undeclared ones are not served, list_changed only when declared",
			Evaluate: checkCapabilities},
		{ID: "lifecycle.early-messages", Area: "lifecycle", Rule: "C4", Spec: lifecycleSpec + "#initialization",
			Title:    "no server request but ping before the client's initialized notification",
			Evaluate: checkEarlyMessages},
	}
}

// initializeStep is the main connection's initialize, or why it is not there.
func initializeStep(r *Capture) (probe.Step, bool) {
	return r.FirstStep(probe.StepInitialize)
}

// initializeFailedReason is the skip reason of checks that need a successful initialize.
func initializeFailedReason(r *Capture) string {
	st, ok := initializeStep(r)
	if !ok {
		if r.Err != "" {
			return "initialize was never sent: " + Clip([]byte(r.Err))
		}
		return "initialize was never sent"
	}
	return "initialize did not succeed (" + describeAnswer(r, st) + ")"
}

func checkInitialize(r *Capture, f *Finding) {
	if skipUnderStateless(r, f, "initialize") {
		return
	}
	st, ok := initializeStep(r)
	if !ok {
		f.Untested("%s", initializeFailedReason(r))
		return
	}
	if st.Outcome == probe.OutcomeOK {
		f.Pass("answered in %s", st.Latency.Round(time.Microsecond))
		return
	}
	if st.HTTPStatus == http.StatusForbidden {
		// A 403 is as often a guard against DNS rebinding that serves only some Host names
		// (often just "localhost") as a want of rights.
		f.Fail(Seqs(st.Request, st.Response), "expected an initialize result, got %s: the server refused the request: it needs credentials (%s), or it serves only some Host names (try the URL with the host name it allows, such as localhost)", describeAnswer(r, st), credentialsHint)
		return
	}
	if credentialsStatus(st.HTTPStatus) {
		// The probe could not get in: the server is not wrong, but nothing was judged; the
		// gate still fails, as it does for a server that cannot be reached.
		f.Fail(Seqs(st.Request, st.Response), "expected an initialize result, got %s: the server needs credentials; %s", describeAnswer(r, st), credentialsHint)
		return
	}
	f.Fail(Seqs(st.Request, st.Response), "expected an initialize result, got %s", describeAnswer(r, st))
}

func checkInitializeResult(r *Capture, f *Finding, schemas *mcpschema.Validator) {
	if skipUnderStateless(r, f, "initialize") {
		return
	}
	st, ok := initializeStep(r)
	if !ok || st.Outcome != probe.OutcomeOK {
		f.Untested("%s", initializeFailedReason(r))
		return
	}
	frames := Seqs(st.Response)
	raw := st.Result
	ir, ok := objectMembers(raw)
	if !ok {
		f.Fail(frames, "expected an InitializeResult object, got a JSON %s %s", jsonType(raw), clipJSON(raw))
		return
	}
	requireType(f, frames, "protocolVersion", ir["protocolVersion"], "string")
	requireType(f, frames, "capabilities", ir["capabilities"], "object")
	if requireType(f, frames, "serverInfo", ir["serverInfo"], "object") {
		impl, _ := objectMembers(ir["serverInfo"])
		requireType(f, frames, "serverInfo.name", impl["name"], "string")
		requireType(f, frames, "serverInfo.version", impl["version"], "string")
	}
	if in, ok := ir["instructions"]; ok && r.Revision() >= protocol.Revision20250326 && jsonType(in) != "string" {
		f.Fail(frames, "expected instructions to be a string, got a JSON %s %s", jsonType(in), clipJSON(in))
	}
	if len(f.Evidence) > 0 {
		return // the schema would only repeat what is already said
	}
	rev := r.Revision()
	err := schemas.Validate(rev, "InitializeResult", raw)
	switch {
	case errors.Is(err, mcpschema.ErrUnknownRevision) || errors.Is(err, mcpschema.ErrUnknownDefinition):
		// The probe's own limits, not the server's fault: judge by the members read above.
		f.Pass("protocolVersion, capabilities and serverInfo are present (no schema for %s)", rev)
	case err != nil:
		f.Fail(frames, "expected an InitializeResult of %s, got one that does not match: %s", rev, Clip([]byte(err.Error())))
	default:
		f.Pass("a valid InitializeResult of %s", rev)
	}
}

// requireType fails f unless a member is present with the JSON type want.
func requireType(f *Finding, frames []int, member string, raw json.RawMessage, want string) bool {
	switch got := jsonType(raw); {
	case raw == nil:
		f.Fail(frames, "expected %s (%s), got none", member, article(want))
	case got != want:
		f.Fail(frames, "expected %s to be %s, got a JSON %s %s", member, article(want), got, clipJSON(raw))
	default:
		return true
	}
	return false
}

// protocolVersionOf reads protocolVersion from an initialize result.
func protocolVersionOf(result json.RawMessage) (json.RawMessage, string, bool) {
	ir, _ := objectMembers(result)
	v, ok := jsondoc.Str(ir["protocolVersion"])
	return ir["protocolVersion"], v, ok
}

func checkVersionNegotiation(r *Capture, f *Finding) {
	if skipUnderStateless(r, f, "version negotiation in initialize") {
		return
	}
	st, ok := initializeStep(r)
	if !ok || st.Outcome != probe.OutcomeOK {
		f.Untested("%s", initializeFailedReason(r))
		return
	}
	raw, v, isString := protocolVersionOf(st.Result)
	switch {
	case !isString:
		f.Fail(Seqs(st.Request, st.Response), "offered %s, expected a known revision in answer, got protocolVersion %s", r.Requested, clipOrNone(raw))
	case !protocol.KnownSessionRevision(v):
		f.Fail(Seqs(st.Request, st.Response), "offered %s, expected a known revision (%s) in answer, got %s",
			r.Requested, strings.Join(protocol.SessionRevisions(), ", "), Clip([]byte(v)))
	}

	bogus, sent := r.FirstStep(probe.StepInitializeBogus)
	if !sent {
		switch {
		case len(f.Evidence) > 0:
		case r.RulesElsewhere != "":
			f.Skip("initialize with a bogus revision was not sent here: %s", r.RulesElsewhere)
		default:
			f.Untested("the negotiation connection sent no initialize (it could not be opened)")
		}
		return
	}
	frames := Seqs(bogus.Request, bogus.Response)
	if bogus.Outcome != probe.OutcomeOK {
		f.Fail(frames, "offered %s, expected a result naming a revision the server supports, got %s", protocol.BogusRevision, describeAnswer(r, bogus))
		return
	}
	braw, bv, isString := protocolVersionOf(bogus.Result)
	switch {
	case !isString:
		f.Fail(frames, "offered %s, expected a result naming a revision the server supports, got protocolVersion %s", protocol.BogusRevision, clipOrNone(braw))
	case bv == protocol.BogusRevision:
		f.Fail(frames, "offered %s, expected a revision the server supports, got the bogus revision echoed", protocol.BogusRevision)
	case !protocol.KnownSessionRevision(bv):
		f.Fail(frames, "offered %s, expected a known revision (%s), got %s", protocol.BogusRevision, strings.Join(protocol.SessionRevisions(), ", "), Clip([]byte(bv)))
	default:
		f.Pass("offered %s, got %s; offered %s, got %s", r.Requested, v, protocol.BogusRevision, bv)
	}
}

func clipOrNone(raw json.RawMessage) string {
	if raw == nil {
		return "missing"
	}
	return clipJSON(raw)
}

// sentAfterInitialize finds a step the probe sends only once initialize succeeded; the
// skip reason says why it is missing.
func sentAfterInitialize(r *Capture, name string, f *Finding) (probe.Step, bool) {
	st, ok := r.FirstStep(name)
	if ok {
		return st, true
	}
	if r.Stateless() {
		if r.Discover == nil {
			f.Untested("%s was not sent: %s", name, discoverFailedReason(r))
		} else {
			f.notJudged(stoppedHere(r), "%s was not sent: %s", name, probeStopped(r))
		}
		return probe.Step{}, false
	}
	if initStep, ok := initializeStep(r); !ok || initStep.Outcome != probe.OutcomeOK {
		f.Untested("%s was not sent: %s", name, initializeFailedReason(r))
	} else {
		f.notJudged(stoppedHere(r), "%s was not sent: %s", name, probeStopped(r))
	}
	return probe.Step{}, false
}

func checkPing(r *Capture, f *Finding) {
	if skipUnderStateless(r, f, "ping") {
		return
	}
	st, ok := sentAfterInitialize(r, probe.StepPing, f)
	if !ok {
		return
	}
	frames := Seqs(st.Request, st.Response)
	if st.Outcome != probe.OutcomeOK {
		f.Fail(frames, "expected an empty result {}, got %s", describeAnswer(r, st))
		return
	}
	if jsonType(st.Result) != "object" {
		f.Fail(frames, "expected an empty result {}, got a JSON %s %s", jsonType(st.Result), clipOrNone(st.Result))
		return
	}
	members, _ := objectMembers(st.Result)
	delete(members, "_meta")
	if len(members) > 0 {
		// The schema's EmptyResult admits extra members, but the rule (C6) is a MUST about an
		// empty result, and docs/checks.md fails anything else.
		f.Fail(frames, "expected an empty result {}, got %s", clipJSON(st.Result))
		return
	}
	f.Pass("empty result in %s", st.Latency.Round(time.Microsecond))
}

func checkUnknownMethod(r *Capture, f *Finding) {
	st, ok := sentAfterInitialize(r, probe.StepUnknownMethod, f)
	if !ok {
		return
	}
	frames := Seqs(st.Request, st.Response)
	if m := exchangeAnswer(r, st); m != nil && m.Kind == ErrorResponse {
		if code, ok := errorCode(m); ok && code == protocol.CodeMethodNotFound {
			f.Pass("%s got -32601", probe.UnknownMethod)
			return
		}
	}
	f.Fail(frames, "%s: expected error -32601, got %s", probe.UnknownMethod, describeAnswer(r, st))
}

// capabilityList is a list method the probe calls whatever the server declares, with the
// capability it belongs to.
type capabilityList struct {
	step, capability string
	// mustServe is false for the templates list: the spec ties it to the resources
	// capability without saying that a server with no templates must serve it, so its
	// failure is a warning only.
	mustServe bool
}

// listChangedCapability maps a list_changed notification to its capability.
func listChangedCapability(method string) (string, bool) {
	switch method {
	case "notifications/tools/list_changed":
		return "tools", true
	case "notifications/resources/list_changed":
		return "resources", true
	case "notifications/prompts/list_changed":
		return "prompts", true
	}
	return "", false
}

func checkCapabilities(r *Capture, f *Finding) {
	if r.Stateless() && r.Discover == nil {
		f.Untested("%s", discoverFailedReason(r))
		return
	}
	if initStep, ok := initializeStep(r); !r.Stateless() && (!ok || initStep.Outcome != probe.OutcomeOK) {
		f.Untested("%s", initializeFailedReason(r))
		return
	}
	lists := [...]capabilityList{
		{probe.StepToolsList, "tools", true},
		{probe.StepResourcesList, "resources", true},
		{probe.StepTemplatesList, "resources", false},
		{probe.StepPromptsList, "prompts", true},
	}
	judged := 0
	var emptyUndeclared []string
	for _, l := range lists {
		var first probe.Step
		failed, sent := false, false
		for _, st := range r.Steps {
			if st.Name != l.step {
				continue
			}
			if !sent {
				first, sent = st, true
			}
			if st.Outcome != probe.OutcomeOK {
				first, failed = st, true
				break
			}
		}
		if !sent {
			continue
		}
		judged++
		frames := Seqs(first.Request, first.Response)
		switch {
		case r.Declares(l.capability) && failed && l.mustServe:
			f.Fail(frames, "declares %s, expected %s to work, got %s", l.capability, l.step, describeAnswer(r, first))
		case r.Declares(l.capability) && failed:
			f.Warn(frames, "declares %s, expected %s to work, got %s", l.capability, l.step, describeAnswer(r, first))
		case !r.Declares(l.capability) && !failed && emptyListResult(first.Result):
			// An empty list offers nothing the declaration would have announced.
			emptyUndeclared = append(emptyUndeclared, l.step)
		case !r.Declares(l.capability) && !failed:
			f.Warn(frames, "does not declare %s, expected %s to fail with -32601, got %s", l.capability, l.step, describeAnswer(r, first))
		}
	}
	r.Inbound(func(fr probe.Frame, m *Message) {
		if fr.Conn != probe.ConnMain || m == nil || m.Kind != Notification {
			return
		}
		c, ok := listChangedCapability(m.Method)
		if !ok {
			return
		}
		declared, _ := r.Capability(c)
		capMembers, _ := objectMembers(declared)
		if string(capMembers["listChanged"]) != "true" {
			f.Warn(Seqs(fr.Seq), "sent %s, expected it only with capabilities.%s.listChanged true, got capabilities.%s %s",
				m.Method, c, c, clipOrNone(declared))
		}
	})
	if judged == 0 && len(f.Evidence) == 0 {
		f.notJudged(stoppedHere(r), "no list method was sent: %s", probeStopped(r))
		return
	}
	if len(emptyUndeclared) > 0 {
		f.Info("%s answered an empty list for a capability the server does not declare (no -32601, but nothing offered either)",
			strings.Join(emptyUndeclared, ", "))
	}
	f.Pass("the %d list methods the probe called match the declared capabilities", judged)
}

// emptyListResult reports whether a list result holds no item and no further page: its one
// array member (tools, resources, resourceTemplates, prompts) is empty and nextCursor absent.
func emptyListResult(result json.RawMessage) bool {
	members, ok := objectMembers(result)
	if !ok {
		return false
	}
	if _, more := members["nextCursor"]; more {
		return false
	}
	arrays := 0
	for _, key := range [...]string{"tools", "resources", "resourceTemplates", "prompts"} {
		v, ok := members[key]
		if !ok {
			continue
		}
		var items []json.RawMessage
		if json.Unmarshal(v, &items) != nil || len(items) > 0 {
			return false
		}
		arrays++
	}
	return arrays == 1
}

func checkEarlyMessages(r *Capture, f *Finding) {
	if skipUnderStateless(r, f, "the initialized notification") {
		return
	}
	negInitialized := -1
	if st, ok := stepOn(r, probe.ConnNegotiation, probe.StepRuleInitialized); ok {
		negInitialized = st.Request
	}
	r.Inbound(func(fr probe.Frame, m *Message) {
		if m == nil || m.Kind != Request || m.Method == "ping" {
			return
		}
		switch {
		case fr.Conn == probe.ConnNegotiation && (negInitialized < 0 || fr.Seq < negInitialized):
			// Before the initialized the connection sends once it carries the robustness
			// probes, every request on it is early.
			f.Warn(Seqs(fr.Seq), "expected no request but ping before initialized, got %s on the negotiation connection, before it sent initialized", Clip([]byte(m.Method)))
		case fr.Conn == probe.ConnMain && (r.InitializedAt < 0 || fr.Seq < r.InitializedAt):
			f.Warn(Seqs(fr.Seq, r.InitializedAt), "expected no request but ping before initialized, got %s", Clip([]byte(m.Method)))
		}
	})
	if len(f.Evidence) == 0 && r.InitializedAt < 0 {
		f.Untested("initialized was never sent: %s", initializeFailedReason(r))
		return
	}
	f.Pass("no server request before initialized")
}

// probeStopped says why the probe ended before a step, for skip reasons.
func probeStopped(r *Capture) string {
	if r.RulesElsewhere != "" {
		return r.RulesElsewhere
	}
	if r.Err != "" {
		return "the probe stopped early (" + Clip([]byte(r.Err)) + ")"
	}
	return "the probe stopped early"
}
