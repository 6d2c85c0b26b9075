package checks

import (
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// The same missing rule probe is untested when the probe stopped before sending it, and a
// skip when the run sent it in another of its probes (which judges it): the two must never
// be confused, since an untested check is never a pass and a skip says the rule did not apply.
func TestMissingRuleProbesAreUntestedUnlessRunElsewhere(t *testing.T) {
	for _, id := range []string{"http.session", "http.origin", "lifecycle.parse-error", "lifecycle.invalid-request", "auth.challenge", "tools.unknown-tool", "tools.invalid-cursor"} {
		stopped := scriptedSession(protocol.TransportHTTP)
		stopped.Err = "interrupted before the probe finished"
		runCheckRows(t, id, []checkRow{{name: id + " stopped", res: stopped, want: StatusUntested, msg: "was not sent"}})

		elsewhere := scriptedSession(protocol.TransportHTTP)
		elsewhere.RulesElsewhere = "ran once, in the probe of revision 2025-11-25"
		runCheckRows(t, id, []checkRow{{name: id + " elsewhere", res: elsewhere, want: StatusSkip, msg: "ran once"}})
	}
}

func TestRuleUnsentHere(t *testing.T) {
	failedInit := scriptedSession(protocol.TransportHTTP)
	failedInit.Steps = append(failedInit.Steps, probe.Step{Name: probe.StepRuleInitialize, Conn: probe.ConnOrigin,
		Outcome: probe.OutcomeError, Request: -1, Response: -1})
	failedInit.RulesElsewhere = "elsewhere"
	stateless := &probe.Result{Transport: protocol.TransportHTTP, Requested: protocol.Revision20260728, Negotiated: protocol.Revision20260728,
		ProtocolVersion: protocol.Revision20260728, InitializedAt: -1}
	tests := []struct {
		name string
		res  *probe.Result
		want bool
	}{
		{"the probe stopped", scriptedSession(protocol.TransportHTTP), true},
		{"its connection's initialize failed, even with rules elsewhere", failedInit, true},
		{"the stateless revision gets no session rule probes", stateless, false},
	}
	for _, tt := range tests {
		if got := ruleUnsentHere(NewCapture(tt.res), probe.ConnOrigin); got != tt.want {
			t.Errorf("%s: ruleUnsentHere = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// An interrupt is the user's doing: what a check would fail or warn of in an interrupted
// probe is untested, saying when the interrupt came; the same result uninterrupted fails.
// What the server was seen to send before the interrupt is still judged.
func TestAnInterruptedProbeFailsNothingItDidNotSee(t *testing.T) {
	wrongVersion := func(interrupted time.Duration) *probe.Result {
		res := scriptedSession(protocol.TransportHTTP, answer(probe.StepPing, jsonReply(`{"jsonrpc":"1.0","id":ID,"result":{}}`)))
		for i := range res.Frames {
			res.Frames[i].At = 2 * time.Second
		}
		res.Interrupted = interrupted
		return res
	}
	runCheckRows(t, "jsonrpc.version", []checkRow{
		{name: "a message received before the interrupt is judged", res: wrongVersion(3 * time.Second), want: StatusFail, msg: `got "jsonrpc": "1.0"`},
		{name: "a message received after the interrupt is not", res: wrongVersion(time.Second), want: StatusUntested, msg: "interrupted after 1s"},
	})
}

func TestAnInterruptedProbeFailsNothing(t *testing.T) {
	result := func(interrupted time.Duration) *probe.Result {
		return &probe.Result{Transport: protocol.TransportStdio, Requested: protocol.Revision20251125, InitializedAt: -1,
			Interrupted: interrupted,
			Steps: []probe.Step{{Name: probe.StepInitialize, Method: "initialize", Conn: probe.ConnMain, Request: -1, Response: -1,
				Outcome: probe.OutcomeNoAnswer, Err: "interrupted: the probe stopped waiting"}}}
	}
	runCheckRows(t, "lifecycle.initialize", []checkRow{
		{name: "not interrupted", res: result(0), want: StatusFail, msg: "expected an initialize result", noFrames: true},
		{name: "interrupted", res: result(1500 * time.Millisecond), want: StatusUntested, msg: "interrupted after 1.5s, before this could be judged"},
	})
}
