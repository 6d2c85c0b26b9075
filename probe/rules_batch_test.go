package probe

import (
	"testing"

	"github.com/mcpwatch/mcpwatch/internal/testkit/fixture"
	"github.com/mcpwatch/mcpwatch/protocol"
)

func batchSteps(res *Result) []Step {
	var out []Step
	for _, st := range res.Steps {
		if st.Conn == ConnBatch {
			out = append(out, st)
		}
	}
	return out
}

// The batch goes only to a server that negotiated 2025-03-26 (asked for, or answered to a
// newer offer), the one revision whose servers "MUST support receiving JSON-RPC batches"
// (2025-03-26 basic/index, "Batching"); no other gets a process started for it.
func TestBatchProbeGoesOnlyToServersOf20250326(t *testing.T) {
	for _, tc := range []struct {
		name      string
		fault     fixture.Fault
		revision  string
		processes int
		want      Outcome // of the batch step ("" for no batch)
	}{
		{"asked in 2025-03-26, both pings answered", fixture.Conformant, protocol.Revision20250326, 3, OutcomeOK},
		{"negotiated down to 2025-03-26, the batch refused", fixture.BatchRefused, protocol.LatestSessionRevision, 3, OutcomeNoAnswer},
		{"a server of 2025-11-25 gets no batch", fixture.Conformant, protocol.LatestSessionRevision, 2, ""},
		{"asked in 2025-06-18, no batch", fixture.Conformant, protocol.Revision20250618, 2, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := stdioTestOptions()
			o.skipRules = false
			o.ProtocolVersion = tc.revision
			res, _ := runProbe(t, stdioTestTarget(t, "fixture:"+string(tc.fault)), o)
			defer logFramesOnFailure(t, res.Frames)
			if len(res.Processes) != tc.processes {
				t.Errorf("%d processes, want %d", len(res.Processes), tc.processes)
			}
			steps := batchSteps(res)
			if tc.want == "" {
				if len(steps) != 0 {
					t.Errorf("%d steps on the batch connection, want none", len(steps))
				}
				return
			}
			st := ruleStep(t, res, ConnBatch, StepBatch)
			if st.Outcome != tc.want {
				t.Errorf("batch: %s (%s), want %s", st.Outcome, st.Err, tc.want)
			}
			if fence := ruleStep(t, res, ConnBatch, StepBatchPing); fence.Outcome != OutcomeOK {
				t.Errorf("the ping after the batch: %s", fence.Outcome)
			}
			if got := string(res.Frames[st.Request].Raw); got != BatchRequest {
				t.Errorf("sent %s, want the batch %s", got, BatchRequest)
			}
		})
	}
}

func TestBatchProbeOverHTTP(t *testing.T) {
	_, _, url := fixtureServer(t, fixture.Conformant)
	o := ruleTestOptions()
	o.ProtocolVersion = protocol.Revision20250326
	res, _ := runProbe(t, Target{URL: url}, o)
	defer logFramesOnFailure(t, res.Frames)
	st := ruleStep(t, res, ConnBatch, StepBatch)
	if st.Outcome != OutcomeOK || st.HTTPStatus != 0 && st.HTTPStatus != 200 {
		t.Errorf("batch: %s HTTP %d (%s), want both pings answered", st.Outcome, st.HTTPStatus, st.Err)
	}
}
