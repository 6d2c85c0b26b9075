package checks

import (
	"fmt"
	"strconv"

	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

const errorCodesSpec = jsonrpcErrorObject

// lifecycleRobustnessChecks judge what the server does with input it must refuse: both are
// probed on a connection of their own (on stdio a process of its own, since some servers
// exit on what they cannot parse), the request without a method first.
func lifecycleRobustnessChecks() []Check {
	return []Check{
		{ID: "lifecycle.parse-error", Area: "lifecycle", Rule: "A, B", Spec: errorCodesSpec,
			Title:    "malformed JSON gets error -32700, and the server goes on answering",
			Evaluate: checkParseError},
		{ID: "lifecycle.invalid-request", Area: "lifecycle", Rule: "A, B", Spec: errorCodesSpec,
			Title:    "a request without a method gets error -32600",
			Evaluate: checkInvalidRequest},
	}
}

// robustnessStep finds a step of the robustness probes: on the negotiation connection, which
// carries them when the server answered its bogus initialize, or on their own.
func robustnessStep(r *Capture, name string) (probe.Step, bool) {
	if st, ok := stepOn(r, probe.ConnNegotiation, name); ok {
		return st, true
	}
	return stepOn(r, probe.ConnRobustness, name)
}

func checkParseError(r *Capture, f *Finding) {
	st, ok := robustnessStep(r, probe.StepParseError)
	if !ok {
		f.notJudged(ruleUnsentHere(r, probe.ConnRobustness), "%s", ruleMissing(r, probe.ConnRobustness, "the malformed JSON"))
		return
	}
	got := refusal(r, f, st, protocol.CodeParseError, "malformed JSON")
	ping, sent := stepOn(r, st.Conn, probe.StepParseErrorPing)
	if sent && !answered(ping) {
		f.Warn(Seqs(st.Request, ping.Request, ping.Response),
			"after malformed JSON, expected the server to go on answering, got %s to the %s that followed", describeAnswer(r, ping), ping.Method)
	}
	f.Pass("malformed JSON got %s, and the server went on answering", got)
}

func checkInvalidRequest(r *Capture, f *Finding) {
	st, ok := robustnessStep(r, probe.StepInvalidRequest)
	if !ok {
		f.notJudged(ruleUnsentHere(r, probe.ConnRobustness), "%s", ruleMissing(r, probe.ConnRobustness, "the request without a method"))
		return
	}
	got := refusal(r, f, st, protocol.CodeInvalidRequest, "a request without a method")
	f.Pass("a request without a method got %s", got)
}

// refusal warns unless the answer to a message the server must refuse is the JSON-RPC error
// want, and says what the answer was.
//
// Over HTTP a 4xx is a refusal the rule allows whatever its body: the probe broke a client
// rule on purpose (a POST's body MUST be a single JSON-RPC message), and a server that cannot
// accept what it was sent MUST answer with an HTTP error status, whose body MAY be an id-less
// JSON-RPC error. On legacy HTTP+SSE the status is the POST's own: a 202 only says the
// message was taken, and its answer is the one that came on the event stream.
func refusal(r *Capture, f *Finding, st probe.Step, want int64, what string) string {
	frames := Seqs(st.Request, st.Response)
	m := exchangeAnswer(r, st)
	if status := requestStatus(r, st); status >= 400 && status <= 499 && r.Transport != protocol.TransportStdio {
		got := fmt.Sprintf("HTTP %d", status)
		if m != nil && m.Kind == ErrorResponse {
			got += " with " + describeError(m)
		}
		return got + " (the probe broke a client rule on purpose; an HTTP 4xx refuses it)"
	}
	switch {
	case m != nil && m.Kind == ErrorResponse:
		if code, ok := errorCode(m); ok && code == want {
			return describeError(m)
		}
		f.Warn(frames, "%s: expected error %d, got %s", what, want, httpNote(st, describeError(m)))
		return describeError(m)
	case m != nil:
		f.Warn(frames, "%s: expected error %d, got %s", what, want, httpNote(st, "a result "+clipJSON(m.Result)))
	case st.Outcome == probe.OutcomeNoAnswer && st.Response < 0:
		f.Warn(frames, "%s: expected error %d, got no answer (%s)", what, want, unansweredWhy(r, st))
	default:
		f.Warn(frames, "%s: expected error %d, got %s", what, want, describeAnswer(r, st))
	}
	return "no error"
}

// httpNote adds the HTTP status to what came back, when there was one other than 200.
func httpNote(st probe.Step, got string) string {
	if st.HTTPStatus != 0 && st.HTTPStatus != 200 {
		return got + " (HTTP " + strconv.Itoa(st.HTTPStatus) + ")"
	}
	return got
}

// fenceOf names the request the probe sends after each robustness message, whose answer
// bounds the wait for the message's own (ping, or server/discover under a stateless
// revision, which has no ping).
func fenceOf(step string) string {
	if step == probe.StepParseError {
		return probe.StepParseErrorPing
	}
	return probe.StepInvalidRequestPing
}

// unansweredWhy says how the probe knows nothing came back for a message without a usable
// id: the server answered the request sent after it, or time ran out.
func unansweredWhy(r *Capture, st probe.Step) string {
	if fence, ok := stepOn(r, st.Conn, fenceOf(st.Name)); ok && answered(fence) {
		return fmt.Sprintf("the server answered the %s sent after it, but not the message itself", fence.Method)
	}
	if p, ok := r.ProcessOf(st.Conn); ok && p.Exited && p.EndedBy == "exit" {
		return "the server process ended by itself: " + describeExit(p)
	}
	return "nothing within the timeout"
}
