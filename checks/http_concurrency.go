package checks

import (
	"github.com/mcpwatch/mcpwatch/probe"
)

// http.concurrent-requests: JSON-RPC 2.0 §4 (normative for MCP: "All messages between MCP
// clients and servers MUST follow the JSON-RPC 2.0 specification") says "When a rpc call is
// made, the Server MUST reply with a Response, except for in the case of Notifications", and
// Streamable HTTP makes every request a POST of its own ("Every JSON-RPC message sent from
// the client MUST be a new HTTP POST request"), answered with "Content-Type:
// application/json ... or text/event-stream" (MUST). Nothing lets a server answer only one
// POST at a time: a request that arrives while another is in flight is owed its response
// all the same.

func checkConcurrentRequests(r *Capture, f *Finding) {
	conn := probe.ConnConcurrent // a stateless server's
	if _, ok := stepOn(r, conn, probe.StepConcurrentFirst); !ok {
		conn = probe.ConnConcurrentSession
	}
	first, ok1 := stepOn(r, conn, probe.StepConcurrentFirst)
	second, ok2 := stepOn(r, conn, probe.StepConcurrentSecond)
	if !ok1 || !ok2 {
		if init, ok := stepOn(r, probe.ConnConcurrentSession, probe.StepRuleInitialize); ok && init.Outcome != probe.OutcomeOK {
			f.Untested("the concurrent requests were not sent: initialize on the probe's own connection did not succeed (%s)", describeAnswer(r, init))
			return
		}
		f.notJudged(stoppedHere(r), "the concurrent requests were not sent: %s", probeStopped(r))
		return
	}
	answered := func(st probe.Step) bool {
		return st.Outcome == probe.OutcomeOK || st.Outcome == probe.OutcomeError
	}
	a1, a2 := answered(first), answered(second)
	if !a1 && !a2 {
		f.Untested("neither of two concurrent %s requests was answered (%s; %s): the server answers nothing on this connection, which says nothing of concurrency",
			first.Method, describeAnswer(r, first), describeAnswer(r, second))
		return
	}
	overlap := "both in flight at once"
	if !inFlightTogether(first, second) {
		overlap = "the server answered the first before the second was written, so they did not overlap"
	}
	for _, st := range []probe.Step{first, second} {
		if !answered(st) {
			other := second
			if st.Name == second.Name {
				other = first
			}
			f.Fail(Seqs(st.Request, st.Response, other.Request, other.Response),
				"expected both of two %s requests POSTed at the same time (ids %s and %s) to be answered, got a response to id %s and for id %s %s",
				st.Method, first.ID, second.ID, other.ID, st.ID, describeAnswer(r, st))
		}
	}
	if len(f.Evidence) > 0 {
		return
	}
	f.Pass("two %s requests POSTed at the same time (%s) were both answered", first.Method, overlap)
}

// inFlightTogether reports whether the second request was written before the first was
// answered (frames are recorded as they happen: the Out frame once the request is written).
func inFlightTogether(a, b probe.Step) bool {
	firstAnswer := a.Response
	if b.Response >= 0 && (firstAnswer < 0 || b.Response < firstAnswer) {
		firstAnswer = b.Response
	}
	lastRequest := max(a.Request, b.Request)
	return firstAnswer < 0 || lastRequest < firstAnswer
}
