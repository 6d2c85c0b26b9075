package web

import (
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/mcpwatch/mcpwatch/checks"
	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/store"
)

// callsView is the Tool calls card of the server page: each call step of the window (its
// latest latency and outcome, p50 and p95 of its answered calls) and the verdicts of the call
// checks in the latest run.
type callsView struct {
	Window  string
	Rows    []callRow
	Checks  []checkView
	RunHref string
	Note    string
}

type callRow struct {
	Step     string
	Href     string // the run of the latest call
	Ago, At  string
	Region   string
	Last     string // the latest call's latency
	Outcome  stateView
	P50, P95 string
	Answered string // "19 of 20 calls answered"
}

// callStepWindow is the span of the Tool calls card for a chart window: the raw steps it
// reads are kept for the raw retention only, so the longest windows read the last month.
func callStepWindow(w chartWindow) time.Duration {
	return min(time.Duration(w.hours)*time.Hour, store.MaxStepStatsSpan)
}

func (d *dashboard) callsOf(r *http.Request, srv store.Server, latest *store.RunRecord, a *analysis, w chartWindow, now time.Time) (callsView, error) {
	v := callsView{Window: windowLabel(w.name)}
	span := callStepWindow(w)
	if span < time.Duration(w.hours)*time.Hour {
		v.Window = "31 d"
	}
	stats, err := d.store.StepStats(r.Context(), srv.ID, probe.CallStepPrefix, now.Add(-span))
	if err != nil {
		return v, err
	}
	for _, st := range stats {
		row := callRow{Step: st.Name, Href: runHref(st.LastRun.ID), Ago: formatAgo(st.LastRun.Start, now), At: formatTime(st.LastRun.Start),
			Region: st.LastRun.Region, Outcome: stepOutcomeView(st.Last.Outcome), Answered: answeredText(st.OK, st.Runs)}
		if st.Last.Outcome == string(probe.OutcomeOK) || st.Last.Outcome == string(probe.OutcomeError) {
			row.Last = formatLatency(st.Last.Latency)
		}
		if st.OK > 0 {
			row.P50, row.P95 = formatLatency(st.LatencyQuantile(0.5)), formatLatency(st.LatencyQuantile(0.95))
		}
		v.Rows = append(v.Rows, row)
	}
	if latest != nil {
		v.RunHref = runHref(latest.ID)
		ids := checks.CallCheckIDs()
		if a != nil {
			for _, c := range a.report.Checks {
				if slices.Contains(ids, c.ID) {
					v.Checks = append(v.Checks, d.checkFromReport(c, v.RunHref))
				}
			}
		} else {
			run, err := d.store.Run(r.Context(), latest.ID)
			if err != nil {
				return v, err
			}
			for _, f := range run.Findings {
				if slices.Contains(ids, f.CheckID) {
					v.Checks = append(v.Checks, d.checkFromStore(f))
				}
			}
		}
	}
	if len(v.Rows) == 0 {
		v.Note = "No tool was called in the last " + v.Window + "."
		if len(srv.Calls) == 0 {
			v.Note = "The monitor calls none of this server's tools: only a calls: list under the server in the configuration file has it call any (see docs/monitor.md, Tool calls)."
		}
	}
	return v, nil
}

// stepOutcomeView is how a call step's outcome is shown, coloured as a run would be: a result
// as up, a JSON-RPC error as degraded (the server answered, not with a result), anything else
// as down.
func stepOutcomeView(outcome string) stateView {
	switch probe.Outcome(outcome) {
	case probe.OutcomeOK:
		return stateView{store.OutcomeUp, "ok", "the tool answered with a result"}
	case probe.OutcomeError:
		return stateView{store.OutcomeDegraded, "error", "the server answered with a JSON-RPC error"}
	case probe.OutcomeNoAnswer:
		return stateView{store.OutcomeDown, "no answer", "nothing came back before the call's timeout"}
	case probe.OutcomeTransport:
		return stateView{store.OutcomeDown, "transport", "the transport failed during the call"}
	}
	return stateView{store.StateUnknown, outcome, ""}
}

// answeredText says how many of the calls of the window got a result.
func answeredText(ok, runs int64) string {
	return fmt.Sprintf("%d of %d answered", ok, runs)
}
