package alert

import "github.com/mcpwatch/mcpwatch/store"

// FromRecord builds the observation of a run as the store keeps it: the server, the run's
// outcome, its checks (without their spec rules) and the latencies of its steps that
// succeeded. What only the probe result holds (the tool surface, the TLS certificate, the
// rule of each check) the monitor adds while it has the result at hand.
func FromRecord(server store.Server, rec *store.RunRecord) Observation {
	o := Observation{
		ServerID:   rec.ServerID,
		Server:     server.Name,
		Labels:     server.Labels,
		Region:     rec.Region,
		RunID:      rec.ID.String(),
		At:         rec.Start,
		Outcome:    rec.Outcome,
		ErrorCode:  rec.ErrorCode,
		HTTPStatus: rec.HTTPStatus,
		ExitStatus: rec.ExitStatus,
		Error:      rec.Error,
	}
	if rec.ID.IsZero() {
		o.RunID = ""
	}
	for _, f := range rec.Findings {
		o.Checks = append(o.Checks, CheckResult{ID: f.CheckID, Status: f.Status, Message: f.Message})
	}
	seen := map[string]bool{}
	for _, st := range rec.Steps {
		if st.Outcome == stepOK && !seen[st.Name] {
			seen[st.Name] = true
			o.Steps = append(o.Steps, StepLatency{Name: st.Name, Latency: st.Latency})
		}
	}
	return o
}
