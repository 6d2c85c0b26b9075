package monitor

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/probe"
)

func TestAnswerTimeIsTheHandshakeAndTheFirstToolsListPage(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	// step builds a step of a connection; an answered one has a response frame.
	step := func(conn int, name string, page int, outcome probe.Outcome, latency time.Duration) probe.Step {
		st := probe.Step{Name: name, Method: name, Conn: conn, Page: page, Request: 1, Response: 2, Outcome: outcome, Latency: latency}
		if outcome == probe.OutcomeNoAnswer {
			st.Response, st.Latency = -1, 0
		}
		return st
	}
	main, other := probe.ConnMain, probe.ConnNegotiation
	ok, fail, silent := probe.OutcomeOK, probe.OutcomeError, probe.OutcomeNoAnswer
	result := json.RawMessage(`{"capabilities":{"tools":{}}}`)
	// The rest of a probe, which the answer time leaves out.
	rest := []probe.Step{
		step(main, probe.StepResourcesList, 1, ok, 40*ms),
		step(main, probe.StepPing, 0, ok, 30*ms),
		step(other, probe.StepInitializeBogus, 0, fail, 400*ms),
		step(3, probe.StepRuleInitialize, 0, ok, 900*ms),
		step(3, probe.StepToolsList, 1, ok, 700*ms),
	}
	tests := []struct {
		name       string
		initialize json.RawMessage
		discover   json.RawMessage
		steps      []probe.Step
		want       time.Duration
	}{
		{"session era: initialize and the first tools/list page", result, nil,
			append([]probe.Step{step(main, probe.StepInitialize, 0, ok, 120*ms), step(main, probe.StepInitialized, 0, probe.OutcomeSent, 0),
				step(main, probe.StepToolsList, 1, ok, 35*ms), step(main, probe.StepToolsList, 2, ok, 50*ms)}, rest...),
			155 * ms},
		{"stateless: server/discover stands for initialize", nil, result,
			append([]probe.Step{step(main, probe.StepDiscover, 0, ok, 80*ms), step(main, probe.StepToolsList, 1, ok, 20*ms)}, rest...),
			100 * ms},
		{"session era found by era detection: the failed server/discover is left out", result, nil,
			append([]probe.Step{step(main, probe.StepDiscover, 0, fail, 2*time.Second), step(main, probe.StepInitialize, 0, ok, 60*ms),
				step(main, probe.StepToolsList, 1, ok, 15*ms)}, rest...),
			75 * ms},
		{"a tools/list answered with an error is still an answer", result, nil,
			[]probe.Step{step(main, probe.StepInitialize, 0, ok, 60*ms), step(main, probe.StepToolsList, 1, fail, 5*ms)},
			65 * ms},
		{"a run that failed at initialize has none", nil, nil,
			append([]probe.Step{step(main, probe.StepInitialize, 0, fail, 3*time.Second)}, rest...),
			0},
		{"a run whose initialize got no answer has none", nil, nil,
			[]probe.Step{step(main, probe.StepInitialize, 0, silent, 0)},
			0},
		{"a tools/list never answered leaves it unknown", result, nil,
			append([]probe.Step{step(main, probe.StepInitialize, 0, ok, 60*ms), step(main, probe.StepToolsList, 1, silent, 0)}, rest...),
			0},
		{"a probe stopped before tools/list leaves it unknown, whatever other connections listed", result, nil,
			append([]probe.Step{step(main, probe.StepInitialize, 0, ok, 60*ms)}, rest...),
			0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := &probe.Result{Initialize: tt.initialize, Discover: tt.discover, Steps: tt.steps, Duration: 10 * time.Second}
			if got := answerTime(res); got != tt.want {
				t.Errorf("answerTime = %v, want %v", got, tt.want)
			}
			if got := RunRecordOf(res, nil, RunMeta{ServerID: 1, Region: "eu"}).AnswerTime; got != tt.want {
				t.Errorf("the run's AnswerTime = %v, want %v", got, tt.want)
			}
		})
	}
}
