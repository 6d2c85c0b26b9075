package checks

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

const (
	specCompletion = "https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/completion"
	specLogging    = "https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/logging"

	// metaLogLevel is the _meta key by which a 2026-07-28 request asks for log messages
	// (server/utilities/logging, "Per-request log level").
	metaLogLevel = "io.modelcontextprotocol/logLevel"
	// maxCompletionValues: "Maximum 100 items per response" (server/utilities/completion,
	// Completion Results).
	maxCompletionValues = 100
)

// utilityChecks judge completion/complete, logging/setLevel and the log messages a server
// sends.
func utilityChecks() []Check {
	return []Check{
		{ID: "completion.complete", Area: "completion", Rule: "C5", Spec: specCompletion + "#completion-results",
			Title:    "completion/complete of a listed argument returns completion.values (at most 100 strings); a server that does not declare completions does not serve it",
			Evaluate: checkCompletion},
		{ID: "logging.set-level", Area: "logging", Rule: "-", Spec: specLogging + "#setting-log-level",
			Title:    "logging/setLevel of a valid level returns an empty result; an invalid level gets -32602",
			Evaluate: checkSetLevel},
		{ID: "logging.messages", Area: "logging", Rule: "C5", Spec: specLogging + "#capabilities",
			Title:    "notifications/message only from a server that declares logging (2026-07-28: only on a request that asked for a log level)",
			Evaluate: checkLogMessages},
	}
}

func checkCompletion(r *Capture, f *Finding) {
	if r.Revision() == protocol.Revision20241105 {
		f.Skip("revision 2024-11-05 has no completions capability (it enters in 2025-03-26)")
		return
	}
	if _, handshake := r.Handshake(); handshake == probe.HandshakeNone {
		f.Untested("no initialize or discover result, so no declared capabilities to judge completion by")
		return
	}
	declared := r.Declares("completions")
	st, ok := stepOn(r, probe.ConnMain, probe.StepComplete)
	if !ok {
		switch {
		case !stoppedHere(r) || r.Err != "":
			f.notJudged(stoppedHere(r), "completion/complete was not sent: %s", probeStopped(r))
		case !declared:
			f.Skip("server declares no completions capability and lists no prompt argument or template variable to try")
		default:
			f.Skip("server declares completions but lists no prompt with an argument and no template with a variable to complete")
		}
		return
	}
	frames := Seqs(st.Request, st.Response)
	target := completionTarget(r, st)
	m := exchangeAnswer(r, st)
	if !declared {
		// "Servers that support completions MUST declare the completions capability"; the
		// catalogue makes serving it anyway a warning, as lifecycle.capabilities does for lists.
		if m != nil && m.Kind == ResultResponse {
			f.Warn(frames, "server declares no completions capability, yet completion/complete of %s returned a result %s", target, clipJSON(m.Result))
			return
		}
		f.Pass("server declares no completions capability, and completion/complete of %s got %s", target, describeAnswer(r, st))
		return
	}
	switch {
	case m != nil && m.Kind == ResultResponse:
		if problem := completionProblem(m.Result); problem != "" {
			f.Fail(frames, "completion/complete of %s: %s", target, problem)
			return
		}
		f.Pass("completion/complete of %s returned completion.values", target)
	case m != nil && m.Kind == ErrorResponse:
		if code, ok := errorCode(m); ok && code == protocol.CodeMethodNotFound {
			f.Fail(frames, "server declares completions, but completion/complete of %s got %s", target, describeError(m))
			return
		}
		f.Untested("completion/complete of %s got %s, so no completion result to judge (the spec's errors are for an invalid name or missing arguments; the probe named a listed one)", target, describeError(m))
	default:
		f.Untested("completion/complete of %s got %s", target, describeAnswer(r, st))
	}
}

