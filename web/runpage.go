package web

import (
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"strconv"

	"github.com/mcpwatch/mcpwatch/internal/textclip"
	"github.com/mcpwatch/mcpwatch/store"
)

// runData is a run's page.
type runData struct {
	ID         string
	Server     string
	ServerHref string
	At, Ago    string
	Region     string
	Worker     string
	Outcome    stateView
	Duration   string
	// Answer is the run's answer time, "" when it has none (see store.RunRecord.AnswerTime).
	Answer   string
	Protocol string
	Identity string
	Codes    string
	Error    string
	Tools    string
	// Report is the text report as `prober check` prints it (from the recording).
	Report  template.HTML
	Verdict string
	Frames  []frameView
	// Without a recording, the stored steps and verdicts are all there is.
	NoRecording bool
	// Passing: the run was up, whose transcript the default policy does not keep.
	Passing  bool
	Steps    []stepRow
	Findings []checkView
}

type stepRow struct {
	Name, Method, Outcome, Latency, Codes string
}

func (d *dashboard) runPage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	now := d.now().UTC()
	id, err := store.ParseRunID(r.PathValue("id"))
	if err != nil {
		d.problemPage(w, r, http.StatusNotFound, "No such run", fmt.Sprintf("%q is not a run id.", r.PathValue("id")))
		return
	}
	run, err := d.store.Run(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		d.problemPage(w, r, http.StatusNotFound, "No such run", "There is no run "+id.String()+"; it may have aged out.")
		return
	}
	if err != nil {
		d.fail(w, r, err)
		return
	}
	data := runData{
		ID: run.ID.String(), At: formatTime(run.Start), Ago: formatAgo(run.Start, now), Region: run.Region,
		Worker: run.Worker, Outcome: outcomeView(run.Outcome), Duration: formatDuration(run.Duration),
		Protocol: run.ProtocolVersion, Identity: textclip.Runes(run.ServerName+" "+run.ServerVersion, 200),
		Codes: runCodes(run), Error: run.Error, Server: fmt.Sprintf("server %d (removed)", run.ServerID),
	}
	if run.AnswerTime > 0 {
		data.Answer = formatLatency(run.AnswerTime)
	}
	if run.ToolCount != nil {
		data.Tools = strconv.Itoa(*run.ToolCount)
	}
	srv, err := d.store.Server(ctx, run.ServerID)
	switch {
	case err == nil:
		data.Server, data.ServerHref = srv.Name, serverHref(srv.Name)
	case !errors.Is(err, store.ErrNotFound):
		d.fail(w, r, err)
		return
	}
	a, err := d.analyse(ctx, run.ID, srv)
	switch {
	case errors.Is(err, errNoRecording):
		data.NoRecording, data.Passing = true, run.Outcome == store.OutcomeUp
		for _, st := range run.Steps {
			data.Steps = append(data.Steps, stepRow{Name: st.Name, Method: st.Method, Outcome: st.Outcome,
				Latency: formatLatency(st.Latency), Codes: stepCodes(st)})
		}
		for _, f := range run.Findings {
			data.Findings = append(data.Findings, d.checkFromStore(f))
		}
	case err != nil:
		d.fail(w, r, err)
		return
	default:
		data.Report = a.text
		data.Verdict = a.report.Verdict
		data.Frames = framesOf(a.report.Transcript)
	}
	title := "Run of " + data.Server + " at " + data.At
	d.render(w, r, http.StatusOK, "run", title, 0, data)
}
