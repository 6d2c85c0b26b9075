package checks

import (
	"fmt"

	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// The rule probes run on connections of their own (probe.ConnSession and the like); these
// helpers find their evidence and say why it is missing.

// stepOn finds the first step with a name on a connection.
func stepOn(r *Capture, conn int, name string) (probe.Step, bool) {
	for _, s := range r.Steps {
		if s.Conn == conn && s.Name == name {
			return s, true
		}
	}
	return probe.Step{}, false
}

// stepsOn lists the steps with a name on a connection, in order.
func stepsOn(r *Capture, conn int, name string) []probe.Step {
	var out []probe.Step
	for _, s := range r.Steps {
		if s.Conn == conn && s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

// ruleMissing is the skip reason of a rule check whose probe left no evidence on its
// connection: its initialize failed, the connection could not be opened, or the probe did
// not get that far (what is what says what).
func ruleMissing(r *Capture, conn int, what string) string {
	if init, ok := stepOn(r, conn, probe.StepRuleInitialize); ok && init.Outcome != probe.OutcomeOK {
		return fmt.Sprintf("%s was not sent: initialize on the probe's own connection did not succeed (%s)", what, describeAnswer(r, init))
	}
	if protocol.Stateless(r.Revision()) {
		if era, ok := stepOn(r, probe.ConnSessionEra, probe.StepEraInitialize); ok && era.Outcome != probe.OutcomeOK {
			return fmt.Sprintf("%s was not sent: the server speaks only the stateless revision %s (initialize on a connection of its own got %s)",
				what, r.Revision(), describeAnswer(r, era))
		}
		return fmt.Sprintf("%s was not sent: the server speaks the stateless revision %s", what, r.Revision())
	}
	return fmt.Sprintf("%s was not sent: %s", what, probeStopped(r))
}

// httpAnswer says what came back for a bent HTTP request: the status and, when the body was
// a JSON-RPC answer, what it said.
func httpAnswer(r *Capture, st probe.Step) string {
	if st.HTTPStatus == 0 {
		return describeAnswer(r, st)
	}
	s := fmt.Sprintf("HTTP %d", st.HTTPStatus)
	if m := exchangeAnswer(r, st); m != nil {
		switch m.Kind {
		case ErrorResponse:
			return s + " with " + describeError(m)
		case ResultResponse:
			return s + " with a result"
		}
	}
	return s + describeBody(r, st.Response)
}

// twoHundred reports whether an HTTP status is a success (2xx).
func twoHundred(status int) bool { return status >= 200 && status <= 299 }

// deliberateRequests are the Seqs of the requests the probe bent on purpose (see
// probe.Deliberate): the transport checks do not judge what they got, the rule checks do.
func deliberateRequests(r *Capture) map[int]bool {
	out := map[int]bool{}
	for _, st := range r.Steps {
		if st.Request >= 0 && probe.Deliberate(st.Name) {
			out[st.Request] = true
		}
	}
	return out
}