// completionTarget names what a completion/complete step asked to complete.
func completionTarget(r *Capture, st probe.Step) string {
	var p struct {
		Ref struct {
			Type, Name, URI string
		} `json:"ref"`
		Argument struct {
			Name string `json:"name"`
		} `json:"argument"`
	}
	if m := r.Message(st.Request); m == nil || json.Unmarshal(m.Params, &p) != nil {
		return "an argument"
	}
	if p.Ref.Type == "ref/resource" {
		return fmt.Sprintf("variable %s of template %s", quoteName(p.Argument.Name), quoteName(p.Ref.URI))
	}
	return fmt.Sprintf("argument %s of prompt %s", quoteName(p.Argument.Name), quoteName(p.Ref.Name))
}

// completionProblem says what makes a result no CompleteResult ("" when it is one).
func completionProblem(result json.RawMessage) string {
	var res map[string]json.RawMessage
	if json.Unmarshal(result, &res) != nil {
		return "expected a CompleteResult object, got " + clipJSON(result)
	}
	var completion map[string]json.RawMessage
	if json.Unmarshal(res["completion"], &completion) != nil || completion == nil {
		return "expected a completion object, got " + clipJSON(result)
	}
	var values []json.RawMessage
	if raw, ok := completion["values"]; !ok || json.Unmarshal(raw, &values) != nil || values == nil {
		return "expected completion.values, an array of strings, got " + clipJSON(result)
	}
	if len(values) > maxCompletionValues {
		return fmt.Sprintf("completion.values holds %d values, more than the %d allowed", len(values), maxCompletionValues)
	}
	for i, v := range values {
		if jsonType(v) != "string" {
			return fmt.Sprintf("completion.values[%d] is %s, not a string", i, article(jsonType(v)))
		}
	}
	if t, ok := completion["total"]; ok && !isInteger(t) {
		return "completion.total is not an integer: " + clipJSON(t)
	}
	if h, ok := completion["hasMore"]; ok && jsonType(h) != "boolean" {
		return "completion.hasMore is not a boolean: " + clipJSON(h)
	}
	return ""
}

func isInteger(raw json.RawMessage) bool {
	var n json.Number
	if json.Unmarshal(raw, &n) != nil {
		return false
	}
	_, err := n.Int64()
	return err == nil
}

func checkSetLevel(r *Capture, f *Finding) {
	if r.Stateless() {
		f.Skip("logging/setLevel is removed in %s (stateless.removed-methods judges it)", r.Revision())
		return
	}
	switch _, handshake := r.Handshake(); {
	case handshake == probe.HandshakeNone:
		f.Untested("no initialize result, so no declared capabilities to judge logging by")
		return
	case !r.Declares("logging"):
		f.Skip("server declares no logging capability")
		return
	}
	st, ok := stepOn(r, probe.ConnMain, probe.StepSetLevel)
	if !ok {
		f.notJudged(stoppedHere(r), "logging/setLevel was not sent: %s", probeStopped(r))
		return
	}
	var passed []string
	for _, st := range append([]probe.Step{st}, stepsOn(r, probe.ConnMain, probe.StepSetLevelRestore)...) {
		level := requestedLevel(r, st)
		frames := Seqs(st.Request, st.Response)
		m := exchangeAnswer(r, st)
		if m == nil || m.Kind != ResultResponse {
			f.Fail(frames, "logging/setLevel of %s: expected an empty result {}, got %s", level, describeAnswer(r, st))
			continue
		}
		members, isObject := objectMembers(m.Result)
		delete(members, "_meta")
		if !isObject || len(members) > 0 {
			// As for ping: the schema's EmptyResult admits extra members, but the rule is an
			// empty result, and the catalogue fails anything else.
			f.Fail(frames, "logging/setLevel of %s: expected an empty result {}, got %s", level, clipJSON(m.Result))
			continue
		}
		passed = append(passed, level)
	}
	if inv, ok := stepOn(r, probe.ConnMain, probe.StepSetLevelInvalid); ok {
		level := requestedLevel(r, inv)
		frames := Seqs(inv.Request, inv.Response)
		m := exchangeAnswer(r, inv)
		switch {
		case m != nil && m.Kind == ErrorResponse:
			if code, ok := errorCode(m); ok && code == protocol.CodeInvalidParams {
				passed = append(passed, level+" (-32602)")
				break
			}
			f.Warn(frames, "logging/setLevel of the invalid level %s: expected error -32602, got %s", level, describeError(m))
		case m != nil && m.Kind == ResultResponse:
			f.Warn(frames, "logging/setLevel of the invalid level %s: expected error -32602, got a result %s", level, clipJSON(m.Result))
		default:
			f.Warn(frames, "logging/setLevel of the invalid level %s: expected error -32602, got %s", level, describeAnswer(r, inv))
		}
	}
	f.Pass("logging/setLevel of %s answered as the spec asks", strings.Join(passed, ", "))
}

