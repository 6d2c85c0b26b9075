package apiserver

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/mcpwatch/mcpwatch/internal/runreport"
	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/report"
	"github.com/mcpwatch/mcpwatch/store"
)

// Page sizes of GET /api/v1/servers/{server}/runs.
const (
	defaultRunPage = 50
	maxRunPage     = 200
)

// listRuns is GET /api/v1/servers/{server}/runs.
func (s *API) listRuns(w http.ResponseWriter, r *http.Request) error {
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
	// Transcript says whether the report holds the transcript. By default only failing runs
	// and the first run after a change of outcome keep one; it ages out before the run, and
	// very large ones are not kept.
	Transcript bool `json:"transcript"`
}

// getRun is GET /api/v1/runs/{run}.
func (s *API) getRun(w http.ResponseWriter, r *http.Request) error {
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
	out.Report = runreport.Build(run, srv, res, runreport.Options{Catalog: s.cfg.Catalog, Verbose: out.Transcript,
		Generator: report.Generator{Name: "mcpwatch api", Version: s.cfg.Version}})
	s.writeJSON(w, http.StatusOK, out)
	return nil
}

// recording reads a run's transcript: the probe recording the monitor stored. nil when there
// is none or it cannot be read (the report then stands on the stored run).
func (s *API) recording(r *http.Request, id store.RunID) (*probe.Result, error) {
	res, err := runreport.Recording(r.Context(), s.cfg.Store, id)
	if errors.Is(err, runreport.ErrUnreadable) {
		s.log.WarnContext(r.Context(), "unreadable transcript", "run", id.String(), "err", err)
		return nil, nil
	}
	return res, err
}
