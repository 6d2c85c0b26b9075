package alert

import (
	"testing"

	"github.com/mcpwatch/mcpwatch/probe"
)

// The alert engine reads stored steps by the probe's names and outcome without importing the
// probe: these must stay the probe's words.
func TestStepWordsAreTheProbes(t *testing.T) {
	t.Parallel()
	want := []string{probe.StepInitialize, probe.StepToolsList, probe.StepPing}
	if got := DefaultLatencySteps(); len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("DefaultLatencySteps() = %v, want %v", got, want)
	}
	if stepOK != string(probe.OutcomeOK) {
		t.Errorf("stepOK = %q, want %q", stepOK, probe.OutcomeOK)
	}
}
