package monitor

import (
	"time"

	"github.com/mcpwatch/mcpwatch/alert"
	"github.com/mcpwatch/mcpwatch/checks"
	"github.com/mcpwatch/mcpwatch/internal/toolsurface/probed"
	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/store"
)

// ObservationOf builds the alert engine's observation of a run from what the monitor holds
// once it has probed a server: the server, the run as written to the store, and, when it
// still has them, the probe result (for the tool surface and the TLS certificate) and the
// findings (for the spec rule of each check). With res nil the run says nothing of tools and
// certificates; with findings nil the checks come from rec.Findings, without rules.
func ObservationOf(server store.Server, rec *store.RunRecord, res *probe.Result, findings []checks.Finding) alert.Observation {
	o := alert.FromRecord(server, rec)
	if findings != nil {
		o.Checks = nil
		for _, f := range findings {
			o.Checks = append(o.Checks, alert.CheckResult{ID: f.ID, Status: string(f.Status), Message: f.Message, Rule: f.Rule, Spec: f.Spec})
		}
	}
	if res == nil {
		return o
	}
	if len(rec.Steps) == 0 {
		seen := map[string]bool{}
		for _, st := range res.Steps {
			if st.Outcome == probe.OutcomeOK && st.Conn == probe.ConnMain && !seen[st.Name] {
				seen[st.Name] = true
				o.Steps = append(o.Steps, alert.StepLatency{Name: st.Name, Latency: st.Latency})
			}
		}
	}
	o.Tools = probed.Surface(res)
	o.Certificate = certificateOf(res)
	if rec.Outcome == store.OutcomeDown {
		if init, ok := res.FirstStep(probe.StepInitialize); ok {
			o.Response = answerSnippet(res, init)
		}
	}
	return o
}

// certificateOf returns the server certificate that expires first among those the probe saw
// (nil when no exchange was over TLS).
func certificateOf(res *probe.Result) *alert.Certificate {
	var out *alert.Certificate
	for _, f := range res.Frames {
		if f.HTTP == nil || f.HTTP.TLS == nil || f.HTTP.TLS.NotAfter.IsZero() {
			continue
		}
		if out == nil || f.HTTP.TLS.NotAfter.Before(out.NotAfter) {
			out = &alert.Certificate{Subject: f.HTTP.TLS.Subject, NotAfter: f.HTTP.TLS.NotAfter.UTC().Truncate(time.Second)}
		}
	}
	return out
}