// requestedLevel is the quoted level a logging/setLevel step sent.
func requestedLevel(r *Capture, st probe.Step) string {
	var p struct {
		Level string `json:"level"`
	}
	if m := r.Message(st.Request); m != nil && json.Unmarshal(m.Params, &p) == nil {
		return quoteName(p.Level)
	}
	return "a level"
}

func checkLogMessages(r *Capture, f *Finding) {
	_, handshake := r.Handshake()
	declared := r.Declares("logging")
	// Which requests asked for log messages is read from every request's params, for the
	// stateless rule only and only once a log message came.
	var asked *logRequests
	requests := func() *logRequests {
		if asked == nil {
			l := logLevelRequests(r)
			asked = &l
		}
		return asked
	}
	n := 0
	r.Inbound(func(fr probe.Frame, m *Message) {
		if m == nil || m.Kind != Notification || m.Method != "notifications/message" {
			return
		}
		n++
		switch {
		case handshake == probe.HandshakeNone:
		case !declared:
			// "Servers that emit log message notifications MUST declare the logging capability."
			f.Fail(Seqs(fr.Seq), "notifications/message from a server that declares no logging capability: %s", clipJSON(fr.Raw))
		case r.Stateless() && requests().stateless[fr.Conn] && !asked.askedFor(fr):
			// 2026-07-28: "The server MUST NOT emit notifications/message for a request that
			// does not include this field."
			f.Fail(Seqs(fr.Seq), "notifications/message on a request that asked for no log level (_meta %s): %s", metaLogLevel, clipJSON(fr.Raw))
		}
	})
	switch {
	case n == 0:
		f.Pass("no notifications/message came")
	case handshake == probe.HandshakeNone:
		f.Untested("%d notifications/message came, but no initialize or discover result says whether logging is declared", n)
	default:
		f.Pass("%d notifications/message from a server that declares logging", n)
	}
}

// logRequests says, per connection, whether it speaks the stateless revision, and which of
// its requests asked for log messages.
type logRequests struct {
	stateless map[int]bool
	// exchanges are the HTTP exchanges (conn, exchange) whose request carried a log level;
	// conns the connections on which any request did (stdio has no exchanges).
	exchanges map[[2]int]bool
	conns     map[int]bool
}

func logLevelRequests(r *Capture) logRequests {
	l := logRequests{stateless: map[int]bool{}, exchanges: map[[2]int]bool{}, conns: map[int]bool{}}
	for _, fr := range r.Frames {
		if fr.Dir != probe.Out || fr.Kind != probe.KindMessage {
			continue
		}
		m := r.Message(fr.Seq)
		if m == nil || m.Kind != Request {
			continue
		}
		var p struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		}
		if json.Unmarshal(m.Params, &p) != nil {
			continue
		}
		var version string
		if json.Unmarshal(p.Meta[protocol.MetaProtocolVersion], &version) == nil && protocol.Stateless(version) {
			l.stateless[fr.Conn] = true
		}
		if _, ok := p.Meta[metaLogLevel]; ok {
			l.conns[fr.Conn] = true
			if fr.Exchange != 0 {
				l.exchanges[[2]int{fr.Conn, fr.Exchange}] = true
			}
		}
	}
	return l
}

// askedFor reports whether the request a log message rides on asked for log messages: over
// HTTP the request of its exchange, on stdio any request of its connection.
func (l logRequests) askedFor(fr probe.Frame) bool {
	if fr.Exchange != 0 {
		return l.exchanges[[2]int{fr.Conn, fr.Exchange}]
	}
	return l.conns[fr.Conn]
}
