package apiserver

import (
	"bytes"
	"errors"
	"net/http"
	"path"
	"strconv"
	"strings"

	"github.com/mcpwatch/mcpwatch/checks"
	"github.com/mcpwatch/mcpwatch/checks/report"
	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/store"
)

// Page sizes of GET /api/v1/servers/{server}/runs.
const (
	defaultRunPage = 50
	maxRunPage     = 200
)

// listRuns is GET /api/v1/servers/{server}/runs.
func (s *Server) listRuns(w http.ResponseWriter, r *http.Request) error {
	v, err := s.serverOf(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	outcome, region := q.Get("outcome"), q.Get("region")
	switch outcome {
	case "", store.OutcomeUp, store.OutcomeDegraded, store.OutcomeDown:
	default:
		return errorf(http.StatusBadRequest, codeBadRequest, "outcome: one of up, degraded, down")
	}
	if len(region) > 128 {
		return errorf(http.StatusBadRequest, codeBadRequest, "region: at most 128 bytes")
	}
	limit := defaultRunPage
	if l := q.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 || n > maxRunPage {
			return errorf(http.StatusBadRequest, codeBadRequest, "limit: a number from 1 to "+strconv.Itoa(maxRunPage))
		}
		limit = n
	}
	digest := queryDigest(v.ID, outcome, region)
	pq := store.RunPageQuery{ServerID: v.ID, Region: region, Outcome: outcome, Limit: limit}
	if c := q.Get("cursor"); c != "" {
		cur, err := decodeCursor(c, digest)
		if err != nil {
			return err
		}
		pq.After = &cur
	}
	runs, next, err := s.cfg.Store.RunPage(r.Context(), pq)
	if err != nil {
		return err
	}
	out := struct {
		Runs       []runView `json:"runs"`
		NextCursor *string   `json:"nextCursor"`
	}{Runs: make([]runView, 0, len(runs))}
	for _, run := range runs {
		out.Runs = append(out.Runs, toRunView(run))
	}
	if next != nil {
		c := encodeCursor(*next, digest)
		out.NextCursor = &c
	}
	s.writeJSON(w, http.StatusOK, out)
	return nil
}

// runReportView is GET /api/v1/runs/{run}: the run as stored and its report as `prober check
// --format json` gives it, with every transcript frame when the transcript is kept.
type runReportView struct {
	Run    runView        `json:"run"`
	Server string         `json:"server"`
	Report *report.Report `json:"report"`
	// Transcript says whether the report holds the transcript (it ages out before the run,
	// and very large ones are not kept).
	Transcript bool `json:"transcript"`
}

// getRun is GET /api/v1/runs/{run}.
func (s *Server) getRun(w http.ResponseWriter, r *http.Request) error {
	id, err := store.ParseRunID(r.PathValue("run"))
	if err != nil {
		return errorf(http.StatusBadRequest, codeBadRequest, "run: not a run id (a UUID)")
	}
	run, err := s.cfg.Store.Run(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		return errorf(http.StatusNotFound, codeNotFound, "no run "+id.String())
	}
	if err != nil {
		return err
	}
	out := runReportView{Run: toRunView(run)}
	srv, err := s.cfg.Store.Server(r.Context(), run.ServerID)
	switch {
	case err == nil:
		out.Server = srv.Name
	case !errors.Is(err, store.ErrNotFound):
		return err
	}
	res, err := s.recording(r, id)
	if err != nil {
		return err
	}
	out.Transcript = res != nil
	if res == nil {
		res = resultFromRun(run, srv)
	}
	findings := s.findingsOf(run, res)
	res.Target = publicTarget(res, srv)
	out.Report = report.Build(res, findings, report.BuildOptions{
		Verbose: out.Transcript, Catalog: s.cfg.Catalog, Redactor: report.NewRedactor(secretsOf(srv)...),
		Generator: report.Generator{Name: "mcpwatch api", Version: s.cfg.Version},
	})
	s.writeJSON(w, http.StatusOK, out)
	return nil
}

// recording reads a run's transcript: the probe recording the monitor stored. nil when there
// is none.
func (s *Server) recording(r *http.Request, id store.RunID) (*probe.Result, error) {
	raw, err := s.cfg.Store.Transcript(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	res, err := probe.ReadRecording(bytes.NewReader(raw))
	if err != nil {
		s.log.WarnContext(r.Context(), "unreadable transcript", "run", id.String(), "err", err)
		return nil, nil
	}
	return res, nil
}

// secretsOf lists what a report about srv must not show: the credentials of its URL, and a
// stdio server's arguments and literal environment values (any of which may be a token).
func secretsOf(srv store.Server) []string {
	out := srv.URLSecrets()
	out = append(out, srv.Args...)
	for _, e := range srv.Env {
		out = append(out, e.Value)
	}
	return out
}

// publicTarget is the target a report may show: a stdio server's command line can hold
// secrets (a token in an argument), so only the program's name is shown; a URL loses its
// credentials.
func publicTarget(res *probe.Result, srv store.Server) string {
	if srv.Transport == store.TransportStdio || res.Transport == probe.TransportStdio {
		name := srv.Command
		if name == "" {
			name, _, _ = strings.Cut(res.Target, " ")
		}
		return "stdio: " + path.Base(name)
	}
	if srv.URL != "" {
		return srv.PublicURL()
	}
	return (store.Server{URL: res.Target}).PublicURL()
}

// resultFromRun stands in for the recording of a run whose transcript is gone: what the
// stored run and steps say.
func resultFromRun(run store.RunRecord, srv store.Server) *probe.Result {
	res := &probe.Result{Transport: srv.Transport, Negotiated: run.ProtocolVersion,
		ProtocolVersion: run.ProtocolVersion, Start: run.Start, Duration: run.Duration, Err: run.Error}
	for _, st := range run.Steps {
		ps := probe.Step{Name: st.Name, Method: st.Method, Outcome: probe.Outcome(st.Outcome),
			Latency: st.Latency, ErrorCode: st.ErrorCode, Request: -1, Response: -1}
		if st.HTTPStatus != nil {
			ps.HTTPStatus = *st.HTTPStatus
		}
		res.Steps = append(res.Steps, ps)
	}
	return res
}

// findingsOf returns the stored findings of a run, described from the catalogue and, where
// the checks judge the recording the same way today, with their evidence.
func (s *Server) findingsOf(run store.RunRecord, res *probe.Result) []checks.Finding {
	evidence := map[string]checks.Finding{}
	if len(res.Frames) > 0 {
		for _, f := range s.cfg.Catalog.Evaluate(res) {
			evidence[f.ID] = f
		}
	}
	out := make([]checks.Finding, 0, len(run.Findings))
	for _, fr := range run.Findings {
		f := checks.Finding{ID: fr.CheckID, Status: checks.Status(fr.Status), Severity: checks.Severity(fr.Severity), Message: fr.Message}
		if c, ok := s.cfg.Catalog.Lookup(fr.CheckID); ok {
			f.Area, f.Rule, f.Spec = c.Area, c.Rule, c.SpecURL(run.ProtocolVersion)
			if f.Severity != checks.SeverityNone {
				f.Hint = c.Hint
			}
		}
		if again, ok := evidence[fr.CheckID]; ok && again.Status == f.Status {
			f.Evidence, f.Data = again.Evidence, again.Data
		}
		out = append(out, f)
	}
	return out
}
