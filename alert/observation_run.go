package alert

import (
	"github.com/mcpwatch/mcpwatch/checks"
	"github.com/mcpwatch/mcpwatch/internal/toolsurface"
	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/store"
)

// FromRun builds the observation of a run from what the monitor holds once it has probed a
// server: the server, the run as written to the store, and, when it still has them, the probe
// result (for the tool surface and the TLS certificate) and the findings (for the spec rule of
// each check). With res nil the run says nothing of tools and certificates; with findings nil
// the checks come from rec.Findings, without rules.
func FromRun(server store.Server, rec *store.RunRecord, res *probe.Result, findings []checks.Finding) Observation {
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
	if findings != nil {
		for _, f := range findings {
			o.Checks = append(o.Checks, CheckResult{ID: f.ID, Status: string(f.Status), Message: f.Message, Rule: f.Rule, Spec: f.Spec})
		}
	} else {
		for _, f := range rec.Findings {
			o.Checks = append(o.Checks, CheckResult{ID: f.CheckID, Status: f.Status, Message: f.Message})
		}
	}
	seen := map[string]bool{}
	add := func(name string, ok bool, latency StepLatency) {
		if ok && !seen[name] {
			seen[name] = true
			o.Steps = append(o.Steps, latency)
		}
	}
	if len(rec.Steps) > 0 {
		for _, st := range rec.Steps {
			add(st.Name, st.Outcome == string(probe.OutcomeOK), StepLatency{Name: st.Name, Latency: st.Latency})
		}
	} else if res != nil {
		for _, st := range res.Steps {
			add(st.Name, st.Outcome == probe.OutcomeOK && st.Conn == probe.ConnMain, StepLatency{Name: st.Name, Latency: st.Latency})
		}
	}
	if res != nil {
		o.Tools = toolsurface.SurfaceOf(res)
		o.Certificate = CertificateOf(res)
	}
	return o
}
